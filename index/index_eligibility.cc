// Index eligibility (planner_internal.h), MongoDB's planner_ixselect.cpp: which indexes may
// answer a query without missing a matching document. A hidden index never; a partial index only
// when the query implies its filter (QueryImpliesFilter, MongoDB's conservative
// expression::isSubsetOf: each conjunct of the filter follows from a conjunct of the query on the
// same path); a sparse index only when the predicates assigned to it exclude documents missing
// every indexed field. And an index is scanned only when it bounds its leading field or provides
// the sort. A hint overrides all of it (planner.cc).
#include "index/planner_internal.h"

#include "common/bson_compare.h"

namespace cairn::index {

using planner_internal::Analysis;
using planner_internal::Candidate;
using planner_internal::Conjuncts;
using planner_internal::IsPathLeaf;
using planner_internal::PathOf;
using query::MatchExpression;
using query::MatchKind;

namespace {

// Whether the assigned predicates exclude documents missing every indexed field, which a
// sparse index leaves out.
bool ExcludesMissing(const Analysis& a) {
  for (const auto& field : a.assigned) {
    for (const Candidate* c : field) {
      if (!c->bounds.matches_missing) return true;
    }
  }
  return false;
}

// ---- partial filter implication ----

// A test that fails on `v` (a regex in a partial filter's $in) proves nothing: not implied.
bool ValueSatisfies(const MatchExpression* f, const bson_iter_t* v) {
  Status error;
  auto passes = [&](const bson_iter_t* value) {
    return f->MatchesSingleElement(value, &error) && error.ok();
  };
  if (BSON_ITER_HOLDS_NULL(v) || BSON_ITER_HOLDS_UNDEFINED(v)) {
    // Null equality also matches documents missing the path.
    return passes(nullptr) && passes(v);
  }
  return passes(v);
}

bool IsRange(MatchKind k) {
  return k == MatchKind::kLt || k == MatchKind::kLte || k == MatchKind::kGt || k == MatchKind::kGte;
}

bool RangeImplies(const MatchExpression* q, const MatchExpression* f) {
  bson_iter_t b = static_cast<const query::ComparisonMatchExpression*>(q)->rhs();
  bson_type_t type = bson_iter_type(&b);
  if (type == BSON_TYPE_NULL || type == BSON_TYPE_UNDEFINED || type == BSON_TYPE_MINKEY ||
      type == BSON_TYPE_MAXKEY || type == BSON_TYPE_ARRAY) {
    return false;
  }
  if (f->kind() == MatchKind::kExists) return true;
  if (!IsRange(f->kind())) return false;
  bson_iter_t a = static_cast<const query::ComparisonMatchExpression*>(f)->rhs();
  if (CanonicalTypeRank(bson_iter_type(&a)) != CanonicalTypeRank(type)) return false;
  const bool q_greater = q->kind() == MatchKind::kGt || q->kind() == MatchKind::kGte;
  const bool f_greater = f->kind() == MatchKind::kGt || f->kind() == MatchKind::kGte;
  if (q_greater != f_greater) return false;
  const bool q_strict = q->kind() == MatchKind::kGt || q->kind() == MatchKind::kLt;
  const bool f_strict = f->kind() == MatchKind::kGt || f->kind() == MatchKind::kLt;
  int c = CompareValues(&b, &a);
  if (!q_greater) c = -c;  // mirror "less than" onto "greater than"
  // q: x > b (or >=), f: x > a (or >=): q ⊆ f iff b > a, or b == a unless only f is strict.
  return c > 0 || (c == 0 && (q_strict || !f_strict));
}

bool LeafImplies(const MatchExpression* q, const MatchExpression* f) {
  switch (q->kind()) {
    case MatchKind::kEq: {
      bson_iter_t v = static_cast<const query::ComparisonMatchExpression*>(q)->rhs();
      return ValueSatisfies(f, &v);
    }
    case MatchKind::kIn: {
      const auto* in = static_cast<const query::InMatchExpression*>(q);
      if (in->has_regexes()) return false;
      for (const BsonElement& e : in->equalities()) {
        bson_iter_t v = e.iter();
        if (!ValueSatisfies(f, &v)) return false;
      }
      return true;
    }
    case MatchKind::kLt:
    case MatchKind::kLte:
    case MatchKind::kGt:
    case MatchKind::kGte:
      return RangeImplies(q, f);
    case MatchKind::kExists:
    case MatchKind::kRegex:
    case MatchKind::kElemMatchValue:
    case MatchKind::kElemMatchObject:
      return f->kind() == MatchKind::kExists;
    default:
      return false;
  }
}

bool Implied(const std::vector<const MatchExpression*>& query, const MatchExpression* f) {
  switch (f->kind()) {
    case MatchKind::kAnd:
      for (size_t i = 0; i < f->num_children(); ++i) {
        if (!Implied(query, f->child(i))) return false;
      }
      return true;
    case MatchKind::kOr:
      for (size_t i = 0; i < f->num_children(); ++i) {
        if (Implied(query, f->child(i))) return true;
      }
      return false;
    default:
      break;
  }
  if (!IsPathLeaf(f->kind())) return false;
  for (const MatchExpression* q : query) {
    if (IsPathLeaf(q->kind()) && PathOf(q) == PathOf(f) && LeafImplies(q, f)) return true;
  }
  return false;
}

}  // namespace

bool QueryImpliesFilter(const MatchExpression* query, const MatchExpression* filter) {
  if (filter == nullptr) return true;
  std::vector<const MatchExpression*> conjuncts;
  Conjuncts(query, &conjuncts);
  return Implied(conjuncts, filter);
}

namespace planner_internal {

bool MayUse(const PlannerIndex& index, const MatchExpression* filter) {
  const IndexDescriptor& d = *index.descriptor;
  if (d.hidden()) return false;
  if (d.partial_filter() != nullptr) {
    if (filter == nullptr || !QueryImpliesFilter(filter, d.partial_filter()->root())) {
      return false;
    }
  }
  return true;
}

bool WorthScanning(const PlannerIndex& index, const Analysis& a) {
  bool leading = !a.assigned.empty() && !a.assigned[0].empty();
  if (index.descriptor->sparse() && !ExcludesMissing(a)) return false;
  if (!leading && !a.provides_sort) return false;
  return true;
}

}  // namespace planner_internal

}  // namespace cairn::index
