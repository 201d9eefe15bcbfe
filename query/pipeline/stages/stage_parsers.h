// The parse entry point of each stage file under stages/ (one function per file); only
// stage_registry.cc's table includes this. Each validates its argument with MongoDB's codes.
#pragma once

#include <string>
#include <string_view>

#include <bson/bson.h>

#include "common/status.h"
#include "query/pipeline/stage.h"

namespace cairn::query::stages {

Result<StagePtr> ParseMatch(const bson_iter_t* spec, const PipelineOptions& options);  // match.cc
Result<StagePtr> ParseSkip(const bson_iter_t* spec, const PipelineOptions& options);   // skip.cc
Result<StagePtr> ParseLimit(const bson_iter_t* spec, const PipelineOptions& options);  // limit.cc
Result<StagePtr> ParseSort(const bson_iter_t* spec, const PipelineOptions& options);   // sort.cc
Result<StagePtr> ParseProject(const bson_iter_t* spec,
                              const PipelineOptions& options);                         // project.cc
Result<StagePtr> ParseUnset(const bson_iter_t* spec, const PipelineOptions& options);  // unset.cc
Result<StagePtr> ParseCount(const bson_iter_t* spec, const PipelineOptions& options);  // count.cc
Result<StagePtr> ParseGroup(const bson_iter_t* spec, const PipelineOptions& options);  // group.cc
// $addFields and its alias $set (add_fields.cc).
Result<StagePtr> ParseAddFields(const bson_iter_t* spec, const PipelineOptions& options);
// $replaceRoot and its alias $replaceWith (replace_root.cc).
Result<StagePtr> ParseReplaceRoot(const bson_iter_t* spec, const PipelineOptions& options);
Result<StagePtr> ParseUnwind(const bson_iter_t* spec, const PipelineOptions& options);  // unwind.cc
Result<StagePtr> ParseLookup(const bson_iter_t* spec, const PipelineOptions& options);  // lookup.cc

// $out (out.cc), $merge (merge.cc): the writing stages.
Result<StagePtr> ParseOut(const bson_iter_t* spec, const PipelineOptions& options);
Result<StagePtr> ParseMerge(const bson_iter_t* spec, const PipelineOptions& options);
// $documents (documents.cc): the source stage of a database-level aggregate.
Result<StagePtr> ParseDocuments(const bson_iter_t* spec, const PipelineOptions& options);
// The source stages that report the server's state (through ServerSources): $collStats
// (coll_stats.cc), $currentOp (current_op.cc), $listLocalSessions (list_local_sessions.cc).
Result<StagePtr> ParseCollStats(const bson_iter_t* spec, const PipelineOptions& options);
Result<StagePtr> ParseCurrentOp(const bson_iter_t* spec, const PipelineOptions& options);
Result<StagePtr> ParseListLocalSessions(const bson_iter_t* spec, const PipelineOptions& options);

Result<StagePtr> ParseSortByCount(const bson_iter_t* spec,
                                  const PipelineOptions& options);  // sort_by_count.cc
Result<StagePtr> ParseSample(const bson_iter_t* spec, const PipelineOptions& options);  // sample.cc

Result<StagePtr> ParseBucket(const bson_iter_t* spec, const PipelineOptions& options);  // bucket.cc
Result<StagePtr> ParseBucketAuto(const bson_iter_t* spec,
                                 const PipelineOptions& options);  // bucket_auto.cc
Result<StagePtr> ParseUnionWith(const bson_iter_t* spec,
                                const PipelineOptions& options);  // union_with.cc
Result<StagePtr> ParseFacet(const bson_iter_t* spec, const PipelineOptions& options);  // facet.cc

// desugared.cc: a stage MongoDB defines as a sequence of stages (replaced by them when the
// pipeline is optimised); `static_name` must outlive it. And one stage parsed from a
// one-field stage document built by such a stage ({"$group": {...}}) with its parser.
StagePtr MakeDesugaredStage(std::string_view static_name, StageList stages);
Result<StagePtr> ParseStageDocument(BsonView stage, StageParser parse,
                                    const PipelineOptions& options);
// The `count: {$sum: 1}` accumulator $sortByCount and $bucket add to their $group body.
void AppendCountOfOne(bson_t* group_body);
// The groupBy rule of $bucket and $bucketAuto: an object whose first field starts with '$' (an
// expression) or a string of at least `min_path_length` characters starting with '$' (a path;
// $bucketAuto wants 2, $bucket 1).
bool IsGroupByExpression(const bson_iter_t* group_by, size_t min_path_length);
// `static_name` as the $group document `group` followed by the $sort `sort_json`: the shape of
// $sortByCount and $bucket.
Result<StagePtr> MakeGroupThenSort(std::string_view static_name, const BsonDoc& group,
                                   const char* sort_json, const PipelineOptions& options);

// out.cc: a {db, coll} target object of $out / $merge's 'into' (`field` names it in errors).
struct TargetNamespace {
  std::string db;  // empty: the aggregate's database
  std::string coll;
};
Result<TargetNamespace> ParseTargetNamespace(const bson_iter_t* spec, std::string_view field);

// project.cc: a $project/$unset stage over an already-built projection spec; `stage_name` is
// the name errors carry ("Invalid $unset :: caused by :: ...").
Result<StagePtr> MakeProjectStage(BsonView projection_spec, std::string_view stage_name);

}  // namespace cairn::query::stages
