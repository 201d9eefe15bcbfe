// The planner's explain forms (planner.h): a filter in MongoDB's parsedQuery form ({a: {$eq: 1}},
// {$and: [...]}), the FETCH stage's residual filter, and IXSCAN's indexBounds and multiKeyPaths.
#include "index/planner_internal.h"

namespace cairn::index {

using planner_internal::Conjuncts;
using planner_internal::IsPathLeaf;
using planner_internal::PathOf;
using query::MatchExpression;
using query::MatchKind;

namespace {

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
