// $mod: [divisor, remainder] over numbers truncated toward zero to int64, after MongoDB's
// parseMOD and ModMatchExpression (NaN, infinities and out-of-range values never match).
#include <cmath>
#include <string>

#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

namespace {

// MongoDB's representAs<long long>(trunc(x)): false when x is not finite or out of range.
bool TruncToInt64(double d, int64_t* out) {
  if (!std::isfinite(d)) return false;
  d = std::trunc(d);
  if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

}  // namespace

bool ModMatchExpression::MatchesSingleElement(const bson_iter_t* value, Status*) const {
  if (value == nullptr) return false;
  int64_t dividend = 0;
  switch (bson_iter_type(value)) {
    case BSON_TYPE_INT32:
      dividend = bson_iter_int32(value);
      break;
    case BSON_TYPE_INT64:
      dividend = bson_iter_int64(value);
      break;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128: {
      double d = 0;
      IterAsDouble(value, &d);
      if (!TruncToInt64(d, &dividend)) return false;
      break;
    }
    default:
      return false;
  }
  const int64_t r = divisor_ == -1 ? 0 : dividend % divisor_;  // overflow::safeMod
  return r == remainder_;
}

namespace internal {

namespace {

// BSONElement::tryCoerce to long long.
Status Coerce(const bson_iter_t* e, int64_t* out) {
  switch (bson_iter_type(e)) {
    case BSON_TYPE_INT32:
      *out = bson_iter_int32(e);
      return Status::OK();
    case BSON_TYPE_INT64:
      *out = bson_iter_int64(e);
      return Status::OK();
    default: {
      double d = 0;
      IterAsDouble(e, &d);
      if (!std::isfinite(d)) {
        return Status(ErrorCode::kBadValue, "Unable to coerce NaN/Inf to integral type");
      }
      if (!TruncToInt64(d, out)) {
        return Status(ErrorCode::kBadValue, "Out of bounds coercing to integral value");
      }
      return Status::OK();
    }
  }
}

}  // namespace

Result<MatchExpressionPtr> ParseMod(const OperatorArgs& args) {
  auto bad = [](const char* reason) { return Status(ErrorCode::kBadValue, reason); };
  if (!BSON_ITER_HOLDS_ARRAY(args.op)) return bad("malformed mod, needs to be an array");
  bson_iter_t it;
  bson_iter_recurse(args.op, &it);
  if (!bson_iter_next(&it)) return bad("malformed mod, not enough elements");
  bson_iter_t divisor_elem = it;
  if (!IterIsNumber(&divisor_elem)) return bad("malformed mod, divisor not a number");
  if (!bson_iter_next(&it)) return bad("malformed mod, not enough elements");
  bson_iter_t remainder_elem = it;
  if (!IterIsNumber(&remainder_elem)) return bad("malformed mod, remainder not a number");
  if (bson_iter_next(&it)) return bad("malformed mod, too many elements");
  int64_t divisor = 0, remainder = 0;
  Status s = Coerce(&divisor_elem, &divisor);
  if (!s.ok()) return s.WithContext("malformed mod, divisor value is invalid");
  s = Coerce(&remainder_elem, &remainder);
  if (!s.ok()) return s.WithContext("malformed mod, remainder value is invalid");
  if (divisor == 0) return bad("divisor cannot be 0");
  return MatchExpressionPtr(std::make_unique<ModMatchExpression>(args.path, divisor, remainder));
}

}  // namespace internal
}  // namespace cairn::query
