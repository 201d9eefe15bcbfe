// Number rules shared by the operator families: MongoDB's Value coercions (coerceToInt,
// coerceToLong, coerceToDouble with their error codes), the integral tests (integral(),
// integral64Bit()), Decimal128 conversions (the arithmetic itself is common/decimal128.h), and the
// renderings MongoDB uses for numbers and values in messages. Stateless.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "query/expression/value.h"

namespace cairn::query {

// Value::integral(): a number exactly representable as an int32.
bool IsIntegral32(const Value& v);
// Value::integral64Bit(): a number exactly representable as an int64.
bool IsIntegral64(const Value& v);

// Value::coerceToInt / coerceToLong / coerceToDouble: numbers only (16003 / 16004 / 16005
// "can't convert from BSON type X to int|long|double"), in range (31108 / 31109), truncating.
Result<int32_t> CoerceToInt(const Value& v);
Result<int64_t> CoerceToLong(const Value& v);
Result<double> CoerceToDouble(const Value& v);
// Any number as a double (decimal through its nearest double); requires numeric().
double NumberAsDouble(const Value& v);

// Decimal128 conversions.
bson_decimal128_t DecimalFromInt64(int64_t i);
// MongoDB's Decimal128(double): the double rounded to exactly 15 significant digits (0, ±inf and
// NaN convert directly): 2.5 → 2.50000000000000.
bson_decimal128_t DecimalFromDouble(double d);
std::string DecimalToString(const bson_decimal128_t& d);
double DecimalToDouble(const bson_decimal128_t& d);
bool DecimalIsNaN(const bson_decimal128_t& d);
bool DecimalIsInfinite(const bson_decimal128_t& d);
bool DecimalIsZero(const bson_decimal128_t& d);
bool DecimalIsNegative(const bson_decimal128_t& d);
// Truncates toward zero into an int64; nullopt when NaN, infinite or out of range.
std::optional<int64_t> DecimalToInt64Truncated(const bson_decimal128_t& d);
// Any number as a decimal (doubles through DecimalFromDouble).
bson_decimal128_t NumberAsDecimal(const Value& v);

// A double as MongoDB's ostream/str::stream prints it ("%g": 1.5, 1e+20, inf, nan).
std::string FormatDouble(double d);
// A value as MongoDB's Value::toString prints it in messages ("abc" quoted, 1.5, [1, 2], ...).
std::string ValueToString(const Value& v);
// A date as MongoDB's ISO format prints it (UTC): 2024-01-31T12:00:00.000Z.
std::string FormatIsoDate(int64_t millis);
// MongoDB's typeName of the value's type ("missing" for missing).
std::string_view TypeName(const Value& v);

}  // namespace cairn::query
