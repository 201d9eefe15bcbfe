// $size: an array with exactly n elements (MongoDB's SizeMatchExpression). The operand must be a
// non-negative integral number; errors as MongoDB ("Failed to parse $size. ...").
#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

bool SizeMatchExpression::MatchesSingleElement(const bson_iter_t* value, Status*) const {
  if (value == nullptr || !BSON_ITER_HOLDS_ARRAY(value)) return false;
  bson_iter_t it;
  if (!bson_iter_recurse(value, &it)) return false;
  int count = 0;
  while (bson_iter_next(&it)) {
    if (++count > size_) return false;
  }
  return count == size_;
}

namespace internal {

Result<MatchExpressionPtr> ParseSize(const OperatorArgs& args) {
  Result<int> size = ParseNonNegativeInt(args.op);
  if (!size.ok()) {
    return Status(ErrorCode::kBadValue, "Failed to parse $size. " + size.status().reason());
  }
  return MatchExpressionPtr(std::make_unique<SizeMatchExpression>(args.path, *size));
}

}  // namespace internal
}  // namespace cairn::query
