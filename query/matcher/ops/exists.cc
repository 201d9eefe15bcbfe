// $exists: true is ExistsMatchExpression (some value is reached); any falsy operand ($exists: 0,
// false, null) makes it Not(exists), as MongoDB's trueValue() decides.
#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query::internal {

Result<MatchExpressionPtr> ParseExists(const OperatorArgs& args) {
  auto exists = std::make_unique<ExistsMatchExpression>(args.path);
  if (TrueValue(args.op)) return MatchExpressionPtr(std::move(exists));
  return MatchExpressionPtr(std::make_unique<NotMatchExpression>(std::move(exists)));
}

}  // namespace cairn::query::internal
