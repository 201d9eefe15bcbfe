// The query planner: for one filter (and sort) over one collection, which index scan to run, or
// none (a collection scan). For each usable index it assigns the filter's predicates to key
// fields with MongoDB's rules for multikey paths (no intersection of two predicates on a
// multikey field unless one $elemMatch joins them; no compounding of fields that share a multikey
// prefix outside such an $elemMatch), decides whether the scan already returns the requested sort
// (equality prefix, then the sort fields in index order or its exact reverse; never through a
// multikey field), and skips indexes that could miss matching documents (hidden, sparse without a
// predicate excluding missing fields, partial when the query does not imply the filter), unless
// hinted. The choice is a small, explainable cost model: an equality on every field of a unique
// index first, then the most leading equality fields, then a range on the next field, then a
// provided sort, then the smaller index. Pure and deterministic; knows nothing of storage.
#pragma once

#include <bson/bson.h>

#include <optional>
#include <string>
#include <vector>

#include "index/index_bounds.h"
#include "index/index_descriptor.h"
#include "query/matcher/match_expression.h"
#include "query/sort/sort_pattern.h"

namespace cairn::index {

// One index the planner may use.
struct PlannerIndex {
  const IndexDescriptor* descriptor = nullptr;
  MultikeyPaths multikey;  // per key field (IndexState::multikey)
};

struct PlannerInput {
  const query::MatchExpression* filter = nullptr;  // Matcher::root(); null = match everything
  const query::SortPattern* sort = nullptr;        // null or empty: no sort asked
  std::vector<PlannerIndex> indexes;               // built indexes (hidden ones included)
  std::optional<size_t> hint;                      // use this index whatever it costs
  // The query compares strings under a collation: binary index keys cannot bound string, symbol,
  // document or array values, nor provide a sort.
  bool collation = false;
};

struct IndexScanPlan {
  size_t index = 0;  // position in PlannerInput::indexes
  IndexBounds bounds;
  bool reverse = false;        // explain's direction "backward"
  bool provides_sort = false;  // documents come back in the requested sort order
  bool multikey = false;       // a document may have several keys: deduplicate RecordIds
  // The filter's top-level predicates the bounds answer exactly (explain leaves them out of the
  // FETCH filter; execution still runs the whole matcher).
  std::vector<const query::MatchExpression*> exact_predicates;
  // Cost-model score (higher wins), for explain and tests.
  std::vector<int> score;
};

struct QueryPlan {
  std::optional<IndexScanPlan> index_scan;  // nullopt: collection scan
  std::vector<IndexScanPlan> rejected;      // the other candidates, best first
};

QueryPlan PlanQuery(const PlannerInput& input);

// Whether every document `query` matches also matches `filter` (a partial index's filter), by
// MongoDB's conservative rules: each conjunct of the filter follows from a conjunct of the query
// on the same path (equal values, narrower ranges, $in values all inside, anything but null
// for $exists: true).
bool QueryImpliesFilter(const query::MatchExpression* query, const query::MatchExpression* filter);

// ---- explain ----

// Appends `filter` in MongoDB's parsedQuery form ({a: {$eq: 1}}, {$and: [...]}) to `out` (a
// document being built). False (and nothing appended) for nodes it cannot print.
bool AppendFilter(const query::MatchExpression* filter, bson_t* out);
// The same for the predicates of `filter` not in `exact` (the FETCH stage's residual filter);
// false when nothing is left.
bool AppendResidualFilter(const query::MatchExpression* filter,
                          const std::vector<const query::MatchExpression*>& exact, bson_t* out);
// IXSCAN's indexBounds: {field: ["[1, 1]", ...], ...} in scan order, and multiKeyPaths:
// {field: ["a", "a.b"]}.
void AppendIndexBounds(bson_t* out, const char* key, const IndexScanPlan& plan,
                       const IndexDescriptor& index);
void AppendMultikeyPaths(bson_t* out, const char* key, const IndexDescriptor& index,
                         const MultikeyPaths& multikey);

}  // namespace cairn::index
