// OR plans: a $or (the whole filter, or one conjunct of a top-level $and) whose every branch can
// use an index becomes one index scan per branch, their RecordIds united without duplicates
// (MongoDB's OR stage), then FETCH and the whole filter. Each branch is planned by PlanQuery on
// its own, so it follows the same eligibility rules (hidden, sparse, partial, multikey). Used
// when no single index serves the filter; a branch no index can serve means a collection scan,
// as in MongoDB. Pure and deterministic; knows nothing of storage.
#pragma once

#include <optional>
#include <vector>

#include "index/planner.h"

namespace cairn::index {

struct OrPlan {
  const query::MatchExpression* or_node = nullptr;  // the $or the branches come from
  bool rooted = false;  // the $or is the whole filter (explain shows SUBPLAN above the plan)
  // Every branch is answered exactly by its bounds, so the $or can be left out of FETCH's filter.
  bool exact = false;
  std::vector<IndexScanPlan> branches;  // one per $or branch, in branch order
};

// The OR plan of `input`'s filter, or nullopt. Sort and hint are not considered: an OR plan
// returns documents in no particular order, and a hint names one index for the whole query.
std::optional<OrPlan> PlanOr(const PlannerInput& input);

}  // namespace cairn::index
