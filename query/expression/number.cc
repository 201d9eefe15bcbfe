// Number rules (number.h): coercions, integral tests, decimal conversions and message renderings,
// as MongoDB's Value (document_value/value.cpp) and Decimal128 define them.
#include "query/expression/number.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "common/bson_compare.h"
#include "common/decimal128.h"

namespace cairn::query {

namespace {

constexpr double kLongMaxPlusOneAsDouble = 9223372036854775808.0;  // 2^63

bool DoubleIsInt32(double d) {
  return d >= std::numeric_limits<int32_t>::min() && d <= std::numeric_limits<int32_t>::max() &&
         std::trunc(d) == d;
}

bool DoubleIsInt64(double d) {
  return d >= -kLongMaxPlusOneAsDouble && d < kLongMaxPlusOneAsDouble && std::trunc(d) == d;
}

Status CoerceError(int code_number, const Value& v, std::string_view target) {
  ErrorCode code = code_number == 16003   ? ErrorCode::kLocation16003
                   : code_number == 16004 ? ErrorCode::kLocation16004
                                          : ErrorCode::kLocation16005;
  return Status(code, "can't convert from BSON type " + std::string(TypeName(v)) + " to " +
                          std::string(target));
}

}  // namespace

bool IsIntegral32(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_INT32:
      return !v.missing();
    case BSON_TYPE_INT64:
      return v.int64() >= std::numeric_limits<int32_t>::min() &&
             v.int64() <= std::numeric_limits<int32_t>::max();
    case BSON_TYPE_DOUBLE:
      return DoubleIsInt32(v.dbl());
    case BSON_TYPE_DECIMAL128: {
      int64_t i = 0;
      return DecimalToInt64Exact(v.decimal(), &i) && i >= std::numeric_limits<int32_t>::min() &&
             i <= std::numeric_limits<int32_t>::max();
    }
    default:
      return false;
  }
}

bool IsIntegral64(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
      return !v.missing();
    case BSON_TYPE_DOUBLE:
      return DoubleIsInt64(v.dbl());
    case BSON_TYPE_DECIMAL128: {
      int64_t i = 0;
      return DecimalToInt64Exact(v.decimal(), &i);
    }
    default:
      return false;
  }
}

Result<int32_t> CoerceToInt(const Value& v) {
  auto range_error = [](const std::string& shown) {
    return Status(ErrorCode::kLocation31108,
                  "Can't coerce out of range value " + shown + " to int");
  };
  switch (v.type()) {
    case BSON_TYPE_INT32:
      return v.int32();
    case BSON_TYPE_INT64: {
      int64_t i = v.int64();
      if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
        return range_error(std::to_string(i));
      }
      return static_cast<int32_t>(i);
    }
    case BSON_TYPE_DOUBLE: {
      double d = v.dbl();
      if (!(d >= std::numeric_limits<int32_t>::min() && d <= std::numeric_limits<int32_t>::max())) {
        return range_error(FormatDouble(d));
      }
      return static_cast<int32_t>(d);
    }
    case BSON_TYPE_DECIMAL128: {
      double d = DecimalToDouble(v.decimal());
      if (!(d >= std::numeric_limits<int32_t>::min() && d <= std::numeric_limits<int32_t>::max())) {
        return range_error(FormatDouble(d));
      }
      return static_cast<int32_t>(std::nearbyint(d));  // Decimal128::toInt rounds half to even
    }
    default:
      return CoerceError(16003, v, "int");
  }
}

Result<int64_t> CoerceToLong(const Value& v) {
  auto range_error = [](double d) {
    return Status(ErrorCode::kLocation31109,
                  "Can't coerce out of range value " + FormatDouble(d) + " to long");
  };
  switch (v.type()) {
    case BSON_TYPE_INT32:
      return static_cast<int64_t>(v.int32());
    case BSON_TYPE_INT64:
      return v.int64();
    case BSON_TYPE_DOUBLE: {
      double d = v.dbl();
      if (!(d >= -kLongMaxPlusOneAsDouble && d < kLongMaxPlusOneAsDouble)) return range_error(d);
      return static_cast<int64_t>(d);
    }
    case BSON_TYPE_DECIMAL128: {
      double d = DecimalToDouble(v.decimal());
      if (!(d >= -kLongMaxPlusOneAsDouble && d < kLongMaxPlusOneAsDouble)) return range_error(d);
      int64_t exact = 0;
      if (DecimalToInt64Exact(v.decimal(), &exact)) return exact;
      return static_cast<int64_t>(std::nearbyint(d));  // Decimal128::toLong rounds half to even
    }
    default:
      return CoerceError(16004, v, "long");
  }
}

Result<double> CoerceToDouble(const Value& v) {
  if (!v.numeric()) return CoerceError(16005, v, "double");
  return NumberAsDouble(v);
}

double NumberAsDouble(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_INT32:
      return v.int32();
    case BSON_TYPE_INT64:
      return static_cast<double>(v.int64());
    case BSON_TYPE_DOUBLE:
      return v.dbl();
    case BSON_TYPE_DECIMAL128:
      return DecimalToDouble(v.decimal());
    default:
      return 0;
  }
}

