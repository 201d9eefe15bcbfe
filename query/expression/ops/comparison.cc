// Comparison operators: $eq $ne $gt $gte $lt $lte (a boolean) and $cmp (-1, 0 or 1), comparing
// any two values in MongoDB's value order (common/bson_compare.h): numbers by value across types,
// different types by their canonical rank, missing below null (so {$eq: ["$missing", null]} is
// false, as in MongoDB).
#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

Result<int> Compare(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value lhs, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value rhs, op.Eval(1, vars));
  int c = CompareValue(lhs, rhs, op.collator());  // strings under the command's collation
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

Result<Value> EvalCmp(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(int c, Compare(op, vars));
  return Value::Int32(c);
}

Result<Value> EvalEq(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(int c, Compare(op, vars));
  return Value::Bool(c == 0);
}

Result<Value> EvalNe(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(int c, Compare(op, vars));
  return Value::Bool(c != 0);
}

Result<Value> EvalGt(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(int c, Compare(op, vars));
  return Value::Bool(c > 0);
}

Result<Value> EvalGte(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(int c, Compare(op, vars));
  return Value::Bool(c >= 0);
}

Result<Value> EvalLt(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(int c, Compare(op, vars));
  return Value::Bool(c < 0);
}

Result<Value> EvalLte(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(int c, Compare(op, vars));
  return Value::Bool(c <= 0);
}

}  // namespace cairn::query::ops
