// Private to the planner's files (planner.h is the interface): what the driver and the concerns
// it calls share. The planner is split by concern, as MongoDB splits planner_ixselect.cpp
// (eligibility), planner_access.cpp (bounds) and plan_ranker (cost):
//   planner.cc             the driver (PlanQuery) and the helpers below;
//   bounds_assignment.cc   the filter's predicates as candidates, assigned to an index's key
//                          fields with the multikey rules;
//   sort_provision.cc      whether a scan returns the requested sort, and in which direction;
//   index_eligibility.cc   which indexes may be used (hidden, sparse, partial filter
//                          implication);
//   plan_cost.cc           the cost model that ranks the candidate scans;
//   plan_explain.cc        the explain forms of filters, bounds and multikey paths.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_bounds.h"
#include "index/planner.h"
#include "query/matcher/match_expression.h"
#include "query/sort/sort_pattern.h"

namespace cairn::index::planner_internal {

// ---- planner.cc: shared helpers ----

// The dotted path of a path predicate (a node IsPathLeaf accepts, or $elemMatch).
inline std::string_view PathOf(const query::MatchExpression* node) {
  return static_cast<const query::PathMatchExpression*>(node)->path().dotted();
}
// Whether `kind` is a predicate on one path (a leaf, or an $elemMatch).
bool IsPathLeaf(query::MatchKind kind);
// The conjuncts of a filter: the children of top-level (and nested) $ands, else the root.
void Conjuncts(const query::MatchExpression* node, std::vector<const query::MatchExpression*>* out);
inline bool IsSinglePoint(const IntervalList& list) {
  return list.size() == 1 && list[0].IsPoint();
}

// ---- bounds_assignment.cc ----

// A predicate the planner may assign to the key field of its path.
struct Candidate {
  std::string path;
  const query::MatchExpression* node;        // where the bounds come from
  const query::MatchExpression* top;         // the filter conjunct it belongs to
  const query::MatchExpression* elem_match;  // the enclosing {path: {$elemMatch: {...}}}, or null
  size_t elem_match_parts = 0;               // components of that $elemMatch's path
  PredicateBounds bounds;
};

// An index analysed against the filter: bounds per field and the predicates behind them.
struct Analysis {
  IndexBounds bounds;
  std::vector<std::vector<const Candidate*>> assigned;
  bool provides_sort = false;
  bool reverse = false;
};

// The predicates of `filter` that may bound a key field: top-level conjuncts, those inside an
// $elemMatch object, and an $or whose branches share one path. Under a collation, none whose
// bounds would depend on how strings compare.
std::vector<Candidate> CollectCandidates(const query::MatchExpression* filter, bool collation);
// Assigns `candidates` to the key fields of `index` (bounds, and the predicates behind them).
Analysis Analyze(const PlannerIndex& index, const std::vector<Candidate>& candidates);

// ---- sort_provision.cc ----

// Whether a scan of `a` returns documents in `sort` order, and in which direction: sets
// a->provides_sort and a->reverse.
void DecideSort(const PlannerIndex& index, const query::SortPattern* sort, Analysis* a);

// ---- index_eligibility.cc ----

// Whether `index` may answer `filter` at all, before any analysis: not hidden, and, when
// partial, only for a query that implies its filter.
bool MayUse(const PlannerIndex& index, const query::MatchExpression* filter);
// Whether the analysed `index` is worth a scan: a sparse index only when the assigned predicates
// exclude documents missing every indexed field; any index only when it bounds its leading field
// or provides the sort.
bool WorthScanning(const PlannerIndex& index, const Analysis& a);

// ---- plan_cost.cc ----

// The cost model's score of the analysed `index` (higher is better, compared lexicographically).
std::vector<int> PlanScore(const PlannerIndex& index, const Analysis& a);
// Orders `plans` best first (a stable sort: ties keep the indexes' order).
void RankPlans(std::vector<IndexScanPlan>* plans);

}  // namespace cairn::index::planner_internal
