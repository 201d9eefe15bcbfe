// Set operators over arrays treated as sets (duplicates ignored, values equal by MongoDB's value
// comparison: 1, 1.0 and NumberLong(1) are one member; strings equal under the command's
// collation are one member): $setEquals $setIntersection $setUnion $setDifference $setIsSubset,
// and $allElementsTrue / $anyElementTrue. As in MongoDB, the results of $setUnion and
// $setIntersection come out in value order, $setDifference keeps the first array's order.
#include <algorithm>

#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

std::string TypeOf(const Value& v) { return TypeNameOf(v); }

// The order and equality of set members: MongoDB's value order, strings under the operator's
// collation (ExpressionContext::getValueComparator).
struct MemberOrder {
  const StringComparator* collator;  // null: binary
  bool operator()(const Value& a, const Value& b) const { return CompareValue(a, b, collator) < 0; }
  bool Equal(const Value& a, const Value& b) const { return CompareValue(a, b, collator) == 0; }
};

MemberOrder OrderOf(const OperatorExpression& op) { return MemberOrder{op.collator()}; }

// Sorts `members` and drops equal ones (the first of equal members kept).
void SortUnique(std::vector<Value>* members, MemberOrder order) {
  std::stable_sort(members->begin(), members->end(), order);
  members->erase(std::unique(members->begin(), members->end(),
                             [order](const Value& a, const Value& b) { return order.Equal(a, b); }),
                 members->end());
}

// The distinct members of an array, in value order (the first of equal members kept).
std::vector<Value> ToSet(const Value& array, MemberOrder order) {
  std::vector<Value> members;
  bson_iter_t it;
  if (array.Recurse(&it)) {
    while (bson_iter_next(&it)) members.push_back(array.Child(&it));
  }
  SortUnique(&members, order);
  return members;
}

bool Contains(const std::vector<Value>& set, const Value& v, MemberOrder order) {
  return std::binary_search(set.begin(), set.end(), v, order);
}

Result<Value> ArrayOf(const std::vector<Value>& values) {
  ArrayBuilder out;
  for (const Value& v : values) out.Append(v);
  return out.Finish();
}

Result<Value> EvalSetEquals(const OperatorExpression& op, Variables* vars) {
  const MemberOrder order = OrderOf(op);
  std::vector<Value> first;
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (!v.is_array()) {
      return Status(ErrorCode::kLocation17044, "All operands of $setEquals must be arrays. " +
                                                   std::to_string(i + 1) +
                                                   "-th argument is of type: " + TypeOf(v));
    }
    std::vector<Value> set = ToSet(v, order);
    if (i == 0) {
      first = std::move(set);
      continue;
    }
    if (set.size() != first.size() ||
        !std::equal(set.begin(), set.end(), first.begin(),
                    [order](const Value& a, const Value& b) { return order.Equal(a, b); })) {
      return Value::Bool(false);
    }
  }
  return Value::Bool(true);
}

}  // namespace

Result<ExpressionPtr> ParseSetEquals(const bson_iter_t* arg, std::string_view name,
                                     ParseContext& ctx) {
  CAIRN_ASSIGN_OR_RETURN(std::vector<ExpressionPtr> operands, ParseArguments(arg, ctx));
  if (operands.size() < 2) {
    return Status(ErrorCode::kLocation17045, "$setEquals needs at least two arguments had: " +
                                                 std::to_string(operands.size()));
  }
  // ExpressionSetEquals::optimize checks the constant operands now.
  for (size_t i = 0; i < operands.size(); ++i) {
    const Value* c = operands[i]->constant();
    if (c != nullptr && !c->is_array()) {
      return Status(ErrorCode::kLocation5887502, "All operands of $setEquals must be arrays. " +
                                                     std::to_string(i + 1) +
                                                     "-th argument is of type: " + TypeOf(*c));
    }
  }
  auto op = std::make_unique<OperatorExpression>(name, std::move(operands), EvalSetEquals,
                                                 /*foldable=*/false);
  op->set_collator(ctx.context().shared_collator());
  return ExpressionPtr(std::move(op));
}

