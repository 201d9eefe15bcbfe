// Pipeline: an aggregation pipeline parsed through the stage registry (stage_registry.h),
// optimised (a $sort followed by $limit keeps only the top N), and bound to an input stream into
// a chain of executors. Parsing reports MongoDB's codes: 40323 (stage object with != 1 field),
// 40324 (unknown stage name), each stage's own argument errors, and BadValue naming a MongoDB
// stage Cairn does not implement yet.
//
// A Pipeline is immutable after Parse and cheap to copy (its stages are shared); executors built
// by Bind() hold per-cursor state and must not outlive the Pipeline.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/bson_doc.h"
#include "common/limits.h"
#include "common/status.h"
#include "query/expression/expression.h"
#include "query/pipeline/document_source.h"

namespace cairn::query {

class Stage;               // query/pipeline/stage.h
class ForeignCollections;  // query/pipeline/foreign_collections.h
class OutputTargets;       // query/pipeline/output_target.h
class ServerSources;       // query/pipeline/server_sources.h
struct PipelineStats;      // query/pipeline/explain_stats.h

// Per-pipeline settings.
struct PipelineOptions {
  // The command's expression context: its `let` variables and $$NOW.
  // Default: none (no variables; $$NOW taken when the pipeline is parsed).
  std::shared_ptr<const ExpressionContext> expression_context;

  // Bytes the blocking stages that do not spill ($bucketAuto, $facet, $sample, ...) may hold
  // before they fail with QueryExceededMemoryLimitNoDiskUseAllowed (292).
  // Default: 100 MB.
  int64_t max_memory_bytes = kDefaultStageMemoryBytes;

  // Spilling ($sort, $group): allowDiskUse (default true, MongoDB's allowDiskUseByDefault); where
  // sorted runs go (the server passes <dbpath>/_tmp; empty: the system's temporary directory);
  // the budgets past which they spill (internalQueryMaxBlockingSortMemoryUsageBytes,
  // internalDocumentSourceGroupMaxMemoryBytes; default 100 MB each).
  bool allow_disk_use = true;
  std::string spill_dir;
  int64_t sort_max_memory_bytes = kDefaultStageMemoryBytes;
  int64_t group_max_memory_bytes = kDefaultStageMemoryBytes;

  // The foreign data $lookup may read into a HashJoin's table; past it, a foreign collection
  // without a usable index is joined by NestedLoopJoin
  // (internalQueryCollectionMaxDataSizeBytesToChooseHashJoin). Default: 100 MB.
  int64_t hash_join_max_bytes = kDefaultStageMemoryBytes;

  // Where $out and $merge write (the server's implementation). Default: none — a writing stage
  // then fails when it runs.
  std::shared_ptr<OutputTargets> output_targets;

  // The other collections of the database, for $lookup's `from`. Default: none ($lookup then
  // reads every foreign collection as empty).
  std::shared_ptr<ForeignCollections> foreign;

  // What $collStats, $currentOp and $listLocalSessions report (the server's implementation).
  // Default: none — such a stage then fails when it runs.
  std::shared_ptr<ServerSources> server_sources;

  // The namespace the aggregate runs on (MongoDB's expression context namespace): its database,
  // and its collection, empty for a database-level aggregate ({aggregate: 1}). $collStats
  // reports on it; $currentOp and $listLocalSessions need admin and {aggregate: 1}.
  // Default: none (empty).
  std::string db;
  std::string collection;

  // Where top-level stages count what explain's executionStats shows (explain_stats.h).
  // Default: none (nothing is counted). Sub-pipelines are parsed without it.
  std::shared_ptr<PipelineStats> stats;

  // How deeply this pipeline is nested in $lookup / $unionWith sub-pipelines (0: the command's);
  // SubPipelineOptions counts it.
  int sub_pipeline_depth = 0;

  // Whether the pipeline's documents are the command's results: each then meets MongoDB's
  // limits on a serialized document (CheckOutputDocument, expression/value.h: 10334 past
  // 16 MiB + 16 KiB, Overflow past 200 levels) as it leaves. False for sub-pipelines ($facet,
  // $lookup, $unionWith) and pipeline updates, whose documents are checked where they land.
  bool checks_output = true;
};

// MongoDB's internalPipelineLengthLimit: a pipeline (or sub-pipeline) of more stages fails with
// FailedToParse "Pipeline length must be no longer than 1000 stages".
inline constexpr size_t kMaxPipelineLength = 1000;
// MongoDB's internalMaxSubPipelineViewDepth: how deeply $lookup and $unionWith sub-pipelines
// may nest.
inline constexpr int kMaxSubPipelineDepth = 20;

// The options a $lookup or $unionWith parses its sub-pipeline with: one level deeper, output
// unchecked; MaxSubPipelineDepthExceeded (232) "Maximum number of nested sub-pipelines exceeded.
// Limit is 20" when `outer` is already at the limit (MongoDB's
// makeCopyForSubPipelineFromExpressionContext).
Result<PipelineOptions> SubPipelineOptions(const PipelineOptions& outer);

class Pipeline {
 public:
  // Parses a pipeline array (the bytes of the BSON array). Errors as described above.
  static Result<Pipeline> Parse(BsonView pipeline_array, const PipelineOptions& options = {});

  // The leading $match's filter when the pipeline starts with one (the server turns it into its
  // query: _id point lookups, later index scans), so Bind can skip it; empty view otherwise.
  // Valid while the Pipeline lives.
  BsonView leading_match() const;

  // Builds the executor over `input` (documents of the collection, already filtered by
  // leading_match() when skip_leading_match is true). The Pipeline must outlive the result.
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> input,
                                       bool skip_leading_match) const;

  // Whether the first stage generates the pipeline's documents and reads no input ($documents,
  // $collStats, $currentOp, $listLocalSessions): the caller then need not open the collection.
  bool starts_with_source() const;

  // Number of stages after optimisation (for tests and explain).
  size_t size() const { return stages_ ? stages_->size() : 0; }

 private:
  std::shared_ptr<const std::vector<std::shared_ptr<const Stage>>> stages_;
  bool checks_output_ = false;  // PipelineOptions::checks_output
};

}  // namespace cairn::query
