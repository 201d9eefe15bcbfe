// OR plans (or_plan.h): find the $or, plan each branch with PlanQuery, require all to use one.
#include "index/or_plan.h"

#include "index/plan_analysis.h"

namespace cairn::index {

namespace {

using query::MatchExpression;
using query::MatchKind;

void TopLevelOrs(const MatchExpression* node, std::vector<const MatchExpression*>* out,
                 size_t* conjuncts) {
  if (node->kind() == MatchKind::kAnd) {
    for (size_t i = 0; i < node->num_children(); ++i) TopLevelOrs(node->child(i), out, conjuncts);
    return;
  }
  ++*conjuncts;
  if (node->kind() == MatchKind::kOr && node->num_children() > 0) out->push_back(node);
}

std::optional<OrPlan> PlanBranches(const PlannerInput& input, const MatchExpression* or_node) {
  OrPlan plan;
  plan.or_node = or_node;
  plan.exact = true;
  for (size_t i = 0; i < or_node->num_children(); ++i) {
    const MatchExpression* branch = or_node->child(i);
    PlannerInput branch_input;
    branch_input.filter = branch;
    branch_input.indexes = input.indexes;
    branch_input.collation = input.collation;
    QueryPlan branch_plan = PlanQuery(branch_input);
    if (!branch_plan.index_scan) return std::nullopt;
    IndexScanPlan& scan = *branch_plan.index_scan;
    if (!BoundsAnswerFilter(scan, branch)) plan.exact = false;
    scan.provides_sort = false;
    plan.branches.push_back(std::move(scan));
  }
  return plan;
}

}  // namespace

std::optional<OrPlan> PlanOr(const PlannerInput& input) {
  if (input.filter == nullptr || input.hint.has_value()) return std::nullopt;
  std::vector<const MatchExpression*> ors;
  size_t conjuncts = 0;
  TopLevelOrs(input.filter, &ors, &conjuncts);
  for (const MatchExpression* or_node : ors) {
    if (std::optional<OrPlan> plan = PlanBranches(input, or_node)) {
      plan->rooted = conjuncts == 1;
      return plan;
    }
  }
  return std::nullopt;
}

}  // namespace cairn::index