bson_decimal128_t DecimalFromInt64(int64_t i) { return dec128::FromInt64(i); }

bson_decimal128_t DecimalFromDouble(double x) {
  bson_decimal128_t d;
  if (std::isnan(x)) {
    bson_decimal128_from_string("NaN", &d);
  } else if (std::isinf(x)) {
    bson_decimal128_from_string(x > 0 ? "Infinity" : "-Infinity", &d);
  } else if (x == 0) {
    bson_decimal128_from_string(std::signbit(x) ? "-0" : "0", &d);
  } else {
    // 15 significant digits: d.dddddddddddddde±X → coefficient dddddddddddddddd, exponent X-14.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.14e", x);
    std::string digits;
    const char* p = buf;
    bool negative = false;
    if (*p == '-') {
      negative = true;
      ++p;
    }
    for (; *p != 'e'; ++p) {
      if (*p != '.') digits.push_back(*p);
    }
    int exponent = std::atoi(p + 1) - 14;
    std::string text = (negative ? "-" : "") + digits + "E" + std::to_string(exponent);
    bson_decimal128_from_string(text.c_str(), &d);
  }
  return d;
}

std::string DecimalToString(const bson_decimal128_t& d) {
  char buf[BSON_DECIMAL128_STRING];
  bson_decimal128_to_string(&d, buf);
  return buf;
}

double DecimalToDouble(const bson_decimal128_t& d) { return dec128::ToDouble(d); }

bool DecimalIsNaN(const bson_decimal128_t& d) { return dec128::IsNaN(d); }

bool DecimalIsInfinite(const bson_decimal128_t& d) { return dec128::IsInfinite(d); }

bool DecimalIsZero(const bson_decimal128_t& d) { return dec128::IsZero(d); }

bool DecimalIsNegative(const bson_decimal128_t& d) { return dec128::IsNegative(d); }

std::optional<int64_t> DecimalToInt64Truncated(const bson_decimal128_t& d) {
  return dec128::ToInt64(d, dec128::Rounding::kTowardZero);
}

bson_decimal128_t NumberAsDecimal(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_INT32:
      return DecimalFromInt64(v.int32());
    case BSON_TYPE_INT64:
      return DecimalFromInt64(v.int64());
    case BSON_TYPE_DOUBLE:
      return DecimalFromDouble(v.dbl());
    default:
      return v.decimal();
  }
}

std::string FormatDouble(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

std::string ValueToString(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_EOD:
      return "MISSING";
    case BSON_TYPE_UTF8:
      return "\"" + std::string(v.string()) + "\"";
    case BSON_TYPE_DOUBLE:
      return FormatDouble(v.dbl());
    case BSON_TYPE_INT32:
      return std::to_string(v.int32());
    case BSON_TYPE_INT64:
      return std::to_string(v.int64());
    case BSON_TYPE_DECIMAL128:
      return DecimalToString(v.decimal());
    case BSON_TYPE_BOOL:
      return v.boolean() ? "true" : "false";
    case BSON_TYPE_NULL:
      return "null";
    case BSON_TYPE_UNDEFINED:
      return "undefined";
    case BSON_TYPE_MINKEY:
      return "MinKey";
    case BSON_TYPE_MAXKEY:
      return "MaxKey";
    case BSON_TYPE_OID: {
      char hex[25];
      bson_oid_to_string(v.oid(), hex);
      return hex;
    }
    case BSON_TYPE_DATE_TIME:
      return FormatIsoDate(v.date());
    case BSON_TYPE_ARRAY:
    case BSON_TYPE_DOCUMENT: {  // [1, 2] and Document::toString's {a: 1, b: "x"}
      const bool document = v.type() == BSON_TYPE_DOCUMENT;
      std::string out = document ? "{" : "[";
      bson_iter_t it;
      bool first = true;
      if (v.Recurse(&it)) {
        while (bson_iter_next(&it)) {
          if (!first) out += ", ";
          first = false;
          if (document) out.append(IterKey(&it)).append(": ");
          out += ValueToString(v.Child(&it));
        }
      }
      return out + (document ? "}" : "]");
    }
    default: {
      bson_iter_t it = v.iter();
      return ValueToShellString(&it);
    }
  }
}

std::string_view TypeName(const Value& v) { return BsonTypeName(v.type()); }

std::string FormatIsoDate(int64_t millis) {
  // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm), UTC.
  int64_t days = millis / 86400000;
  int64_t ms_of_day = millis % 86400000;
  if (ms_of_day < 0) {
    ms_of_day += 86400000;
    --days;
  }
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  char buf[64];
  std::snprintf(
      buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ",
      static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
      static_cast<long long>(ms_of_day / 3600000), static_cast<long long>(ms_of_day / 60000 % 60),
      static_cast<long long>(ms_of_day / 1000 % 60), static_cast<long long>(ms_of_day % 1000));
  return buf;
}

}  // namespace cairn::query
