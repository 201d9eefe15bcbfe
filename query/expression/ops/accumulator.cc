// $sum $avg $min $max $stdDevPop $stdDevSamp as expressions (ExpressionFromAccumulator): the $group
// accumulator of the same name (query/pipeline/accumulators/) folded over the operands — the
// elements of the one operand when it is an array, else the operand values themselves — so the
// expression and the accumulator share one definition of the arithmetic and the null rules.
#include "query/pipeline/accumulators/accumulator.h"
#include "query/expression/operator.h"

namespace cairn::query::ops {

Result<Value> EvalAccumulator(const OperatorExpression& op, Variables* vars) {
  AccumulatorFactory make = FindAccumulator(op.name());
  std::unique_ptr<Accumulator> accumulator = make();
  auto process = [&](const Value& v) -> Status {
    if (v.missing()) return accumulator->Process(nullptr);
    bson_iter_t it = v.iter();
    return accumulator->Process(&it);
  };
  if (op.size() == 1) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
    if (v.is_array()) {
      bson_iter_t it;
      v.Recurse(&it);
      while (bson_iter_next(&it)) CAIRN_RETURN_IF_ERROR(accumulator->Process(&it));
    } else {
      CAIRN_RETURN_IF_ERROR(process(v));
    }
  } else {
    for (size_t i = 0; i < op.size(); ++i) {
      CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
      CAIRN_RETURN_IF_ERROR(process(v));
    }
  }
  bson_t result;
  bson_init(&result);
  accumulator->Finish(&result, "");
  bson_iter_t it;
  Value out;
  if (bson_iter_init(&it, &result) && bson_iter_next(&it)) {
    out = Value::Element(&it).Owned();
  }
  bson_destroy(&result);
  return out;
}

}  // namespace cairn::query::ops
