// Boolean operators: $and and $or (short-circuiting, true/false by MongoDB's truthiness: false,
// null, missing, undefined and numeric zero are false, everything else — arrays and empty strings
// included — is true; {$and: []} is true, {$or: []} false) and $not.
#include "query/expression/operator.h"

namespace cairn::query::ops {

Result<Value> EvalAnd(const OperatorExpression& op, Variables* vars) {
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (!v.Truthy()) return Value::Bool(false);
  }
  return Value::Bool(true);
}

Result<Value> EvalOr(const OperatorExpression& op, Variables* vars) {
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (v.Truthy()) return Value::Bool(true);
  }
  return Value::Bool(false);
}

Result<Value> EvalNot(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
  return Value::Bool(!v.Truthy());
}

}  // namespace cairn::query::ops
