// errInfo.details for a document that fails a validator made of query operators (MongoDB's
// doc_validation_error.cpp, 5.0+ shape): $and / $or / $nor with clausesNotSatisfied, leaf
// operators with operatorName, specifiedAs, reason and consideredValue(s), $not and $nor
// explaining their clauses in the inverted sense, and $jsonSchema handed to
// json_schema/schema_errors.cc. The validator's BSON is walked clause by clause and each clause
// is matched on its own (parsed again here): this runs only when a write already failed, so the
// write path pays nothing for it.
#include <set>
#include <string>
#include <vector>

#include "query/matcher/document_validator.h"
#include "query/matcher/json_schema/schema_errors.h"
#include "query/matcher/parse_internal.h"
#include "query/matcher/path.h"
#include "query/matcher/validation_details.h"

namespace cairn::query {

namespace {

// MongoDB reports at most this many considered values
// (internalQueryMaxDocValidationErrorConsideredValues).
constexpr size_t kMaxConsideredValues = 10;

// One clause of a filter: a logical operator, a $jsonSchema, an $expr, or one operator on a path.
struct Clause {
  std::string op;        // "$and", "$gt", "$eq" (implicit equality too), "$jsonSchema", ...
  std::string path;      // empty for pathless clauses
  BsonDoc filter;        // the clause alone, as a filter (also its specifiedAs)
  BsonElement argument;  // the operator's argument in the validator's bytes
};

void AddClause(std::vector<Clause>* out, std::string_view op, std::string_view path,
               const bson_iter_t* argument, BsonDoc filter) {
  Clause clause;
  clause.op = std::string(op);
  clause.path = std::string(path);
  clause.filter = std::move(filter);
  clause.argument = BsonElement(argument);
  out->push_back(std::move(clause));
}

BsonDoc Wrap(std::string_view key, const bson_iter_t* value) {
  BsonDoc doc;
  AppendIter(doc.get(), key, value);
  return doc;
}

// {path: {op: value}} (with $options beside a $regex).
BsonDoc WrapOperator(std::string_view path, const bson_iter_t* op, BsonView operators) {
  BsonDoc inner;
  AppendIter(inner.get(), IterKey(op), op);
  bson_iter_t options;
  if (IterKey(op) == "$regex" && operators.Find("$options", &options)) {
    AppendIter(inner.get(), "$options", &options);
  }
  BsonDoc doc;
  bson_append_document(doc.get(), path.data(), static_cast<int>(path.size()), inner.get());
  return doc;
}

// The clauses of a filter document, in order (MongoDB's implicit $and of its fields).
std::vector<Clause> CollectClauses(BsonView filter) {
  std::vector<Clause> clauses;
  bson_iter_t it;
  if (!filter.Init(&it)) return clauses;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "$comment") continue;
    if (!key.empty() && key[0] == '$') {
      AddClause(&clauses, key, "", &it, Wrap(key, &it));
      continue;
    }
    if (internal::IsExpressionDocument(&it, false)) {
      BsonView operators = IterDocument(&it);
      bson_iter_t op;
      operators.Init(&op);
      while (bson_iter_next(&op)) {
        if (IterKey(&op) == "$options") continue;  // reported with its $regex
        AddClause(&clauses, IterKey(&op), key, &op, WrapOperator(key, &op, operators));
      }
      continue;
    }
    AddClause(&clauses, BSON_ITER_HOLDS_REGEX(&it) ? "$regex" : "$eq", key, &it, Wrap(key, &it));
  }
  return clauses;
}

// Only called to describe a document the whole validator already refused without an error,
// so a clause that fails to parse or to evaluate counts as not matching.
bool FilterMatches(BsonView filter, BsonView doc) {
  Result<Matcher> matcher = Matcher::Parse(filter);
  if (!matcher.ok()) return false;
  Result<bool> matched = matcher->Matches(doc);
  return matched.ok() && *matched;
}

// What a leaf operator reports (doc_validation_error.cpp's reasons and expected types).
struct LeafRule {
  std::string_view op;
  std::string_view normal;
  std::string_view inverted;
  std::vector<std::string_view> expected_types;  // sorted; empty: any type
  bool traverse_leaf_arrays;                     // else the value at the path as it is
};

const std::vector<std::string_view> kNumberTypes = {"decimal", "double", "int", "long"};

