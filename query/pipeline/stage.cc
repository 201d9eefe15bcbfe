// Helpers shared by the stage files (stage.h): MongoDB's rendering of a stage argument in error
// messages, and the integer argument rule of $skip/$limit.
#include "query/pipeline/stage.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace cairn::query {

namespace {

// StringBuilder::appendDoubleNice: %.16g, plus ".0" when that shows no '.', 'E' or 'N'.
std::string DoubleNice(double d) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.16g", d);
  std::string out(buf);
  if (out.find('.') == std::string::npos && out.find('E') == std::string::npos &&
      out.find('N') == std::string::npos) {
    out += ".0";
  }
  return out;
}

std::string DecimalString(const bson_iter_t* it) {
  bson_decimal128_t dec;
  bson_iter_decimal128(it, &dec);
  char s[BSON_DECIMAL128_STRING];
  bson_decimal128_to_string(&dec, s);
  return s;
}

}  // namespace

std::string RenderElement(const bson_iter_t* it) {
  std::string out(IterKey(it));
  out += ": ";
  switch (bson_iter_type(it)) {
    case BSON_TYPE_DOUBLE:
      out += DoubleNice(bson_iter_double(it));
      break;
    case BSON_TYPE_DECIMAL128:
      out += DecimalString(it);
      break;
    default:
      out += ValueToShellString(it);
      break;
  }
  return out;
}

Result<int64_t> ParseNonNegativeInteger(const bson_iter_t* spec) {
  auto fail = [&](const char* what) {
    return Status(ErrorCode::kFailedToParse, std::string(what) + RenderElement(spec));
  };
  int64_t number = 0;
  switch (bson_iter_type(spec)) {
    case BSON_TYPE_INT32:
      number = bson_iter_int32(spec);
      break;
    case BSON_TYPE_INT64:
      number = bson_iter_int64(spec);
      break;
    case BSON_TYPE_DOUBLE: {
      double d = bson_iter_double(spec);
      if (std::isnan(d)) return fail("Expected an integer, but found NaN in: ");
      // 2^63 is the first double past int64's range.
      if (d >= 9223372036854775808.0 ||
          d < static_cast<double>(std::numeric_limits<int64_t>::min())) {
        return fail("Cannot represent as a 64-bit integer: ");
      }
      if (d != static_cast<double>(static_cast<int64_t>(d))) return fail("Expected an integer: ");
      number = static_cast<int64_t>(d);
      break;
    }
    case BSON_TYPE_DECIMAL128: {
      // Decimal128::toLongExact: any inexact or out-of-range value is "Cannot represent".
      std::string text = DecimalString(spec);
      char* end = nullptr;
      long double value = std::strtold(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || std::isnan(value) || std::isinf(value) ||
          std::truncl(value) != value || value >= 9223372036854775808.0L ||
          value < -9223372036854775808.0L) {
        return fail("Cannot represent as a 64-bit integer: ");
      }
      number = static_cast<int64_t>(value);
      break;
    }
    default:
      return fail("Expected a number in: ");
  }
  if (number < 0) return fail("Expected a non-negative number in: ");
  return number;
}

}  // namespace cairn::query
