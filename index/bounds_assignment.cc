// Bounds assignment (planner_internal.h), as MongoDB's planner_access.cpp (with the multikey
// rules of plan_enumerator.cpp): the filter's predicates that may bound a key field (top-level
// conjuncts, the predicates of an $elemMatch object, an $or on one path), and their assignment
// to the key fields of one index with MongoDB's multikey rules: on a field with no multikey
// component predicates intersect; on a multikey field only one predicate (or the operators of
// one $elemMatch covering its array components) bounds it; two fields sharing a multikey prefix
// compound only inside one $elemMatch that covers it.
#include "index/planner_internal.h"

#include <algorithm>

namespace cairn::index::planner_internal {

using query::MatchExpression;
using query::MatchKind;

namespace {

size_t CountParts(std::string_view path) {
  return static_cast<size_t>(std::count(path.begin(), path.end(), '.')) + 1;
}

bool CollationSensitive(const bson_iter_t* v) {
  switch (bson_iter_type(v)) {
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY:
      return true;
    default:
      return false;
  }
}

// Whether a predicate's bounds would depend on how strings compare.
bool DependsOnCollation(const MatchExpression* node) {
  switch (node->kind()) {
    case MatchKind::kEq:
    case MatchKind::kLt:
    case MatchKind::kLte:
    case MatchKind::kGt:
    case MatchKind::kGte: {
      bson_iter_t rhs = static_cast<const query::ComparisonMatchExpression*>(node)->rhs();
      return CollationSensitive(&rhs);
    }
    case MatchKind::kIn:
      for (const BsonElement& e :
           static_cast<const query::InMatchExpression*>(node)->equalities()) {
        bson_iter_t it = e.iter();
        if (CollationSensitive(&it)) return true;
      }
      return false;
    case MatchKind::kRegex:
      return true;
    default:
      for (size_t i = 0; i < node->num_children(); ++i) {
        if (DependsOnCollation(node->child(i))) return true;
      }
      return false;
  }
}

}  // namespace

std::vector<Candidate> CollectCandidates(const MatchExpression* filter, bool collation) {
  std::vector<Candidate> out;
  std::vector<const MatchExpression*> conjuncts;
  Conjuncts(filter, &conjuncts);
  for (const MatchExpression* c : conjuncts) {
    if (collation && DependsOnCollation(c)) continue;
    if (c->kind() == MatchKind::kElemMatchObject) {
      std::string base(PathOf(c));
      std::vector<const MatchExpression*> inner;
      Conjuncts(c->child(0), &inner);
      for (const MatchExpression* s : inner) {
        if (!IsPathLeaf(s->kind()) || s->kind() == MatchKind::kElemMatchObject) continue;
        if (std::optional<PredicateBounds> b = BoundsOfPredicate(s)) {
          out.push_back(
              {base + "." + std::string(PathOf(s)), s, c, c, CountParts(base), std::move(*b)});
        }
      }
    } else if (c->kind() == MatchKind::kOr && c->num_children() > 0) {
      // {$or: [{a: 1}, {a: {$gt: 5}}]} on one path is the union of its branches' bounds.
      std::optional<PredicateBounds> merged;
      std::string_view path;
      for (size_t i = 0; i < c->num_children(); ++i) {
        const MatchExpression* branch = c->child(i);
        std::optional<PredicateBounds> b;
        if (IsPathLeaf(branch->kind()) && (i == 0 || PathOf(branch) == path)) {
          b = BoundsOfPredicate(branch);
        }
        if (!b) {
          merged.reset();
          break;
        }
        path = PathOf(branch);
        if (!merged) {
          merged = std::move(b);
        } else {
          merged->intervals = Union(std::move(merged->intervals), b->intervals);
          merged->matches_missing = merged->matches_missing || b->matches_missing;
        }
      }
      if (merged) {
        merged->exact = false;
        out.push_back({std::string(path), c, c, nullptr, 0, std::move(*merged)});
      }
    } else if (IsPathLeaf(c->kind())) {
      if (std::optional<PredicateBounds> b = BoundsOfPredicate(c)) {
        out.push_back({std::string(PathOf(c)), c, c, nullptr, 0, std::move(*b)});
      }
    }
  }
  return out;
}

namespace {

// Whether every multikey component in `bits` lies inside the $elemMatch's path (so one element
// binds the values of every field under it).
bool CoveredBy(uint64_t bits, size_t elem_match_parts) {
  return elem_match_parts >= 64 || (bits >> elem_match_parts) == 0;
}

size_t SharedPrefixParts(const KeyField& a, const KeyField& b) {
  size_t n = 0;
  while (n < a.parts.size() && n < b.parts.size() && a.parts[n] == b.parts[n]) ++n;
  return n;
}

}  // namespace

Analysis Analyze(const PlannerIndex& index, const std::vector<Candidate>& candidates) {
  const std::vector<KeyField>& fields = index.descriptor->key_pattern().fields();
  const size_t n = fields.size();
  MultikeyPaths mk = index.multikey;
  mk.resize(n, 0);
  Analysis a;
  a.bounds.fields.assign(n, FullRange());
  a.assigned.resize(n);
  auto compatible = [&](const Candidate& c, size_t i) {
    for (size_t j = 0; j < i; ++j) {
      if (a.assigned[j].empty()) continue;
      size_t shared = SharedPrefixParts(fields[i], fields[j]);
      uint64_t prefix_mask = shared >= 64 ? ~uint64_t{0} : (uint64_t{1} << shared) - 1;
      uint64_t bits = (mk[i] | mk[j]) & prefix_mask;
      if (bits == 0) continue;
      // Fields sharing a multikey prefix compound only within one $elemMatch covering it.
      for (const Candidate* other : a.assigned[j]) {
        if (c.elem_match == nullptr || other->elem_match != c.elem_match ||
            !CoveredBy(bits, c.elem_match_parts)) {
          return false;
        }
      }
    }
    return true;
  };
  for (size_t i = 0; i < n; ++i) {
    if (fields[i].has_positional_part) continue;
    std::vector<const Candidate*> usable;
    for (const Candidate& c : candidates) {
      if (c.path == fields[i].path && compatible(c, i)) usable.push_back(&c);
    }
    if (usable.empty()) continue;
    if (mk[i] == 0) {
      IntervalList list = FullRange();
      for (const Candidate* c : usable) list = Intersect(list, c->bounds.intervals);
      a.bounds.fields[i] = std::move(list);
      a.assigned[i] = std::move(usable);
      continue;
    }
    // A multikey field takes one predicate's bounds (several only when one $elemMatch covering
    // the field's array components joins them): the most selective group.
    std::vector<const Candidate*> best_group;
    IntervalList best;
    auto better = [](const IntervalList& x, const IntervalList& y) {
      if (IsPointList(x) != IsPointList(y)) return IsPointList(x);
      if (IsFullRange(x) != IsFullRange(y)) return !IsFullRange(x);
      return x.size() < y.size();
    };
    for (const Candidate* c : usable) {
      std::vector<const Candidate*> group = {c};
      IntervalList list = c->bounds.intervals;
      if (c->elem_match != nullptr && CoveredBy(mk[i], c->elem_match_parts)) {
        for (const Candidate* other : usable) {
          if (other != c && other->elem_match == c->elem_match) {
            group.push_back(other);
            list = Intersect(list, other->bounds.intervals);
          }
        }
      }
      if (best_group.empty() || better(list, best)) {
        best_group = std::move(group);
        best = std::move(list);
      }
    }
    a.bounds.fields[i] = std::move(best);
    a.assigned[i] = std::move(best_group);
  }
  return a;
}

}  // namespace cairn::index::planner_internal