const LeafRule kLeafRules[] = {
    {"$eq", "comparison failed", "comparison succeeded", {}, true},
    {"$gt", "comparison failed", "comparison succeeded", {}, true},
    {"$gte", "comparison failed", "comparison succeeded", {}, true},
    {"$lt", "comparison failed", "comparison succeeded", {}, true},
    {"$lte", "comparison failed", "comparison succeeded", {}, true},
    // $ne and $nin are negations: failing them means their positive form succeeded.
    {"$ne", "comparison succeeded", "comparison failed", {}, true},
    {"$in", "no matching value found in array", "matching value found in array", {}, true},
    {"$nin", "matching value found in array", "no matching value found in array", {}, true},
    {"$type", "type did not match", "type did match", {}, true},
    {"$regex",
     "regular expression did not match",
     "regular expression did match",
     {"regex", "string", "symbol"},
     true},
    {"$size",
     "array length was not equal to given size",
     "array length was equal to given size",
     {"array"},
     false},
    {"$elemMatch",
     "array did not satisfy the child predicate",
     "array did satisfy the child predicate",
     {"array"},
     false},
    {"$all",
     "array did not contain all specified values",
     "array did contain all specified values",
     {},
     false},
    {"$mod", "$mod did not evaluate to expected remainder",
     "$mod did evaluate to expected remainder", kNumberTypes, true},
    {"$bitsAllSet",
     "bitwise operator failed to match",
     "bitwise operator matched successfully",
     {"binData", "decimal", "double", "int", "long"},
     true},
    {"$bitsAllClear",
     "bitwise operator failed to match",
     "bitwise operator matched successfully",
     {"binData", "decimal", "double", "int", "long"},
     true},
    {"$bitsAnySet",
     "bitwise operator failed to match",
     "bitwise operator matched successfully",
     {"binData", "decimal", "double", "int", "long"},
     true},
    {"$bitsAnyClear",
     "bitwise operator failed to match",
     "bitwise operator matched successfully",
     {"binData", "decimal", "double", "int", "long"},
     true},
};

const LeafRule* FindLeafRule(std::string_view op) {
  for (const LeafRule& rule : kLeafRules) {
    if (rule.op == op) return &rule;
  }
  return nullptr;
}

void AppendHeader(const Clause& clause, bson_t* out) {
  AppendUtf8(out, "operatorName", clause.op);
  bson_append_document(out, "specifiedAs", -1, clause.filter.get());
}

// The values a leaf's path reaches: leaf arrays traversed but not reported themselves
// (kTraverseOmitArray), or the value as it is. False when the path is missing.
bool CollectValues(BsonView doc, const std::string& path, bool traverse, DetailsArray* values,
                   std::set<std::string>* types, bool* truncated) {
  bool exists = false;
  FieldPath field_path(path);
  AnyPathValue(doc, field_path, traverse ? LeafArrays::kTraverse : LeafArrays::kNoTraversal,
               [&](const bson_iter_t* value) {
                 if (value == nullptr) return false;
                 exists = true;
                 if (traverse && BSON_ITER_HOLDS_ARRAY(value)) return false;
                 if (values->size() >= kMaxConsideredValues) {
                   *truncated = true;
                   return true;
                 }
                 values->AppendValue(value);
                 types->insert(std::string(BsonTypeName(bson_iter_type(value))));
                 return false;
               });
  return exists;
}

void AppendTypes(bson_t* out, std::string_view one, std::string_view many,
                 const std::vector<std::string>& types) {
  if (types.size() == 1) {
    AppendUtf8(out, one, types[0]);
    return;
  }
  DetailsArray array;
  for (const std::string& type : types) array.AppendString(type);
  array.AppendTo(out, many);
}

void AppendConsidered(bson_t* out, const DetailsArray& values, bool truncated) {
  if (values.size() == 1) {
    BsonDoc holder;
    values.AppendTo(holder.get(), "v");
    bson_iter_t it, first;
    holder.view().Find("v", &it);
    bson_iter_recurse(&it, &first);
    bson_iter_next(&first);
    AppendIter(out, "consideredValue", &first);
  } else {
    values.AppendTo(out, "consideredValues");
  }
  if (truncated) BSON_APPEND_BOOL(out, "consideredValuesTruncated", true);
}

BsonDoc ExplainLeaf(const Clause& clause, BsonView doc, bool inverted) {
  BsonDoc out;
  AppendHeader(clause, out.get());
  bson_iter_t argument = clause.argument.iter();
  if (clause.op == "$exists") {
    // $exists: false fails when the path exists.
    bool wants_path = internal::TrueValue(&argument);
    AppendUtf8(out.get(), "reason",
               wants_path != inverted ? "path does not exist" : "path does exist");
    return out;
  }
  if (clause.op == "$alwaysFalse" || clause.op == "$alwaysTrue") {
    AppendUtf8(
        out.get(), "reason",
        inverted ? "expression always evaluates to true" : "expression always evaluates to false");
    return out;
  }
  if (clause.op == "$expr") {
    AppendUtf8(out.get(), "reason", inverted ? "expression did match" : "expression did not match");
    return out;
  }
  const LeafRule* rule = FindLeafRule(clause.op);
  const bool traverse = rule == nullptr || rule->traverse_leaf_arrays;
  DetailsArray values;
  std::set<std::string> value_types;
  bool truncated = false;
  if (!CollectValues(doc, clause.path, traverse, &values, &value_types, &truncated)) {
    AppendUtf8(out.get(), "reason", "field was missing");
    return out;
  }
  std::vector<std::string> considered_types(value_types.begin(), value_types.end());
  bool type_mismatch = false;
  if (rule != nullptr && !rule->expected_types.empty()) {
    type_mismatch = true;
    for (const std::string& type : considered_types) {
      for (std::string_view expected : rule->expected_types) type_mismatch &= type != expected;
    }
    if (considered_types.empty()) type_mismatch = false;
  }
  if (type_mismatch) {
    AppendUtf8(out.get(), "reason", "type did not match");
    AppendTypes(out.get(), "consideredType", "consideredTypes", considered_types);
    std::vector<std::string> expected(rule->expected_types.begin(), rule->expected_types.end());
    AppendTypes(out.get(), "expectedType", "expectedTypes", expected);
  } else {
    std::string_view reason = rule == nullptr
                                  ? (inverted ? "expression did match" : "expression did not match")
                                  : (inverted ? rule->inverted : rule->normal);
    AppendUtf8(out.get(), "reason", reason);
  }
  AppendConsidered(out.get(), values, truncated);
  if (clause.op == "$type" && !considered_types.empty()) {
    AppendTypes(out.get(), "consideredType", "consideredTypes", considered_types);
  }
  return out;
}

