// $bucket: {groupBy, boundaries, default, output} groups documents into the ranges
// [boundaries[i], boundaries[i+1]) of the groupBy value, each group's _id its lower bound (or
// `default` for values outside every range), with `output` accumulators (default {count:
// {$sum: 1}}), sorted by _id. As in MongoDB it desugars into $group {_id: {$switch: ...}} and
// $sort {_id: 1} (desugared.cc); a value outside the ranges with no default fails at run time
// with the $switch's 40066. Parse errors as DocumentSourceBucket: 40201 (not an object), 40197
// (unknown option), 40202 (groupBy), 40200/40191/40192/40193/40194 (boundaries: an array of at
// least two constants of one canonical type, ascending), 40195/40199 (default: a constant
// outside the ranges), 40196 (output not an object), 40198 (groupBy or boundaries missing).
#include <optional>
#include <string>
#include <vector>

#include "common/bson_compare.h"
#include "common/bson_element.h"
#include "query/expression/number.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

// The value of `it` as the constant it must be (literal or folded expression); missing when
// it is not constant.
Result<Value> ConstantOf(const bson_iter_t* it, const PipelineOptions& options) {
  ParseContext ctx(options.expression_context);
  CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(it, ctx));
  const Value* constant = expr->constant();
  return constant != nullptr ? constant->Owned() : Value();
}

std::string Rendered(const bson_iter_t* it) { return ValueToString(Value::Element(it)); }

void AppendLiteral(bson_t* out, std::string_view key, const Value& value) {
  bson_t literal;
  bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &literal);
  value.AppendTo(&literal, "$literal");
  bson_append_document_end(out, &literal);
}

}  // namespace

