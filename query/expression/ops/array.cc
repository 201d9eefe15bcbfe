// Array operators: $size $arrayElemAt $first $last $isArray $in $slice $concatArrays $range
// $reverseArray $indexOfArray $zip $sortArray, with MongoDB's null handling (most answer null for
// a null or missing array), index rules (negative indexes count from the end) and error codes.
// Elements are compared in MongoDB's value order (common/bson_compare.h).
#include <algorithm>
#include <limits>
#include <optional>

#include "common/limits.h"
#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

std::string TypeOf(const Value& v) { return TypeNameOf(v); }

// The elements of an array value, sharing its ownership.
std::vector<Value> Elements(const Value& array) {
  std::vector<Value> out;
  bson_iter_t it;
  if (array.Recurse(&it)) {
    while (bson_iter_next(&it)) out.push_back(array.Child(&it));
  }
  return out;
}

// The `index`-th element (negative: from the end); missing when out of range.
Value ElementAt(const Value& array, int64_t index) {
  uint32_t count = array.Count();
  if (index < 0) {
    if (static_cast<uint64_t>(-index) > count) return Value();
    index += count;
  }
  if (index >= static_cast<int64_t>(count)) return Value();
  bson_iter_t it;
  array.Recurse(&it);
  for (int64_t i = 0; bson_iter_next(&it); ++i) {
    if (i == index) return array.Child(&it);
  }
  return Value();
}

// arrayElemAt(): shared by $arrayElemAt, $first and $last.
Result<Value> ArrayElemAt(const OperatorExpression& op, const Value& array, const Value& index) {
  if (array.nullish() || index.nullish()) return Value::Null();
  if (!array.is_array()) {
    return Status(ErrorCode::kLocation28689, std::string(op.name()) + "'s " +
                                                 (op.size() == 1 ? "argument" : "first argument") +
                                                 " must be an array, but is " + TypeOf(array));
  }
  if (!index.numeric()) {
    return Status(ErrorCode::kLocation28690, std::string(op.name()) +
                                                 "'s second argument must be a numeric value, "
                                                 "but is " +
                                                 TypeOf(index));
  }
  if (!IsIntegral32(index)) {
    return Status(ErrorCode::kLocation28691,
                  std::string(op.name()) +
                      "'s second argument must be representable as a 32-bit integer: " +
                      FormatDouble(NumberAsDouble(index)));
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t i, CoerceToLong(index));
  return ElementAt(array, i);
}

Result<Value> ArrayOf(const std::vector<Value>& elements, size_t begin, size_t end) {
  ArrayBuilder out;
  for (size_t i = begin; i < end; ++i) out.Append(elements[i]);
  return out.Finish();
}

// $zip: operands are the inputs, then the defaults.
class ZipExpression final : public OperatorExpression {
 public:
  ZipExpression(std::string_view name, std::vector<ExpressionPtr> operands, size_t inputs,
                bool use_longest)
      : OperatorExpression(name, std::move(operands), Evaluate, /*foldable=*/false),
        inputs_(inputs),
        use_longest_(use_longest) {}

 private:
  static Result<Value> Evaluate(const OperatorExpression& op, Variables* vars) {
    const auto& self = static_cast<const ZipExpression&>(op);
    std::vector<std::vector<Value>> inputs;
    std::vector<Value> holders;  // keep computed input arrays alive
    size_t min_size = 0, max_size = 0;
    for (size_t i = 0; i < self.inputs_; ++i) {
      CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
      if (v.nullish()) return Value::Null();
      if (!v.is_array()) {
        return Status(ErrorCode::kLocation34468,
                      "$zip found a non-array expression in input: " + ValueToString(v));
      }
      inputs.push_back(Elements(v));
      holders.push_back(v);
      size_t n = inputs.back().size();
      if (i == 0) {
        min_size = max_size = n;
      } else {
        min_size = std::min(min_size, n);
        max_size = std::max(max_size, n);
      }
    }
    std::vector<Value> defaults(self.inputs_, Value::Null());
    if (min_size != max_size) {
      for (size_t i = self.inputs_; i < op.size(); ++i) {
        CAIRN_ASSIGN_OR_RETURN(defaults[i - self.inputs_], op.Eval(i, vars));
      }
    }
    size_t rows = self.use_longest_ ? max_size : min_size;
    ArrayBuilder out;
    for (size_t row = 0; row < rows; ++row) {
      ArrayBuilder tuple;
      for (size_t col = 0; col < self.inputs_; ++col) {
        tuple.Append(row < inputs[col].size() ? inputs[col][row] : defaults[col]);
      }
      CAIRN_ASSIGN_OR_RETURN(Value zipped, tuple.Finish());
      out.Append(zipped);
    }
    return out.Finish();
  }

