// Decimal128 arithmetic through Intel's BID library (see decimal128.h). libbson's
// bson_decimal128_t and the library's BID_UINT128 are the same 128 bits (low word first on
// little-endian machines), so values cross by memcpy, never through strings.
#include "common/decimal128.h"

#include <cstring>

// The library's "000" build: no call by reference, rounding mode and status flags as arguments.
#define DECIMAL_CALL_BY_REFERENCE 0
#define DECIMAL_GLOBAL_ROUNDING 0
#define DECIMAL_GLOBAL_EXCEPTION_FLAGS 0
extern "C" {
#include <bid_conf.h>
#include <bid_functions.h>
}

namespace cairn::dec128 {

namespace {

static_assert(sizeof(BID_UINT128) == sizeof(bson_decimal128_t));

BID_UINT128 In(const bson_decimal128_t& d) {
  BID_UINT128 out;
  std::memcpy(&out, &d, sizeof out);
  return out;
}

bson_decimal128_t Out(const BID_UINT128& d) {
  bson_decimal128_t out;
  std::memcpy(&out, &d, sizeof out);
  return out;
}

_IDEC_round ModeOf(Rounding r) {
  switch (r) {
    case Rounding::kTowardNegative:
      return BID_ROUNDING_DOWN;
    case Rounding::kTowardPositive:
      return BID_ROUNDING_UP;
    case Rounding::kTowardZero:
      return BID_ROUNDING_TO_ZERO;
    case Rounding::kTiesToAway:
      return BID_ROUNDING_TIES_AWAY;
    default:
      return BID_ROUNDING_TO_NEAREST;
  }
}

constexpr _IDEC_round kEven = BID_ROUNDING_TO_NEAREST;

}  // namespace

bson_decimal128_t FromInt64(int64_t value) { return Out(bid128_from_int64(value)); }

bson_decimal128_t FromDoubleTo34Digits(double value) {
  _IDEC_flags flags = 0;
  return Out(binary64_to_bid128(value, kEven, &flags));
}

bson_decimal128_t FromString(const char* text) {
  bson_decimal128_t out;
  if (!bson_decimal128_from_string(text, &out)) {
    bson_decimal128_from_string("NaN", &out);
  }
  return out;
}

bson_decimal128_t Add(const bson_decimal128_t& a, const bson_decimal128_t& b) {
  _IDEC_flags flags = 0;
  return Out(bid128_add(In(a), In(b), kEven, &flags));
}

bson_decimal128_t Subtract(const bson_decimal128_t& a, const bson_decimal128_t& b) {
  _IDEC_flags flags = 0;
  return Out(bid128_sub(In(a), In(b), kEven, &flags));
}

bson_decimal128_t Multiply(const bson_decimal128_t& a, const bson_decimal128_t& b) {
  _IDEC_flags flags = 0;
  return Out(bid128_mul(In(a), In(b), kEven, &flags));
}

bson_decimal128_t Divide(const bson_decimal128_t& a, const bson_decimal128_t& b) {
  _IDEC_flags flags = 0;
  return Out(bid128_div(In(a), In(b), kEven, &flags));
}

bson_decimal128_t Mod(const bson_decimal128_t& a, const bson_decimal128_t& b) {
  _IDEC_flags flags = 0;
  return Out(bid128_fmod(In(a), In(b), &flags));
}

bson_decimal128_t Abs(const bson_decimal128_t& a) { return Out(bid128_abs(In(a))); }

bson_decimal128_t Negate(const bson_decimal128_t& a) { return Out(bid128_negate(In(a))); }

bson_decimal128_t Sqrt(const bson_decimal128_t& a) {
  _IDEC_flags flags = 0;
  return Out(bid128_sqrt(In(a), kEven, &flags));
}

bson_decimal128_t Exp(const bson_decimal128_t& a) {
  _IDEC_flags flags = 0;
  return Out(bid128_exp(In(a), kEven, &flags));
}

bson_decimal128_t Ln(const bson_decimal128_t& a) {
  _IDEC_flags flags = 0;
  return Out(bid128_log(In(a), kEven, &flags));
}

bson_decimal128_t Log10(const bson_decimal128_t& a) {
  _IDEC_flags flags = 0;
  return Out(bid128_log10(In(a), kEven, &flags));
}

bson_decimal128_t Log(const bson_decimal128_t& a, const bson_decimal128_t& base) {
  _IDEC_flags flags = 0;
  if (Equal(base, FromInt64(2))) return Out(bid128_log2(In(a), kEven, &flags));
  if (Equal(base, FromInt64(10))) return Log10(a);
  return Divide(Ln(a), Ln(base));
}

bson_decimal128_t Pow(const bson_decimal128_t& base, const bson_decimal128_t& exponent) {
  _IDEC_flags flags = 0;
  return Out(bid128_pow(In(base), In(exponent), kEven, &flags));
}

bson_decimal128_t Quantize(const bson_decimal128_t& a, int64_t places, Rounding rounding) {
  _IDEC_flags flags = 0;
  // The quantum 1E-places: coefficient 1, exponent -places.
  BID_UINT128 quantum = bid128_scalbln(bid128_from_int32(1), -places, kEven, &flags);
  flags = 0;
  return Out(bid128_quantize(In(a), quantum, ModeOf(rounding), &flags));
}

bool IsNaN(const bson_decimal128_t& a) { return bid128_isNaN(In(a)) != 0; }
bool IsInfinite(const bson_decimal128_t& a) { return bid128_isInf(In(a)) != 0; }
bool IsZero(const bson_decimal128_t& a) { return bid128_isZero(In(a)) != 0; }
bool IsNegative(const bson_decimal128_t& a) { return bid128_isSigned(In(a)) != 0; }

bool Equal(const bson_decimal128_t& a, const bson_decimal128_t& b) {
  _IDEC_flags flags = 0;
  return bid128_quiet_equal(In(a), In(b), &flags) != 0;
}

bool Identical(const bson_decimal128_t& a, const bson_decimal128_t& b) {
  return a.low == b.low && a.high == b.high;
}

double ToDouble(const bson_decimal128_t& a) {
  _IDEC_flags flags = 0;
  return bid128_to_binary64(In(a), kEven, &flags);
}

std::optional<int64_t> ToInt64(const bson_decimal128_t& a, Rounding rounding) {
  _IDEC_flags flags = 0;
  BID_UINT128 x = In(a);
  int64_t out = 0;
  switch (rounding) {
    case Rounding::kTowardNegative:
      out = bid128_to_int64_floor(x, &flags);
      break;
    case Rounding::kTowardPositive:
      out = bid128_to_int64_ceil(x, &flags);
      break;
    case Rounding::kTowardZero:
      out = bid128_to_int64_int(x, &flags);
      break;
    case Rounding::kTiesToAway:
      out = bid128_to_int64_rninta(x, &flags);
      break;
    default:
      out = bid128_to_int64_rnint(x, &flags);
      break;
  }
  if (flags & BID_INVALID_EXCEPTION) return std::nullopt;
  return out;
}

}  // namespace cairn::dec128
