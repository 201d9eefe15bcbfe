// The query planner (planner.h): predicate assignment to key fields with the multikey rules,
// sort provision, eligibility, the cost model, partial filter implication, and the explain forms.
#include "index/planner.h"

#include <algorithm>

#include "common/bson_compare.h"

namespace cairn::index {

namespace {

using query::MatchExpression;
using query::MatchKind;

std::string_view PathOf(const MatchExpression* node) {
  return static_cast<const query::PathMatchExpression*>(node)->path().dotted();
}

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

// The conjuncts of a filter: the children of top-level (and nested) $ands, else the root.
void Conjuncts(const MatchExpression* node, std::vector<const MatchExpression*>* out) {
  if (node == nullptr) return;
  if (node->kind() == MatchKind::kAnd) {
    for (size_t i = 0; i < node->num_children(); ++i) Conjuncts(node->child(i), out);
    return;
  }
  out->push_back(node);
}

size_t CountParts(std::string_view path) {
  return static_cast<size_t>(std::count(path.begin(), path.end(), '.')) + 1;
}

// A predicate the planner may assign to the key field of its path.
struct Candidate {
  std::string path;
  const MatchExpression* node;        // where the bounds come from
  const MatchExpression* top;         // the filter conjunct it belongs to
  const MatchExpression* elem_match;  // the enclosing {path: {$elemMatch: {...}}}, or null
  size_t elem_match_parts = 0;        // components of that $elemMatch's path
  PredicateBounds bounds;
};

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

// An index analysed against the filter: bounds per field and the predicates behind them.
struct Analysis {
  IndexBounds bounds;
  std::vector<std::vector<const Candidate*>> assigned;
  bool provides_sort = false;
  bool reverse = false;
};

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

bool IsSinglePoint(const IntervalList& list) { return list.size() == 1 && list[0].IsPoint(); }

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
  // The cost model: higher is better, compared lexicographically.
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
  plan.score = {index.descriptor->unique() && all_single ? 1 : 0, static_cast<int>(leading_points),
                range_next ? 1 : 0, a.provides_sort ? 1 : 0, -static_cast<int>(n)};
  plan.bounds = std::move(a.bounds);
  return plan;
}

// ---- implication ----

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

// ---- explain forms ----

const char* OperatorName(MatchKind kind) {
  switch (kind) {
    case MatchKind::kEq:
      return "$eq";
    case MatchKind::kLt:
      return "$lt";
    case MatchKind::kLte:
      return "$lte";
    case MatchKind::kGt:
      return "$gt";
    case MatchKind::kGte:
      return "$gte";
    default:
      return nullptr;
  }
}

bool AppendNode(const MatchExpression* node, bson_t* out);

// Appends the operators of a path predicate ({$eq: 1}, {$in: [...]}) to `ops`.
bool AppendOperators(const MatchExpression* node, bson_t* ops) {
  MatchKind kind = node->kind();
  if (const char* name = OperatorName(kind)) {
    bson_iter_t rhs = static_cast<const query::ComparisonMatchExpression*>(node)->rhs();
    return AppendIter(ops, name, &rhs);
  }
  switch (kind) {
    case MatchKind::kIn: {
      const auto* in = static_cast<const query::InMatchExpression*>(node);
      if (in->has_regexes()) return false;
      bson_t array;
      bson_append_array_begin(ops, "$in", 3, &array);
      uint32_t i = 0;
      for (const BsonElement& e : in->equalities()) {
        std::string key = std::to_string(i++);
        bson_iter_t it = e.iter();
        AppendIter(&array, key, &it);
      }
      return bson_append_array_end(ops, &array);
    }
    case MatchKind::kExists:
      return BSON_APPEND_BOOL(ops, "$exists", true);
    case MatchKind::kRegex: {
      const auto* regex = static_cast<const query::RegexMatchExpression*>(node);
      AppendUtf8(ops, "$regex", regex->pattern());
      if (!regex->flags().empty()) AppendUtf8(ops, "$options", regex->flags());
      return true;
    }
    case MatchKind::kElemMatchValue: {
      BsonDoc inner;
      for (size_t i = 0; i < node->num_children(); ++i) {
        if (!AppendOperators(node->child(i), inner.get())) return false;
      }
      return BSON_APPEND_DOCUMENT(ops, "$elemMatch", inner.get());
    }
    case MatchKind::kElemMatchObject: {
      BsonDoc inner;
      if (!AppendFilter(node->child(0), inner.get())) return false;
      return BSON_APPEND_DOCUMENT(ops, "$elemMatch", inner.get());
    }
    default:
      return false;
  }
}

bool AppendList(const char* name, const MatchExpression* node, bson_t* out) {
  bson_t array;
  bson_append_array_begin(out, name, -1, &array);
  for (size_t i = 0; i < node->num_children(); ++i) {
    BsonDoc child;
    if (!AppendNode(node->child(i), child.get())) return false;
    std::string key = std::to_string(i);
    BSON_APPEND_DOCUMENT(&array, key.c_str(), child.get());
  }
  return bson_append_array_end(out, &array);
}

// Appends one clause of a filter to the document `out`.
bool AppendNode(const MatchExpression* node, bson_t* out) {
  switch (node->kind()) {
    case MatchKind::kAnd:
      return AppendList("$and", node, out);
    case MatchKind::kOr:
      return AppendList("$or", node, out);
    case MatchKind::kNor:
      return AppendList("$nor", node, out);
    case MatchKind::kAlwaysTrue:
      return BSON_APPEND_INT32(out, "$alwaysTrue", 1);
    case MatchKind::kAlwaysFalse:
      return BSON_APPEND_INT32(out, "$alwaysFalse", 1);
    case MatchKind::kNot: {
      const MatchExpression* child = node->child(0);
      if (!IsPathLeaf(child->kind())) return AppendList("$nor", node, out);
      BsonDoc inner, ops;
      if (!AppendOperators(child, ops.get())) return false;
      BSON_APPEND_DOCUMENT(inner.get(), "$not", ops.get());
      std::string path(PathOf(child));
      return BSON_APPEND_DOCUMENT(out, path.c_str(), inner.get());
    }
    default:
      break;
  }
  if (!IsPathLeaf(node->kind())) return false;
  BsonDoc ops;
  if (!AppendOperators(node, ops.get())) return false;
  std::string path(PathOf(node));
  return BSON_APPEND_DOCUMENT(out, path.c_str(), ops.get());
}

bool AppendConjuncts(const std::vector<const MatchExpression*>& conjuncts, bson_t* out) {
  if (conjuncts.empty()) return false;
  BsonDoc built;
  if (conjuncts.size() == 1) {
    if (!AppendNode(conjuncts[0], built.get())) return false;
  } else {
    bson_t array;
    bson_append_array_begin(built.get(), "$and", 4, &array);
    for (size_t i = 0; i < conjuncts.size(); ++i) {
      BsonDoc child;
      if (!AppendNode(conjuncts[i], child.get())) return false;
      std::string key = std::to_string(i);
      BSON_APPEND_DOCUMENT(&array, key.c_str(), child.get());
    }
    bson_append_array_end(built.get(), &array);
  }
  bson_iter_t it;
  built.view().Init(&it);
  while (bson_iter_next(&it)) AppendIter(out, IterKey(&it), &it);
  return true;
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
    const IndexDescriptor& d = *index.descriptor;
    if (d.hidden()) continue;
    if (d.partial_filter() != nullptr) {
      if (input.filter == nullptr ||
          !QueryImpliesFilter(input.filter, d.partial_filter()->root())) {
        continue;
      }
    }
    Analysis a = Analyze(index, candidates);
    DecideSort(index, sort, &a);
    bool leading = !a.assigned.empty() && !a.assigned[0].empty();
    if (d.sparse() && !ExcludesMissing(a)) continue;
    if (!leading && !a.provides_sort) continue;
    plans.push_back(MakePlan(i, index, std::move(a)));
  }
  std::stable_sort(plans.begin(), plans.end(), [](const IndexScanPlan& x, const IndexScanPlan& y) {
    return x.score > y.score;
  });
  if (!plans.empty()) {
    result.index_scan = std::move(plans.front());
    for (size_t i = 1; i < plans.size(); ++i) result.rejected.push_back(std::move(plans[i]));
  }
  return result;
}

