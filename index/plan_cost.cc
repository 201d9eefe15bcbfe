// The planner's cost model (planner_internal.h), in the place of MongoDB's plan_ranker: a small,
// explainable score instead of a trial run. Higher wins, compared lexicographically: an equality
// on every field of a unique index first, then the most leading equality fields, then a range on
// the next field, then a provided sort, then the smaller index.
#include "index/planner_internal.h"

#include <algorithm>

namespace cairn::index::planner_internal {

std::vector<int> PlanScore(const PlannerIndex& index, const Analysis& a) {
  const size_t n = a.bounds.fields.size();
  bool all_single = true;
  size_t leading_points = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!IsSinglePoint(a.bounds.fields[i])) all_single = false;
  }
  while (leading_points < n && !a.assigned[leading_points].empty() &&
         IsPointList(a.bounds.fields[leading_points])) {
    ++leading_points;
  }
  bool range_next = leading_points < n && !a.assigned[leading_points].empty() &&
                    !IsFullRange(a.bounds.fields[leading_points]);
  return {index.descriptor->unique() && all_single ? 1 : 0, static_cast<int>(leading_points),
          range_next ? 1 : 0, a.provides_sort ? 1 : 0, -static_cast<int>(n)};
}

void RankPlans(std::vector<IndexScanPlan>* plans) {
  std::stable_sort(
      plans->begin(), plans->end(),
      [](const IndexScanPlan& x, const IndexScanPlan& y) { return x.score > y.score; });
}

}  // namespace cairn::index::planner_internal
