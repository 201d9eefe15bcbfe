// The query planner's driver (planner.h): PlanQuery runs the concerns in planner_internal.h's
// files — candidates and bounds assignment, sort provision, eligibility, the cost model — over
// each index, and builds the plans; plus the helpers those files share.
#include "index/planner.h"

#include "index/planner_internal.h"

namespace cairn::index {

namespace planner_internal {

using query::MatchExpression;
using query::MatchKind;

bool IsPathLeaf(MatchKind kind) {
  switch (kind) {
    case MatchKind::kEq:
    case MatchKind::kLt:
    case MatchKind::kLte:
    case MatchKind::kGt:
    case MatchKind::kGte:
    case MatchKind::kIn:
    case MatchKind::kRegex:
    case MatchKind::kExists:
    case MatchKind::kType:
    case MatchKind::kSize:
    case MatchKind::kMod:
    case MatchKind::kElemMatchValue:
    case MatchKind::kElemMatchObject:
    case MatchKind::kBitsAllSet:
    case MatchKind::kBitsAllClear:
    case MatchKind::kBitsAnySet:
    case MatchKind::kBitsAnyClear:
      return true;
    default:
      return false;
  }
}

void Conjuncts(const MatchExpression* node, std::vector<const MatchExpression*>* out) {
  if (node == nullptr) return;
  if (node->kind() == MatchKind::kAnd) {
    for (size_t i = 0; i < node->num_children(); ++i) Conjuncts(node->child(i), out);
    return;
  }
  out->push_back(node);
}

}  // namespace planner_internal

using planner_internal::Analysis;
using planner_internal::Analyze;
using planner_internal::Candidate;
using planner_internal::CollectCandidates;
using planner_internal::DecideSort;
using planner_internal::MayUse;
using planner_internal::PlanScore;
using planner_internal::RankPlans;
using planner_internal::WorthScanning;

namespace {

// The plan of the analysed `index` (the `position`th of the input): its bounds, direction and
// score, and the top-level predicates its bounds answer exactly on fields with no multikey
// component (explain leaves them out of the FETCH filter).
IndexScanPlan MakePlan(size_t position, const PlannerIndex& index, Analysis a) {
  IndexScanPlan plan;
  plan.index = position;
  plan.reverse = a.reverse;
  plan.provides_sort = a.provides_sort;
  plan.multikey = IsMultikey(index.multikey);
  const size_t n = a.bounds.fields.size();
  MultikeyPaths mk = index.multikey;
  mk.resize(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (mk[i] != 0) continue;
    for (const Candidate* c : a.assigned[i]) {
      if (c->bounds.exact && c->node == c->top && c->elem_match == nullptr) {
        plan.exact_predicates.push_back(c->top);
      }
    }
  }
  plan.score = PlanScore(index, a);
  plan.bounds = std::move(a.bounds);
  return plan;
}

}  // namespace

QueryPlan PlanQuery(const PlannerInput& input) {
  QueryPlan result;
  std::vector<Candidate> candidates = CollectCandidates(input.filter, input.collation);
  const query::SortPattern* sort = input.collation ? nullptr : input.sort;
  if (input.hint.has_value() && *input.hint < input.indexes.size()) {
    const PlannerIndex& index = input.indexes[*input.hint];
    Analysis a = Analyze(index, candidates);
    DecideSort(index, sort, &a);
    result.index_scan = MakePlan(*input.hint, index, std::move(a));
    return result;
  }
  std::vector<IndexScanPlan> plans;
  for (size_t i = 0; i < input.indexes.size(); ++i) {
    const PlannerIndex& index = input.indexes[i];
    if (!MayUse(index, input.filter)) continue;
    Analysis a = Analyze(index, candidates);
    DecideSort(index, sort, &a);
    if (!WorthScanning(index, a)) continue;
    plans.push_back(MakePlan(i, index, std::move(a)));
  }
  RankPlans(&plans);
  if (!plans.empty()) {
    result.index_scan = std::move(plans.front());
    for (size_t i = 1; i < plans.size(); ++i) result.rejected.push_back(std::move(plans[i]));
  }
  return result;
}

}  // namespace cairn::index
