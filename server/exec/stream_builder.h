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

#include "server/exec/document_stream.h"
#include "server/exec/id_cache.h"
#include "server/exec/query_spec.h"
#include "storage/reader.h"

namespace cairn::server {

// The document whose _id is `id` (any BSON value) into *document, with its RecordId; *found false
// when there is none. `id_cache` (optional) names the record without the _id index and may hold
// the document itself. The point lookup of find, and of its {_id: k} fast path.
Status ReadById(const storage::Reader& reader, const storage::CollectionEntry& collection,
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
Result<QueryPlan> PlanQuery(const storage::Reader& reader,
                            const storage::CollectionHandle& collection, const QuerySpec& spec,
                            IdCache* id_cache, bool with_rejected);

// PlanQuery's stream alone: what every command but explain runs.
Result<std::unique_ptr<DocumentStream>> BuildQueryStream(
    const storage::Reader& reader, const storage::CollectionHandle& collection,
    const QuerySpec& spec, IdCache* id_cache);

// The filter as explain prints it (a collection scan's "filter", "parsedQuery") under `key`;
// nothing for a filter that matches everything.
void AppendExplainFilter(const query::Matcher& matcher, const char* key, bson_t* out);

}  // namespace cairn::server