BsonDoc ExplainClauses(const std::vector<Clause>& clauses, BsonView doc, bool inverted);

BsonDoc ExplainFilter(BsonView filter, BsonView doc, bool inverted) {
  return ExplainClauses(CollectClauses(filter), doc, inverted);
}

// $and / $or / $nor over an array of filters. In the normal sense $and and $or list the
// clauses that failed, $nor those that matched (explained inverted); inverted, the opposite.
BsonDoc ExplainLogical(const Clause& clause, BsonView doc, bool inverted) {
  const bool nor = clause.op == "$nor";
  const bool children_inverted = nor ? !inverted : inverted;
  DetailsArray failed;
  bson_iter_t argument = clause.argument.iter();
  if (BSON_ITER_HOLDS_ARRAY(&argument)) {
    bson_iter_t it;
    bson_iter_recurse(&argument, &it);
    for (int32_t index = 0; bson_iter_next(&it); ++index) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) continue;
      BsonView child = IterDocument(&it);
      // A child contributes when it stands against the expected outcome in its own sense.
      if (FilterMatches(child, doc) != children_inverted) continue;
      BsonDoc entry;
      BSON_APPEND_INT32(entry.get(), "index", index);
      BsonDoc details = ExplainFilter(child, doc, children_inverted);
      BSON_APPEND_DOCUMENT(entry.get(), "details", details.get());
      failed.AppendDocument(entry);
    }
  }
  BsonDoc out;
  AppendUtf8(out.get(), "operatorName", clause.op);
  failed.AppendTo(out.get(), inverted ? "clausesSatisfied" : "clausesNotSatisfied");
  return out;
}

BsonDoc ExplainClause(const Clause& clause, BsonView doc, bool inverted) {
  if (clause.op == "$and" || clause.op == "$or" || clause.op == "$nor") {
    return ExplainLogical(clause, doc, inverted);
  }
  bson_iter_t argument = clause.argument.iter();
  if (clause.op == "$jsonSchema") {
    Result<json_schema::SchemaPtr> schema = json_schema::ParseSchema(IterDocument(&argument));
    if (schema.ok() && !inverted) return json_schema::ExplainSchemaFailure(**schema, doc);
    BsonDoc out;
    AppendUtf8(out.get(), "operatorName", "$jsonSchema");
    AppendUtf8(out.get(), "reason", "schema matched");
    return out;
  }
  if (clause.op == "$not") {
    // {path: {$not: {...} | /re/}}: the negated operators, explained in the inverted sense.
    BsonDoc inner;
    AppendIter(inner.get(), clause.path, &argument);
    BsonDoc out;
    AppendHeader(clause, out.get());
    BsonDoc details = ExplainFilter(inner.view(), doc, !inverted);
    BSON_APPEND_DOCUMENT(out.get(), "details", details.get());
    return out;
  }
  return ExplainLeaf(clause, doc, inverted);
}

BsonDoc ExplainClauses(const std::vector<Clause>& clauses, BsonView doc, bool inverted) {
  if (clauses.size() == 1) return ExplainClause(clauses[0], doc, inverted);
  // The implicit $and of a filter's fields.
  DetailsArray failed;
  for (size_t i = 0; i < clauses.size(); ++i) {
    if (FilterMatches(clauses[i].filter.view(), doc) != inverted) continue;
    BsonDoc entry;
    BSON_APPEND_INT32(entry.get(), "index", static_cast<int32_t>(i));
    BsonDoc details = ExplainClause(clauses[i], doc, inverted);
    BSON_APPEND_DOCUMENT(entry.get(), "details", details.get());
    failed.AppendDocument(entry);
  }
  BsonDoc out;
  AppendUtf8(out.get(), "operatorName", "$and");
  failed.AppendTo(out.get(), inverted ? "clausesSatisfied" : "clausesNotSatisfied");
  return out;
}

}  // namespace

BsonDoc ExplainValidationFailure(BsonView validator, BsonView document) {
  return ExplainFilter(validator, document, /*inverted=*/false);
}

}  // namespace cairn::query