  size_t inputs_;
  bool use_longest_;
};

// $sortArray's sortBy: whole values (1 / -1) or fields of document elements.
struct SortBy {
  int whole = 0;                                    // 1 / -1 when sorting whole values
  std::vector<std::pair<std::string, int>> fields;  // otherwise
};

class SortArrayExpression final : public OperatorExpression {
 public:
  SortArrayExpression(std::string_view name, std::vector<ExpressionPtr> operands, SortBy sort_by)
      : OperatorExpression(name, std::move(operands), Evaluate, /*foldable=*/false),
        sort_by_(std::move(sort_by)) {}

 private:
  // A field of a document element for the sort (null when absent or not a document).
  static Value SortKey(const Value& element, const std::string& path) {
    if (element.is_document()) {
      bson_iter_t doc, found;
      if (element.Recurse(&doc) && bson_iter_find_descendant(&doc, path.c_str(), &found)) {
        return element.Child(&found);
      }
    }
    return Value::Null();
  }

  int Compare(const Value& a, const Value& b) const {
    // Strings under the command's collation (as MongoDB's PatternValueCmp).
    if (sort_by_.whole != 0) return CompareValue(a, b, collator()) * sort_by_.whole;
    for (const auto& [path, direction] : sort_by_.fields) {
      int c = CompareValue(SortKey(a, path), SortKey(b, path), collator());
      if (c != 0) return c < 0 ? -direction : direction;
    }
    return 0;
  }

  static Result<Value> Evaluate(const OperatorExpression& op, Variables* vars) {
    const auto& self = static_cast<const SortArrayExpression&>(op);
    CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(0, vars));
    if (input.nullish()) return Value::Null();
    if (!input.is_array()) {
      return Status(
          ErrorCode::kLocation2942504,
          "The input argument to $sortArray must be an array, but was of type: " + TypeOf(input));
    }
    std::vector<Value> elements = Elements(input);
    if (elements.size() < 2) return input;
    std::stable_sort(elements.begin(), elements.end(),
                     [&](const Value& a, const Value& b) { return self.Compare(a, b) < 0; });
    return ArrayOf(elements, 0, elements.size());
  }

  SortBy sort_by_;
};

// pattern_cmp::checkSortClause, reported as 2942505 with the Status rendered "<code>: <reason>".
Result<SortBy> ParseSortBy(const bson_iter_t* spec) {
  SortBy sort_by;
  if (BSON_ITER_HOLDS_DOCUMENT(spec)) {
    auto bad = [](const std::string& reason) {
      return Status(ErrorCode::kLocation2942505, "BadValue: " + reason);
    };
    BsonView pattern = IterDocument(spec);
    if (pattern.empty())
      return bad("The $sort pattern is empty when it should be a set of fields.");
    bson_iter_t it;
    pattern.Init(&it);
    while (bson_iter_next(&it)) {
      double order = 0;
      if (IterIsNumber(&it)) IterAsDouble(&it, &order);
      if (order != 1 && order != -1) return bad("The $sort element value must be either 1 or -1");
      std::string_view field = IterKey(&it);
      if (field.empty()) return bad("The $sort field cannot be empty");
      if (field.front() == '.' || field.back() == '.' ||
          field.find("..") != std::string_view::npos) {
        return bad("The $sort field is a dotted field but has an empty part: " +
                   std::string(field));
      }
      sort_by.fields.emplace_back(std::string(field), order < 0 ? -1 : 1);
    }
    return sort_by;
  }
  if (IterIsNumber(spec)) {
    double order = 0;
    IterAsDouble(spec, &order);
    if (order != 1 && order != -1) {
      return Status(ErrorCode::kLocation2942506, "The $sort element value must be either 1 or -1");
    }
    sort_by.whole = order < 0 ? -1 : 1;
    return sort_by;
  }
  return Status(ErrorCode::kLocation2942507,
                "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to "
                "sort embedded fields");
}

}  // namespace

