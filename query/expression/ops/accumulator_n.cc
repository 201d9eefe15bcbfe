// $firstN $lastN $maxN $minN as array expressions (ExpressionFromAccumulatorN):
// {$maxN: {input: <array>, n: <count>}} folds the array's elements through the $group
// accumulator of the same name (query/pipeline/accumulators/accumulator_n.cc), so both forms share
// one definition of n's rules and of the null handling. n is evaluated first (5787902/5787903/
// 5787908), then input, which must be an array (5788200).
#include "query/expression/operator.h"
#include "query/pipeline/accumulators/accumulator.h"

namespace cairn::query::ops {

namespace {

// Operands: [n, input].
Result<Value> EvalAccumulatorN(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value n_value, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(int64_t n, ValidateN(n_value));
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(1, vars));
  if (!input.is_array()) return Status(ErrorCode::kLocation5788200, "Input must be an array");
  std::unique_ptr<Accumulator> accumulator = MakeNAccumulator(op.name(), n);
  accumulator->SetCollator(op.collator());
  bson_iter_t it;
  input.Recurse(&it);
  while (bson_iter_next(&it)) CAIRN_RETURN_IF_ERROR(accumulator->Process(&it));
  bson_t result;
  bson_init(&result);
  accumulator->Finish(&result, "");
  Value out = Value::FromOneFieldDocument(&result);
  bson_destroy(&result);
  return out;
}

}  // namespace

Result<ExpressionPtr> ParseAccumulatorN(const bson_iter_t* arg, std::string_view name,
                                        ParseContext& ctx) {
  std::vector<ExpressionPtr> operands(2);
  CAIRN_RETURN_IF_ERROR(ParseNArguments(name, arg, ctx, &operands[0], &operands[1]));
  auto op = std::make_unique<OperatorExpression>(name, std::move(operands), EvalAccumulatorN);
  op->set_collator(ctx.context().shared_collator());
  return ExpressionPtr(std::move(op));
}

}  // namespace cairn::query::ops