Result<StagePtr> ParseBucket(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kLocation40201,
                  "Argument to $bucket stage must be an object, but found type: " +
                      std::string(BsonTypeName(bson_iter_type(spec))) + ".");
  }
  std::optional<BsonElement> group_by, output;
  std::vector<Value> boundaries;
  Value default_value;
  bool has_default = false;
  bson_iter_t it;
  bson_iter_recurse(spec, &it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "groupBy") {
      if (!IsGroupByExpression(&it, /*min_path_length=*/1)) {
        return Status(ErrorCode::kLocation40202,
                      "The $bucket 'groupBy' field must be defined as a $-prefixed path or an "
                      "expression, but found: " +
                          Rendered(&it) + ".");
      }
      group_by.emplace(&it);
    } else if (key == "boundaries") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) {
        return Status(ErrorCode::kLocation40200,
                      "The $bucket 'boundaries' field must be an array, but found type: " +
                          std::string(BsonTypeName(bson_iter_type(&it))) + ".");
      }
      boundaries.clear();
      bson_iter_t element;
      bson_iter_recurse(&it, &element);
      while (bson_iter_next(&element)) {
        CAIRN_ASSIGN_OR_RETURN(Value value, ConstantOf(&element, options));
        if (value.missing()) {
          return Status(ErrorCode::kLocation40191,
                        "The $bucket 'boundaries' field must be an array of constant values, but "
                        "found value: " +
                            Rendered(&element) + ".");
        }
        boundaries.push_back(std::move(value));
      }
      if (boundaries.size() < 2) {
        return Status(ErrorCode::kLocation40192,
                      "The $bucket 'boundaries' field must have at least 2 values, but found " +
                          std::to_string(boundaries.size()) + " value(s).");
      }
      const StringComparator* strings =
          options.expression_context ? options.expression_context->collator() : nullptr;
      for (size_t i = 1; i < boundaries.size(); ++i) {
        const Value& lower = boundaries[i - 1];
        const Value& upper = boundaries[i];
        if (CanonicalTypeRank(lower.type()) != CanonicalTypeRank(upper.type())) {
          return Status(ErrorCode::kLocation40193,
                        "All values in the the 'boundaries' option to $bucket must have the same "
                        "type. Found conflicting types " +
                            std::string(TypeName(lower)) + " and " + std::string(TypeName(upper)) +
                            ".");
        }
        if (CompareValue(lower, upper, strings) >= 0) {
          return Status(ErrorCode::kLocation40194,
                        "The 'boundaries' option to $bucket must be sorted, but elements " +
                            std::to_string(i - 1) + " and " + std::to_string(i) +
                            " are not in ascending order (" + ValueToString(lower) +
                            " is not less than " + ValueToString(upper) + ").");
        }
      }
    } else if (key == "default") {
      CAIRN_ASSIGN_OR_RETURN(default_value, ConstantOf(&it, options));
      if (default_value.missing()) {
        return Status(ErrorCode::kLocation40195,
                      "The $bucket 'default' field must be a constant expression, but found: " +
                          Rendered(&it) + ".");
      }
      has_default = true;
    } else if (key == "output") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Status(ErrorCode::kLocation40196,
                      "The $bucket 'output' field must be an object, but found type: " +
                          std::string(BsonTypeName(bson_iter_type(&it))) + ".");
      }
      output.emplace(&it);
    } else {
      return Status(ErrorCode::kLocation40197,
                    "Unrecognized option to $bucket: " + std::string(key) + ".");
    }
  }
  if (!group_by.has_value() || boundaries.empty()) {
    return Status(ErrorCode::kLocation40198,
                  "$bucket requires 'groupBy' and 'boundaries' to be specified.");
  }
  if (has_default &&
      CanonicalTypeRank(default_value.type()) == CanonicalTypeRank(boundaries.front().type())) {
    const StringComparator* strings =
        options.expression_context ? options.expression_context->collator() : nullptr;
    if (!(CompareValue(default_value, boundaries.front(), strings) < 0 ||
          CompareValue(default_value, boundaries.back(), strings) >= 0)) {
      return Status(ErrorCode::kLocation40199,
                    "The $bucket 'default' field must be less than the lowest boundary or "
                    "greater than or equal to the highest boundary.");
    }
  }

  // {$group: {_id: {$switch: {branches: [{case: {$and: [{$gte: [g, lo]}, {$lt: [g, hi]}]},
  //  then: lo}, ...], default: d}}, <output or count>}}
  bson_iter_t group_by_it = group_by->iter();
  BsonDoc group;
  bson_t body, id, switch_spec, branches;
  bson_append_document_begin(group.get(), "$group", 6, &body);
  bson_append_document_begin(&body, "_id", 3, &id);
  bson_append_document_begin(&id, "$switch", 7, &switch_spec);
  bson_append_array_begin(&switch_spec, "branches", 8, &branches);
  for (size_t i = 1; i < boundaries.size(); ++i) {
    std::string index = std::to_string(i - 1);
    bson_t branch, case_spec, both, gte, gte_args, lt, lt_args;
    bson_append_document_begin(&branches, index.c_str(), -1, &branch);
    bson_append_document_begin(&branch, "case", 4, &case_spec);
    bson_append_array_begin(&case_spec, "$and", 4, &both);
    bson_append_document_begin(&both, "0", 1, &gte);
    bson_append_array_begin(&gte, "$gte", 4, &gte_args);
    bson_append_iter(&gte_args, "0", 1, &group_by_it);
    AppendLiteral(&gte_args, "1", boundaries[i - 1]);
    bson_append_array_end(&gte, &gte_args);
    bson_append_document_end(&both, &gte);
    bson_append_document_begin(&both, "1", 1, &lt);
    bson_append_array_begin(&lt, "$lt", 3, &lt_args);
    bson_append_iter(&lt_args, "0", 1, &group_by_it);
    AppendLiteral(&lt_args, "1", boundaries[i]);
    bson_append_array_end(&lt, &lt_args);
    bson_append_document_end(&both, &lt);
    bson_append_array_end(&case_spec, &both);
    bson_append_document_end(&branch, &case_spec);
    AppendLiteral(&branch, "then", boundaries[i - 1]);
    bson_append_document_end(&branches, &branch);
  }
  bson_append_array_end(&switch_spec, &branches);
  if (has_default) AppendLiteral(&switch_spec, "default", default_value);
  bson_append_document_end(&id, &switch_spec);
  bson_append_document_end(&body, &id);
  if (output.has_value()) {
    bson_iter_t output_it = output->iter();
    bson_t fields = IterDocument(&output_it).AsBson();
    bson_concat(&body, &fields);
  } else {
    AppendCountOfOne(&body);
  }
  bson_append_document_end(group.get(), &body);
  return MakeGroupThenSort("$bucket", group, R"({"$sort": {"_id": 1}})", options);
}

}  // namespace cairn::query::stages