Result<Value> EvalArrayElemAt(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value array, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value index, op.Eval(1, vars));
  return ArrayElemAt(op, array, index);
}

Result<Value> EvalFirst(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value array, op.Eval(0, vars));
  return ArrayElemAt(op, array, Value::Int32(0));
}

Result<Value> EvalLast(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value array, op.Eval(0, vars));
  return ArrayElemAt(op, array, Value::Int32(-1));
}

Result<Value> EvalSize(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value array, op.Eval(0, vars));
  if (!array.is_array()) {
    return Status(ErrorCode::kLocation17124,
                  "The argument to $size must be an array, but was of type: " + TypeOf(array));
  }
  return Value::IntOrLong(array.Count());
}

Result<Value> EvalIsArray(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
  return Value::Bool(v.is_array());
}

Result<Value> EvalIn(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value needle, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value array, op.Eval(1, vars));
  if (!array.is_array()) {
    return Status(ErrorCode::kLocation40081,
                  "$in requires an array as a second argument, found: " + TypeOf(array));
  }
  bson_iter_t it;
  array.Recurse(&it);
  while (bson_iter_next(&it)) {
    if (CompareValue(needle, array.Child(&it), op.collator()) == 0) return Value::Bool(true);
  }
  return Value::Bool(false);
}

Result<Value> EvalSlice(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value array, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value second, op.Eval(1, vars));
  if (array.nullish() || second.nullish()) return Value::Null();
  if (!array.is_array()) {
    return Status(ErrorCode::kLocation28724,
                  "First argument to $slice must be an array, but is of type: " + TypeOf(array));
  }
  if (!second.numeric()) {
    return Status(
        ErrorCode::kLocation28725,
        "Second argument to $slice must be a numeric value, but is of type: " + TypeOf(second));
  }
  if (!IsIntegral32(second)) {
    return Status(ErrorCode::kLocation28726,
                  "Second argument to $slice can't be represented as a 32-bit integer: " +
                      FormatDouble(NumberAsDouble(second)));
  }
  std::vector<Value> elements = Elements(array);
  const int64_t size = static_cast<int64_t>(elements.size());
  CAIRN_ASSIGN_OR_RETURN(int32_t n, CoerceToInt(second));
  int64_t start = 0, end = size;
  if (op.size() == 2) {
    if (n >= 0) {
      end = std::min<int64_t>(size, n);
    } else {
      start = std::max<int64_t>(0, size + n);
    }
  } else {
    start = n < 0 ? std::max<int64_t>(0, size + n) : std::min<int64_t>(size, n);
    CAIRN_ASSIGN_OR_RETURN(Value count_arg, op.Eval(2, vars));
    if (count_arg.nullish()) return Value::Null();
    if (!count_arg.numeric()) {
      return Status(
          ErrorCode::kLocation28727,
          "Third argument to $slice must be numeric, but is of type: " + TypeOf(count_arg));
    }
    if (!IsIntegral32(count_arg)) {
      return Status(ErrorCode::kLocation28728,
                    "Third argument to $slice can't be represented as a 32-bit integer: " +
                        FormatDouble(NumberAsDouble(count_arg)));
    }
    CAIRN_ASSIGN_OR_RETURN(int32_t count, CoerceToInt(count_arg));
    if (count <= 0) {
      return Status(ErrorCode::kLocation28729,
                    "Third argument to $slice must be positive: " + std::to_string(count));
    }
    end = std::min<int64_t>(start + count, size);
  }
  return ArrayOf(elements, static_cast<size_t>(start), static_cast<size_t>(end));
}

