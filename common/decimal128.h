// Decimal128 arithmetic on libbson's bson_decimal128_t (IEEE 754-2008 decimal128, BID encoding),
// as MongoDB's Decimal128 class does it: Intel's Decimal Floating-Point Math Library, 34 digits,
// round half to even unless told otherwise, NaN and ±Infinity propagating, IEEE status flags
// ignored. Stateless and thread-safe (the rounding mode and flags are arguments, never globals).
// The query layer's type rules (which operand widens to decimal, and how a double becomes one)
// live in query/expression/number.h; this module only computes.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <optional>

namespace cairn::dec128 {

// IEEE 754 rounding-direction attributes, as MongoDB's Decimal128::RoundingMode names them.
enum class Rounding {
  kTiesToEven,
  kTowardNegative,
  kTowardPositive,
  kTowardZero,
  kTiesToAway,
};

bson_decimal128_t FromInt64(int64_t value);
// The double's binary value rounded to 34 significant digits (MongoDB's kRoundTo34Digits, used for
// running double totals that widen to decimal). The 15-digit conversion MongoDB applies to a
// double operand (coerceToDecimal) is query::DecimalFromDouble.
bson_decimal128_t FromDoubleTo34Digits(double value);
// The exact value of a decimal string ("1.50", "-Infinity", "NaN"); NaN when malformed.
bson_decimal128_t FromString(const char* text);

bson_decimal128_t Add(const bson_decimal128_t& a, const bson_decimal128_t& b);
bson_decimal128_t Subtract(const bson_decimal128_t& a, const bson_decimal128_t& b);
bson_decimal128_t Multiply(const bson_decimal128_t& a, const bson_decimal128_t& b);
// a / b; division by zero gives ±Infinity (NaN for 0/0): callers that refuse it check IsZero.
bson_decimal128_t Divide(const bson_decimal128_t& a, const bson_decimal128_t& b);
// The remainder of a / b truncated toward zero, with a's sign (fmod; Decimal128::modulo).
bson_decimal128_t Mod(const bson_decimal128_t& a, const bson_decimal128_t& b);
bson_decimal128_t Abs(const bson_decimal128_t& a);
bson_decimal128_t Negate(const bson_decimal128_t& a);

bson_decimal128_t Sqrt(const bson_decimal128_t& a);
bson_decimal128_t Exp(const bson_decimal128_t& a);
bson_decimal128_t Ln(const bson_decimal128_t& a);
bson_decimal128_t Log10(const bson_decimal128_t& a);
// log_base(a): log2/log10 directly for those bases, else ln(a) / ln(base) (Decimal128::logarithm).
bson_decimal128_t Log(const bson_decimal128_t& a, const bson_decimal128_t& base);
bson_decimal128_t Pow(const bson_decimal128_t& base, const bson_decimal128_t& exponent);

// `a` with exactly `places` digits after the point (its exponent set to -places), rounded as
// told; NaN when the result needs more than 34 digits (Decimal128::quantize's invalid operation).
bson_decimal128_t Quantize(const bson_decimal128_t& a, int64_t places, Rounding rounding);

bool IsNaN(const bson_decimal128_t& a);
bool IsInfinite(const bson_decimal128_t& a);
bool IsZero(const bson_decimal128_t& a);
// The sign bit (true for -0 and -Infinity too).
bool IsNegative(const bson_decimal128_t& a);
// Numeric equality (1.0 == 1.00); false when either is NaN.
bool Equal(const bson_decimal128_t& a, const bson_decimal128_t& b);
// Bit-for-bit identity (1.0 and 1.00 differ), as SafeNum::isIdentical compares.
bool Identical(const bson_decimal128_t& a, const bson_decimal128_t& b);

// The nearest double (round half to even); NaN and ±Infinity map to themselves.
double ToDouble(const bson_decimal128_t& a);
// Rounded to an integer as told, then converted; nullopt when NaN, infinite or out of range.
std::optional<int64_t> ToInt64(const bson_decimal128_t& a, Rounding rounding);

}  // namespace cairn::dec128
