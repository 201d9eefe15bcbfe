// Query execution for find/count/distinct/update/delete/findAndModify: turns (collection,
// filter, sort, skip, limit, hint) into a DocumentStream. A filter that pins _id becomes a point
// lookup on the _id index (IDHACK); otherwise the planner (index/planner.h) picks an index scan
// (server/exec/index_scan.h) or a collection scan in insertion order, which runs the matcher on
// views of RocksDB's buffers (no per-document copy). An index that returns the requested order
// replaces the blocking sort. Sort materialises only what it must: with a limit it keeps the top
// skip+limit documents, not everything. Planning errors (an unknown hint) are returned before
// anything runs; storage errors while it runs are the stream's status. The stream is the plan:
// each of its stages counts what it does (plan_stage.h), and explain reads them from it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/limits.h"
#include "query/matcher/matcher.h"
#include "query/sort/sort_pattern.h"
#include "server/exec/document_stream.h"
#include "server/exec/id_cache.h"
#include "storage/engine.h"

namespace cairn::server {

// A command's index hint: by name or by key pattern. {$natural: ±1} asks for a collection scan.
struct QueryHint {
  std::string name;         // by name, when not empty
  std::string key_pattern;  // by key pattern: the pattern document's bytes, when not empty
  bool natural = false;     // {$natural: 1|-1}

  bool empty() const { return name.empty() && key_pattern.empty() && !natural; }
};

struct QuerySpec {
  std::shared_ptr<const query::Matcher> matcher;   // required
  std::shared_ptr<const query::SortPattern> sort;  // null or empty = natural (insertion) order
  int64_t skip = 0;
  int64_t limit = 0;             // 0 = no limit
  bool reverse_natural = false;  // {$natural: -1}
  // Where a blocking sort past 100 MB spills (allowDiskUse, default true as in MongoDB 7.0);
  // empty: it fails with QueryExceededMemoryLimitNoDiskUseAllowed 292 instead.
  std::string spill_dir;
  // Bytes that blocking sort may hold before it spills or fails
  // (internalQueryMaxBlockingSortMemoryUsageBytes). Default: 100 MB.
  int64_t max_sort_memory_bytes = kDefaultStageMemoryBytes;
  QueryHint hint;
  // Planner extras (server/exec/access_path.h). find's projection (views the command's bytes; {} =
  // none): when one index holds every field it returns and its bounds answer the filter, the
  // scan builds the documents from the keys (covered, explain PROJECTION_COVERED).
  BsonView projection;
  // count: only how many documents match is needed (COUNT_SCAN when the bounds answer the filter).
  bool count_only = false;
  // distinct: the field whose values are asked (views the command's bytes; empty = not
  // distinct). An index led by it may return one document per value (DISTINCT_SCAN).
  std::string_view distinct_key;
  // find's min/max (views; {} = none): bound the hinted index's scan to [min, max).
  BsonView min;
  BsonView max;
  // find's returnKey: a blocking sort keeps each document's index entry (index_key()).
  bool return_key = false;
};

// Reads a command's "hint" value into spec->hint: a name, a key pattern, or {$natural: ±1}
// (which also sets reverse_natural for -1 when there is no sort); {} is no hint.
void SetQueryHint(const bson_iter_t* hint, QuerySpec* spec);

// The document whose _id is `id` (any BSON value) into *document, with its RecordId; *found false
// when there is none. `id_cache` (optional) names the record without the _id index and may hold
// the document itself. The point lookup of find, and of its {_id: k} fast path.
Status ReadById(const storage::Engine& engine, const storage::CollectionEntry& collection,
                const bson_iter_t* id, IdCache* id_cache, std::string* document,
                storage::RecordId* record_id, bool* found);

// A planned query: the stream to run, and what explain shows beside it.
struct QueryPlan {
  std::unique_ptr<DocumentStream> root;
  // The candidate plans the planner did not choose (explain's rejectedPlans; never run). Only
  // filled when PlanQuery is asked for them.
  std::vector<std::unique_ptr<PlanStage>> rejected;
  bool covered = false;  // the index keys answer find's projection (PROJECTION_COVERED)
};

// The plan over `collection` (null = a collection that does not exist: EOF). `id_cache`
// (optional) lets an _id point lookup skip the _id index.
Result<QueryPlan> PlanQuery(const storage::Engine& engine,
                            const storage::CollectionHandle& collection, const QuerySpec& spec,
                            IdCache* id_cache, bool with_rejected);

// PlanQuery's stream alone: what every command but explain runs.
Result<std::unique_ptr<DocumentStream>> BuildQueryStream(
    const storage::Engine& engine, const storage::CollectionHandle& collection,
    const QuerySpec& spec, IdCache* id_cache);

// The filter as explain prints it (a collection scan's "filter", "parsedQuery") under `key`;
// nothing for a filter that matches everything.
void AppendExplainFilter(const query::Matcher& matcher, const char* key, bson_t* out);

}  // namespace cairn::server