Result<Value> EvalConcatArrays(const OperatorExpression& op, Variables* vars) {
  ArrayBuilder out;
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (v.nullish()) return Value::Null();
    if (!v.is_array()) {
      return Status(ErrorCode::kLocation28664,
                    "$concatArrays only supports arrays, not " + TypeOf(v));
    }
    bson_iter_t it;
    v.Recurse(&it);
    while (bson_iter_next(&it)) out.AppendIter(&it);
  }
  return out.Finish();
}

Result<Value> EvalRange(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value start_value, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value end_value, op.Eval(1, vars));
  if (!start_value.numeric()) {
    return Status(
        ErrorCode::kLocation34443,
        "$range requires a numeric starting value, found value of type: " + TypeOf(start_value));
  }
  if (!IsIntegral32(start_value)) {
    return Status(ErrorCode::kLocation34444,
                  "$range requires a starting value that can be represented as a 32-bit "
                  "integer, found value: " +
                      ValueToString(start_value));
  }
  if (!end_value.numeric()) {
    return Status(
        ErrorCode::kLocation34445,
        "$range requires a numeric ending value, found value of type: " + TypeOf(end_value));
  }
  if (!IsIntegral32(end_value)) {
    return Status(ErrorCode::kLocation34446,
                  "$range requires an ending value that can be represented as a 32-bit integer, "
                  "found value: " +
                      ValueToString(end_value));
  }
  CAIRN_ASSIGN_OR_RETURN(int32_t first, CoerceToInt(start_value));
  CAIRN_ASSIGN_OR_RETURN(int32_t last, CoerceToInt(end_value));
  int64_t current = first, end = last, step = 1;
  if (op.size() == 3) {
    CAIRN_ASSIGN_OR_RETURN(Value step_value, op.Eval(2, vars));
    if (!step_value.numeric()) {
      return Status(
          ErrorCode::kLocation34447,
          "$range requires a numeric step value, found value of type:" + TypeOf(step_value));
    }
    if (!IsIntegral32(step_value)) {
      return Status(ErrorCode::kLocation34448,
                    "$range requires a step value that can be represented as a 32-bit integer, "
                    "found value: " +
                        ValueToString(step_value));
    }
    CAIRN_ASSIGN_OR_RETURN(int32_t s, CoerceToInt(step_value));
    if (s == 0) return Status(ErrorCode::kLocation34449, "$range requires a non-zero step value");
    step = s;
  }
  // internalQueryMaxRangeBytes (100 MiB), with MongoDB's size estimate per element.
  constexpr int64_t kMaxRangeBytes = kDefaultStageMemoryBytes;
  constexpr int64_t kValueBytes = 16, kVectorBytes = 24;
  int64_t steps = (end - current) / step;
  int64_t length = steps >= 0 ? 1 + steps : 0;
  int64_t needed = kVectorBytes + length * kValueBytes;
  if (needed >= kMaxRangeBytes) {
    return Status(ErrorCode::kExceededMemoryLimit,
                  "$range would use too much memory (" + std::to_string(needed) +
                      " bytes) and cannot spill to disk. Memory limit: " +
                      std::to_string(kMaxRangeBytes) + " bytes");
  }
  ArrayBuilder out;
  while (step > 0 ? current < end : current > end) {
    out.Append(Value::Int32(static_cast<int32_t>(current)));
    current += step;
  }
  return out.Finish();
}

Result<Value> EvalReverseArray(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(0, vars));
  if (input.nullish()) return Value::Null();
  if (!input.is_array()) {
    return Status(
        ErrorCode::kLocation34435,
        "The argument to $reverseArray must be an array, but was of type: " + TypeOf(input));
  }
  std::vector<Value> elements = Elements(input);
  if (elements.size() < 2) return input;
  std::reverse(elements.begin(), elements.end());
  return ArrayOf(elements, 0, elements.size());
}