Result<Value> EvalSetIntersection(const OperatorExpression& op, Variables* vars) {
  const MemberOrder order = OrderOf(op);
  std::vector<Value> result;
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (v.nullish()) return Value::Null();
    if (!v.is_array()) {
      return Status(
          ErrorCode::kLocation17047,
          "All operands of $setIntersection must be arrays. One argument is of type: " + TypeOf(v));
    }
    std::vector<Value> set = ToSet(v, order);
    if (i == 0) {
      result = std::move(set);
      continue;
    }
    std::vector<Value> kept;
    for (const Value& member : result) {
      if (Contains(set, member, order)) kept.push_back(member);
    }
    result = std::move(kept);
  }
  return ArrayOf(result);
}

Result<Value> EvalSetUnion(const OperatorExpression& op, Variables* vars) {
  std::vector<Value> members;
  std::vector<Value> holders;  // the operand arrays the members view
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (v.nullish()) return Value::Null();
    if (!v.is_array()) {
      return Status(
          ErrorCode::kLocation17043,
          "All operands of $setUnion must be arrays. One argument is of type: " + TypeOf(v));
    }
    bson_iter_t it;
    v.Recurse(&it);
    while (bson_iter_next(&it)) members.push_back(v.Child(&it));
    holders.push_back(std::move(v));
  }
  SortUnique(&members, OrderOf(op));
  return ArrayOf(members);
}

Result<Value> EvalSetDifference(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value lhs, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value rhs, op.Eval(1, vars));
  if (lhs.nullish() || rhs.nullish()) return Value::Null();
  if (!lhs.is_array()) {
    return Status(ErrorCode::kLocation17048,
                  "both operands of $setDifference must be arrays. First argument is of type: " +
                      TypeOf(lhs));
  }
  if (!rhs.is_array()) {
    return Status(ErrorCode::kLocation17049,
                  "both operands of $setDifference must be arrays. Second argument is of type: " +
                      TypeOf(rhs));
  }
  const MemberOrder order = OrderOf(op);
  std::vector<Value> excluded = ToSet(rhs, order);
  std::vector<Value> out;
  bson_iter_t it;
  lhs.Recurse(&it);
  while (bson_iter_next(&it)) {
    Value member = lhs.Child(&it);
    if (Contains(excluded, member, order)) continue;
    excluded.insert(std::upper_bound(excluded.begin(), excluded.end(), member, order), member);
    out.push_back(member);
  }
  return ArrayOf(out);
}

Result<Value> EvalSetIsSubset(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value lhs, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value rhs, op.Eval(1, vars));
  if (!lhs.is_array()) {
    return Status(
        ErrorCode::kLocation17046,
        "both operands of $setIsSubset must be arrays. First argument is of type: " + TypeOf(lhs));
  }
  if (!rhs.is_array()) {
    return Status(
        ErrorCode::kLocation17042,
        "both operands of $setIsSubset must be arrays. Second argument is of type: " + TypeOf(rhs));
  }
  const MemberOrder order = OrderOf(op);
  std::vector<Value> superset = ToSet(rhs, order);
  bson_iter_t it;
  lhs.Recurse(&it);
  while (bson_iter_next(&it)) {
    if (!Contains(superset, lhs.Child(&it), order)) return Value::Bool(false);
  }
  return Value::Bool(true);
}

Result<Value> EvalAllElementsTrue(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value array, op.Eval(0, vars));
  if (!array.is_array()) {
    return Status(ErrorCode::kLocation17040,
                  "$allElementsTrue's argument must be an array, but is " + TypeOf(array));
  }
  bson_iter_t it;
  array.Recurse(&it);
  while (bson_iter_next(&it)) {
    if (!array.Child(&it).Truthy()) return Value::Bool(false);
  }
  return Value::Bool(true);
}

Result<Value> EvalAnyElementTrue(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value array, op.Eval(0, vars));
  if (!array.is_array()) {
    return Status(ErrorCode::kLocation17041,
                  "$anyElementTrue's argument must be an array, but is " + TypeOf(array));
  }
  bson_iter_t it;
  array.Recurse(&it);
  while (bson_iter_next(&it)) {
    if (array.Child(&it).Truthy()) return Value::Bool(true);
  }
  return Value::Bool(false);
}

}  // namespace cairn::query::ops
