// The access path of a query: resolves the hint, asks the planner (index/planner.h) which index
// to scan, builds that scan (server/exec/index_scan.h) with how each of its stages describes
// itself to explain, and the candidates it rejected (explain's rejectedPlans). Beyond
// one index scan + FETCH: an OR plan (index/or_plan.h) when a $or's branches each use an index, a
// covered scan for find's projection and a count-only scan (COUNT_SCAN) for count when the bounds
// answer the whole filter (index/plan_analysis.h), and find's min/max on the hinted index
// (index/min_max_bounds.h: errors 51173-51176). A plan made from a catalog handle older than the
// scan's snapshot is made again when an index's multikey paths changed meanwhile (bounds
// intersected on a field that just became multikey would miss documents). Used by
// BuildQueryStream only.
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "server/exec/document_stream.h"
#include "server/exec/id_cache.h"
#include "server/exec/query_spec.h"
#include "storage/reader.h"

namespace cairn::server {

struct AccessPath {
  std::unique_ptr<DocumentStream> stream;  // the index scan; null: scan the collection
  bool provides_sort = false;              // the stream is in the query's sort order
  bool covered = false;                    // documents built from the keys (PROJECTION_COVERED)
  // With `with_rejected`: the candidates the planner did not choose, as explain shows them.
  std::vector<std::unique_ptr<PlanStage>> rejected;
};

// Planning errors (an unknown hint, bad min/max) are returned. Fetched documents are read
// through `record_cache` when it is not null.
Result<AccessPath> PlanAccessPath(const storage::Reader& reader,
                                  const storage::CollectionHandle& collection,
                                  const QuerySpec& spec, IdCache* record_cache, bool with_rejected);

}  // namespace cairn::server