Result<Value> EvalIndexOfArray(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value array, op.Eval(0, vars));
  if (array.nullish()) return Value::Null();
  if (!array.is_array()) {
    return Status(ErrorCode::kLocation40090,
                  "$indexOfArray requires an array as a first argument, found: " + TypeOf(array));
  }
  std::vector<Value> elements = Elements(array);
  int32_t start = 0;
  int32_t end = static_cast<int32_t>(elements.size());
  if (op.size() > 2) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(2, vars));
    CAIRN_ASSIGN_OR_RETURN(start, NonNegativeIndex(v, op.name(), "starting index"));
  }
  if (op.size() > 3) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(3, vars));
    CAIRN_ASSIGN_OR_RETURN(int32_t i, NonNegativeIndex(v, op.name(), "ending index"));
    end = std::min(end, i);
  }
  CAIRN_ASSIGN_OR_RETURN(Value needle, op.Eval(1, vars));
  for (int32_t i = start; i < end; ++i) {
    if (CompareValue(elements[static_cast<size_t>(i)], needle, op.collator()) == 0) {
      return Value::Int32(i);
    }
  }
  return Value::Int32(-1);
}

Result<ExpressionPtr> ParseZip(const bson_iter_t* arg, std::string_view name, ParseContext& ctx) {
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) {
    return Status(ErrorCode::kLocation34460, "$zip only supports an object as an argument, found " +
                                                 std::string(BsonTypeName(bson_iter_type(arg))));
  }
  std::vector<ExpressionPtr> inputs, defaults;
  bool use_longest = false;
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    if (field == "inputs" || field == "defaults") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) {
        return Status(field == "inputs" ? ErrorCode::kLocation34461 : ErrorCode::kLocation34462,
                      std::string(field) + " must be an array of expressions, found " +
                          std::string(BsonTypeName(bson_iter_type(&it))));
      }
      bson_iter_t e;
      bson_iter_recurse(&it, &e);
      while (bson_iter_next(&e)) {
        CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&e, ctx));
        (field == "inputs" ? inputs : defaults).push_back(std::move(expr));
      }
    } else if (field == "useLongestLength") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) {
        // MongoDB names the type of the whole argument here (an object).
        return Status(ErrorCode::kLocation34463, "useLongestLength must be a bool, found object");
      }
      use_longest = bson_iter_bool(&it);
    } else {
      return Status(ErrorCode::kLocation34464,
                    "$zip found an unknown argument: " + std::string(field));
    }
  }
  if (inputs.empty()) {
    return Status(ErrorCode::kLocation34465, "$zip requires at least one input array");
  }
  if (!use_longest && !defaults.empty()) {
    return Status(ErrorCode::kLocation34466,
                  "cannot specify defaults unless useLongestLength is true");
  }
  if (!defaults.empty() && defaults.size() != inputs.size()) {
    return Status(ErrorCode::kLocation34467, "defaults and inputs must have the same length");
  }
  size_t input_count = inputs.size();
  for (ExpressionPtr& d : defaults) inputs.push_back(std::move(d));
  return ExpressionPtr(
      std::make_unique<ZipExpression>(name, std::move(inputs), input_count, use_longest));
}

Result<ExpressionPtr> ParseSortArray(const bson_iter_t* arg, std::string_view name,
                                     ParseContext& ctx) {
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) {
    return Status(ErrorCode::kLocation2942500,
                  "$sortArray requires an object as an argument, found: " +
                      std::string(BsonTypeName(bson_iter_type(arg))));
  }
  ExpressionPtr input;
  std::optional<SortBy> sort_by;
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    if (field == "input") {
      CAIRN_ASSIGN_OR_RETURN(input, ParseOperand(&it, ctx));
    } else if (field == "sortBy") {
      CAIRN_ASSIGN_OR_RETURN(sort_by, ParseSortBy(&it));
    } else {
      return Status(ErrorCode::kLocation2942501,
                    "$sortArray found an unknown argument: " + std::string(field));
    }
  }
  if (!input) {
    return Status(ErrorCode::kLocation2942502, "$sortArray requires 'input' to be specified");
  }
  if (!sort_by) {
    return Status(ErrorCode::kLocation2942503, "$sortArray requires 'sortBy' to be specified");
  }
  std::vector<ExpressionPtr> operands;
  operands.push_back(std::move(input));
  auto sort_array =
      std::make_unique<SortArrayExpression>(name, std::move(operands), std::move(*sort_by));
  sort_array->set_collator(ctx.context().shared_collator());
  return ExpressionPtr(std::move(sort_array));
}

}  // namespace cairn::query::ops
