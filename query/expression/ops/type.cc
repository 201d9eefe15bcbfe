// Type inspection: $type (MongoDB's type name of the value: "double", "string", "objectId", ...,
// "missing" for a missing value) and $isNumber (int, long, double or decimal).
#include "query/expression/operator.h"

namespace cairn::query::ops {

Result<Value> EvalType(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
  return Value::String(TypeName(v));
}

Result<Value> EvalIsNumber(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
  return Value::Bool(v.numeric());
}

}  // namespace cairn::query::ops
