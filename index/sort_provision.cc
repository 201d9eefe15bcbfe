// Sort provision (planner_internal.h), after MongoDB's planner_analysis.cpp: a scan returns
// documents in the requested sort when the sort's fields follow the index's key fields in
// order, skipping key fields its bounds pin to one point (and sort fields an earlier such field
// pins), all in the index's direction or all in its reverse (the scan then runs backward). A
// multikey field never provides a sort.
#include "index/planner_internal.h"

namespace cairn::index::planner_internal {

// Whether a scan of `a` returns documents in `sort` order, and in which direction.
void DecideSort(const PlannerIndex& index, const query::SortPattern* sort, Analysis* a) {
  if (sort == nullptr || sort->empty()) return;
  const std::vector<KeyField>& fields = index.descriptor->key_pattern().fields();
  const size_t n = fields.size();
  MultikeyPaths mk = index.multikey;
  mk.resize(n, 0);
  auto pinned_earlier = [&](const std::string& path, size_t limit) {
    for (size_t j = 0; j < limit && j < n; ++j) {
      if (fields[j].path == path && IsSinglePoint(a->bounds.fields[j])) return true;
    }
    return false;
  };
  size_t pos = 0;
  int direction = 0;  // +1 forward, -1 backward, 0 undecided
  for (const query::SortPattern::Key& key : sort->keys()) {
    while (pos < n && fields[pos].path != key.path && IsSinglePoint(a->bounds.fields[pos])) ++pos;
    if (pos == n || fields[pos].path != key.path) {
      if (pinned_earlier(key.path, pos)) continue;  // an equality field sorts trivially
      return;
    }
    if (IsSinglePoint(a->bounds.fields[pos])) {
      ++pos;
      continue;
    }
    if (mk[pos] != 0) return;  // a multikey field cannot provide a sort
    int d = fields[pos].descending == key.descending ? 1 : -1;
    if (direction != 0 && d != direction) return;
    direction = d;
    ++pos;
  }
  a->provides_sort = true;
  a->reverse = direction < 0;
}

}  // namespace cairn::index::planner_internal