bool QueryImpliesFilter(const MatchExpression* query, const MatchExpression* filter) {
  if (filter == nullptr) return true;
  std::vector<const MatchExpression*> conjuncts;
  Conjuncts(query, &conjuncts);
  return Implied(conjuncts, filter);
}

bool AppendFilter(const MatchExpression* filter, bson_t* out) {
  std::vector<const MatchExpression*> conjuncts;
  Conjuncts(filter, &conjuncts);
  if (conjuncts.empty()) return true;  // {}
  return AppendConjuncts(conjuncts, out);
}

bool AppendResidualFilter(const MatchExpression* filter,
                          const std::vector<const MatchExpression*>& exact, bson_t* out) {
  std::vector<const MatchExpression*> conjuncts;
  Conjuncts(filter, &conjuncts);
  std::vector<const MatchExpression*> residual;
  for (const MatchExpression* c : conjuncts) {
    if (std::find(exact.begin(), exact.end(), c) == exact.end()) residual.push_back(c);
  }
  return AppendConjuncts(residual, out);
}

void AppendIndexBounds(bson_t* out, const char* key, const IndexScanPlan& plan,
                       const IndexDescriptor& index) {
  bson_t doc;
  bson_append_document_begin(out, key, -1, &doc);
  const std::vector<KeyField>& fields = index.key_pattern().fields();
  for (size_t f = 0; f < fields.size() && f < plan.bounds.fields.size(); ++f) {
    const IntervalList& list = plan.bounds.fields[f];
    const bool reversed = fields[f].descending != plan.reverse;
    bson_t array;
    bson_append_array_begin(&doc, fields[f].path.c_str(), static_cast<int>(fields[f].path.size()),
                            &array);
    for (size_t i = 0; i < list.size(); ++i) {
      const Interval& interval = reversed ? list[list.size() - 1 - i] : list[i];
      std::string k = std::to_string(i);
      AppendUtf8(&array, k, interval.ToString(reversed));
    }
    bson_append_array_end(&doc, &array);
  }
  bson_append_document_end(out, &doc);
}

void AppendMultikeyPaths(bson_t* out, const char* key, const IndexDescriptor& index,
                         const MultikeyPaths& multikey) {
  bson_t doc;
  bson_append_document_begin(out, key, -1, &doc);
  const std::vector<KeyField>& fields = index.key_pattern().fields();
  for (size_t f = 0; f < fields.size(); ++f) {
    uint64_t bits = f < multikey.size() ? multikey[f] : 0;
    bson_t array;
    bson_append_array_begin(&doc, fields[f].path.c_str(), static_cast<int>(fields[f].path.size()),
                            &array);
    std::string prefix;
    uint32_t n = 0;
    for (size_t c = 0; c < fields[f].parts.size(); ++c) {
      if (c > 0) prefix += '.';
      prefix += fields[f].parts[c];
      if (c < 64 && (bits >> c & 1) != 0) {
        std::string k = std::to_string(n++);
        AppendUtf8(&array, k, prefix);
      }
    }
    bson_append_array_end(&doc, &array);
  }
  bson_append_document_end(out, &doc);
}

}  // namespace cairn::index
