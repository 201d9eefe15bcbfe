// Type conversion: $convert ({input, to, onError, onNull}) and its shortcuts $toBool $toDate
// $toDecimal $toDouble $toInt $toLong $toObjectId $toString, following MongoDB's conversion table
// (which input types convert to which target types, and how: doubles truncate to integers,
// strings parse strictly, numbers print with "%g", dates print in ISO format). A failed
// conversion is ConversionFailure (241), which onError catches; other errors pass through.
// Decimal128 conversions work in both directions without decimal arithmetic: libbson parses and
// prints decimal strings.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

constexpr bson_type_t kMissingType = BSON_TYPE_EOD;  // "missing" as a target type

std::string TypeOf(const Value& v) { return TypeNameOf(v); }

Status Failure(std::string message) {
  return Status(ErrorCode::kConversionFailure, std::move(message));
}

Status Overflow(const std::string& shown) {
  return Failure("Conversion would overflow target type in $convert with no onError value: " +
                 shown);
}

// typeFromName (plus "missing", which $type can produce).
std::optional<bson_type_t> TypeFromName(std::string_view name) {
  static constexpr std::pair<std::string_view, bson_type_t> kNames[] = {
      {"double", BSON_TYPE_DOUBLE},
      {"string", BSON_TYPE_UTF8},
      {"object", BSON_TYPE_DOCUMENT},
      {"array", BSON_TYPE_ARRAY},
      {"binData", BSON_TYPE_BINARY},
      {"undefined", BSON_TYPE_UNDEFINED},
      {"objectId", BSON_TYPE_OID},
      {"bool", BSON_TYPE_BOOL},
      {"date", BSON_TYPE_DATE_TIME},
      {"null", BSON_TYPE_NULL},
      {"regex", BSON_TYPE_REGEX},
      {"dbPointer", BSON_TYPE_DBPOINTER},
      {"javascript", BSON_TYPE_CODE},
      {"symbol", BSON_TYPE_SYMBOL},
      {"javascriptWithScope", BSON_TYPE_CODEWSCOPE},
      {"int", BSON_TYPE_INT32},
      {"timestamp", BSON_TYPE_TIMESTAMP},
      {"long", BSON_TYPE_INT64},
      {"decimal", BSON_TYPE_DECIMAL128},
      {"minKey", BSON_TYPE_MINKEY},
      {"maxKey", BSON_TYPE_MAXKEY},
      {"missing", kMissingType},
  };
  for (const auto& [n, t] : kNames) {
    if (n == name) return t;
  }
  return std::nullopt;
}

// ExpressionConvert::computeTargetType.
Result<bson_type_t> TargetType(const Value& to) {
  if (to.is_string()) {
    std::optional<bson_type_t> type = TypeFromName(to.string());
    if (!type)
      return Status(ErrorCode::kBadValue, "Unknown type name: " + std::string(to.string()));
    return *type;
  }
  if (to.numeric()) {
    if (!IsIntegral32(to)) {
      return Status(ErrorCode::kFailedToParse,
                    "In $convert, numeric 'to' argument is not an integer");
    }
    CAIRN_ASSIGN_OR_RETURN(int32_t code, CoerceToInt(to));
    if (code == -1) return BSON_TYPE_MINKEY;
    if ((code >= 0 && code <= 19) || code == 127) return static_cast<bson_type_t>(code);
    return Status(ErrorCode::kFailedToParse,
                  "In $convert, numeric value for 'to' does not correspond to a BSON type: " +
                      std::to_string(code));
  }
  return Status(ErrorCode::kFailedToParse,
                "$convert's 'to' argument must be a string or number, but is " + TypeOf(to));
}

Status Unsupported(bson_type_t from, bson_type_t to) {
  return Failure("Unsupported conversion from " + std::string(BsonTypeName(from)) + " to " +
                 std::string(BsonTypeName(to)) + " in $convert with no onError value");
}

Result<int64_t> DoubleToLong(double d) {
  if (std::isnan(d)) {
    return Failure(
        "Attempt to convert NaN value to integer type in $convert with no onError value");
  }
  if (std::isinf(d)) {
    return Failure(
        "Attempt to convert infinity value to integer type in $convert with no onError value");
  }
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return Overflow(FormatDouble(d));
  return static_cast<int64_t>(d);
}

Result<int64_t> DecimalToLong(const bson_decimal128_t& d) {
  if (DecimalIsNaN(d)) {
    return Failure(
        "Attempt to convert NaN value to integer type in $convert with no onError value");
  }
  if (DecimalIsInfinite(d)) {
    return Failure(
        "Attempt to convert infinity value to integer type in $convert with no onError value");
  }
  std::optional<int64_t> i = DecimalToInt64Truncated(d);
  if (!i) return Overflow(DecimalToString(d));
  return *i;
}

// NumberParser: the whole string, no whitespace, no hexadecimal.
Result<Value> ParseStringToNumber(std::string_view s, bson_type_t target) {
  std::string text(s);
  auto fail = [&](const std::string& reason) {
    return Failure("Failed to parse number '" + text +
                   "' in $convert with no onError value: " + reason);
  };
  if (s.substr(0, 2) == "0x") {
    return Failure("Illegal hexadecimal input in $convert with no onError value: " + text);
  }
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return fail("No digits");
  if (target == BSON_TYPE_DECIMAL128) {
    bson_decimal128_t d;
    if (!bson_decimal128_from_string(text.c_str(), &d)) {
      return fail("Failed to parse string to decimal");
    }
    return Value::Decimal(d);
  }
  char* end = nullptr;
  errno = 0;
  if (target == BSON_TYPE_DOUBLE) {
    double d = std::strtod(text.c_str(), &end);
    if (end == text.c_str()) return fail("No digits");
    if (*end != '\0') return fail("Did not consume whole string.");
    if (errno == ERANGE && std::isinf(d)) return fail("Out of range");
    return Value::Double(d);
  }
  long long i = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str()) return fail("No digits");
  if (*end != '\0') return fail("Did not consume whole string.");
  if (errno == ERANGE) return fail("Out of range");
  if (target == BSON_TYPE_INT32) {
    if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
      return fail("Out of range");
    }
    return Value::Int32(static_cast<int32_t>(i));
  }
  return Value::Int64(i);
}

// TimeZoneDatabase::fromString for the ISO-8601 forms: YYYY-MM-DD, optionally followed by
// THH:MM[:SS[.fff]] and Z or ±HH[:]MM.
Result<int64_t> ParseDateString(std::string_view s) {
  auto fail = [&]() { return Failure("Error parsing date string '" + std::string(s) + "'"); };
  auto digits = [&](size_t pos, size_t n, int* out) {
    if (pos + n > s.size()) return false;
    int v = 0;
    for (size_t i = pos; i < pos + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
      v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
  };
  int year, month, day, hour = 0, minute = 0, second = 0, millis = 0;
  if (!digits(0, 4, &year) || s.size() < 10 || s[4] != '-' || !digits(5, 2, &month) ||
      s[7] != '-' || !digits(8, 2, &day)) {
    return fail();
  }
  size_t pos = 10;
  int64_t offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
    if (!digits(pos + 1, 2, &hour) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !digits(pos + 4, 2, &minute)) {
      return fail();
    }
    pos += 6;
    if (pos < s.size() && s[pos] == ':') {
      if (!digits(pos + 1, 2, &second)) return fail();
      pos += 3;
      if (pos < s.size() && s[pos] == '.') {
        size_t start = ++pos;
        int scale = 100;
        while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
          millis += (s[pos] - '0') * scale;
          scale /= 10;
          ++pos;
        }
        if (pos == start) return fail();
      }
    }
    if (pos < s.size()) {
      if (s[pos] == 'Z') {
        ++pos;
      } else if (s[pos] == '+' || s[pos] == '-') {
        int oh = 0, om = 0;
        int sign = s[pos] == '-' ? -1 : 1;
        if (!digits(pos + 1, 2, &oh)) return fail();
        size_t next = pos + 3;
        if (next < s.size() && s[next] == ':') ++next;
        if (next < s.size() && !digits(next, 2, &om)) return fail();
        if (next < s.size()) next += 2;
        offset_minutes = sign * (oh * 60 + om);
        pos = next;
      }
    }
  }
  if (pos != s.size() || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 60) {
    return fail();
  }
  // Days from civil (Howard Hinnant's algorithm).
  int64_t y = year - (month <= 2 ? 1 : 0);
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = era * 146097 + doe - 719468;
  return ((days * 24 + hour) * 60 + minute - offset_minutes) * 60000 + second * 1000 + millis;
}

Result<Value> Convert(const Value& input, bson_type_t target) {
  const bson_type_t from = input.type();
  if (target == BSON_TYPE_BOOL) {
    switch (from) {
      case BSON_TYPE_DOUBLE:
      case BSON_TYPE_INT32:
      case BSON_TYPE_INT64:
      case BSON_TYPE_DECIMAL128:
      case BSON_TYPE_DATE_TIME:
      case BSON_TYPE_BOOL:
        return Value::Bool(input.Truthy());
      case BSON_TYPE_NULL:
      case BSON_TYPE_UNDEFINED:
      case BSON_TYPE_EOD:
        return Unsupported(from, target);
      default:
        return Value::Bool(true);  // strings, objects, arrays, ObjectIds, ...
    }
  }
  if (from == target) {
    switch (from) {
      case BSON_TYPE_DOUBLE:
      case BSON_TYPE_UTF8:
      case BSON_TYPE_OID:
      case BSON_TYPE_DATE_TIME:
      case BSON_TYPE_INT32:
      case BSON_TYPE_INT64:
      case BSON_TYPE_DECIMAL128:
        return input;  // the identity conversions of the table
      default:
        return Unsupported(from, target);
    }
  }
  switch (from) {
    case BSON_TYPE_DOUBLE: {
      double d = input.dbl();
      switch (target) {
        case BSON_TYPE_UTF8:
          if (std::isinf(d)) return Value::String(d < 0 ? "-Infinity" : "Infinity");
          if (std::isnan(d)) return Value::String("NaN");
          if (d == 0 && std::signbit(d)) return Value::String("-0");
          return Value::String(FormatDouble(d));
        case BSON_TYPE_DATE_TIME: {
          CAIRN_ASSIGN_OR_RETURN(int64_t ms, DoubleToLong(d));
          return Value::Date(ms);
        }
        case BSON_TYPE_INT32: {
          if (std::isnan(d) || std::isinf(d)) return DoubleToLong(d).status();
          if (!(d >= std::numeric_limits<int32_t>::lowest() &&
                d <= std::numeric_limits<int32_t>::max())) {
            return Overflow(FormatDouble(d));
          }
          return Value::Int32(static_cast<int32_t>(d));
        }
        case BSON_TYPE_INT64: {
          CAIRN_ASSIGN_OR_RETURN(int64_t i, DoubleToLong(d));
          return Value::Int64(i);
        }
        case BSON_TYPE_DECIMAL128:
          return Value::Decimal(DecimalFromDouble(d));
        default:
          break;
      }
      break;
    }
    case BSON_TYPE_UTF8: {
      std::string_view s = input.string();
      switch (target) {
        case BSON_TYPE_DOUBLE:
        case BSON_TYPE_INT32:
        case BSON_TYPE_INT64:
        case BSON_TYPE_DECIMAL128:
          return ParseStringToNumber(s, target);
        case BSON_TYPE_OID: {
          std::string text(s);
          if (text.size() != 24) {
            return Failure("Failed to parse objectId '" + text +
                           "' in $convert with no onError value: Invalid string length for "
                           "parsing to OID, expected 24 but found " +
                           std::to_string(text.size()));
          }
          for (char c : text) {
            if (!std::isxdigit(static_cast<unsigned char>(c))) {
              return Failure("Failed to parse objectId '" + text +
                             "' in $convert with no onError value: Invalid character found in "
                             "hex string: '" +
                             text + "'");
            }
          }
          bson_oid_t oid;
          bson_oid_init_from_string(&oid, text.c_str());
          return Value::Oid(oid);
        }
        case BSON_TYPE_DATE_TIME: {
          CAIRN_ASSIGN_OR_RETURN(int64_t ms, ParseDateString(s));
          return Value::Date(ms);
        }
        default:
          break;
      }
      break;
    }
    case BSON_TYPE_OID:
      if (target == BSON_TYPE_UTF8) {
        char hex[25];
        bson_oid_to_string(input.oid(), hex);
        return Value::String(hex);
      }
      if (target == BSON_TYPE_DATE_TIME) {
        return Value::Date(static_cast<int64_t>(bson_oid_get_time_t(input.oid())) * 1000);
      }
      break;
    case BSON_TYPE_BOOL: {
      bool b = input.boolean();
      switch (target) {
        case BSON_TYPE_DOUBLE:
          return Value::Double(b ? 1.0 : 0.0);
        case BSON_TYPE_UTF8:
          return Value::String(b ? "true" : "false");
        case BSON_TYPE_INT32:
          return Value::Int32(b ? 1 : 0);
        case BSON_TYPE_INT64:
          return Value::Int64(b ? 1 : 0);
        case BSON_TYPE_DECIMAL128:
          return Value::Decimal(DecimalFromInt64(b ? 1 : 0));
        default:
          break;
      }
      break;
    }
    case BSON_TYPE_DATE_TIME: {
      int64_t ms = input.date();
      switch (target) {
        case BSON_TYPE_DOUBLE:
          return Value::Double(static_cast<double>(ms));
        case BSON_TYPE_UTF8:
          return Value::String(FormatIsoDate(ms));
        case BSON_TYPE_INT64:
          return Value::Int64(ms);
        case BSON_TYPE_DECIMAL128:
          return Value::Decimal(DecimalFromInt64(ms));
        default:
          break;
      }
      break;
    }
    case BSON_TYPE_TIMESTAMP:
      if (target == BSON_TYPE_DATE_TIME) {
        bson_iter_t it = input.iter();
        uint32_t seconds = 0, increment = 0;
        bson_iter_timestamp(&it, &seconds, &increment);
        return Value::Date(static_cast<int64_t>(seconds) * 1000);
      }
      break;
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64: {
      int64_t i = from == BSON_TYPE_INT32 ? input.int32() : input.int64();
      switch (target) {
        case BSON_TYPE_DOUBLE:
          return Value::Double(static_cast<double>(i));
        case BSON_TYPE_UTF8:
          return Value::String(std::to_string(i));
        case BSON_TYPE_INT64:
          return Value::Int64(i);
        case BSON_TYPE_DECIMAL128:
          return Value::Decimal(DecimalFromInt64(i));
        case BSON_TYPE_INT32:
          if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
            return Overflow("");
          }
          return Value::Int32(static_cast<int32_t>(i));
        case BSON_TYPE_DATE_TIME:
          if (from == BSON_TYPE_INT64) return Value::Date(i);
          break;
        default:
          break;
      }
      break;
    }
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t d = input.decimal();
      switch (target) {
        case BSON_TYPE_DOUBLE: {
          double x = DecimalToDouble(d);
          if (std::isinf(x) && !DecimalIsInfinite(d)) return Overflow(DecimalToString(d));
          return Value::Double(x);
        }
        case BSON_TYPE_UTF8:
          return Value::String(DecimalToString(d));
        case BSON_TYPE_DATE_TIME: {
          CAIRN_ASSIGN_OR_RETURN(int64_t ms, DecimalToLong(d));
          return Value::Date(ms);
        }
        case BSON_TYPE_INT64: {
          CAIRN_ASSIGN_OR_RETURN(int64_t i, DecimalToLong(d));
          return Value::Int64(i);
        }
        case BSON_TYPE_INT32: {
          Result<int64_t> i = DecimalToLong(d);
          if (!i.ok()) return i.status();
          if (*i < std::numeric_limits<int32_t>::min() ||
              *i > std::numeric_limits<int32_t>::max()) {
            return Overflow(DecimalToString(d));
          }
          return Value::Int32(static_cast<int32_t>(*i));
        }
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
  return Unsupported(from, target);
}

// Operands: [input, to, onError, onNull].
Result<Value> EvalConvert(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value to, op.Eval(1, vars));
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(0, vars));
  std::optional<bson_type_t> target;
  if (!to.nullish()) {
    CAIRN_ASSIGN_OR_RETURN(target, TargetType(to));
  }
  if (input.nullish()) return op.has(3) ? op.Eval(3, vars) : Result<Value>(Value::Null());
  if (!target) return Value::Null();
  Result<Value> converted = Convert(input, *target);
  if (!converted.ok() && converted.status().code() == ErrorCode::kConversionFailure && op.has(2)) {
    return op.Eval(2, vars);
  }
  return converted;
}

}  // namespace

Result<ExpressionPtr> ParseConvert(const bson_iter_t* arg, std::string_view name,
                                   ParseContext& ctx) {
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) {
    return Status(ErrorCode::kFailedToParse,
                  "$convert expects an object of named arguments but found: " +
                      std::string(BsonTypeName(bson_iter_type(arg))));
  }
  std::vector<ExpressionPtr> operands(4);  // input, to, onError, onNull
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    size_t slot = field == "input"     ? 0
                  : field == "to"      ? 1
                  : field == "onError" ? 2
                  : field == "onNull"  ? 3
                                       : 4;
    if (slot == 4) {
      return Status(ErrorCode::kFailedToParse,
                    "$convert found an unknown argument: " + std::string(field));
    }
    CAIRN_ASSIGN_OR_RETURN(operands[slot], ParseOperand(&it, ctx));
  }
  if (!operands[0]) {
    return Status(ErrorCode::kFailedToParse, "Missing 'input' parameter to $convert");
  }
  if (!operands[1]) return Status(ErrorCode::kFailedToParse, "Missing 'to' parameter to $convert");
  return ExpressionPtr(
      std::make_unique<OperatorExpression>(name, std::move(operands), EvalConvert));
}

Result<ExpressionPtr> ParseConversionAlias(const bson_iter_t* arg, std::string_view name,
                                           ParseContext& ctx) {
  CAIRN_ASSIGN_OR_RETURN(std::vector<ExpressionPtr> operands, ParseArguments(arg, ctx));
  if (operands.size() != 1) {
    return Status(
        ErrorCode::kLocation50723,
        std::string(name) + " requires a single argument, got " + std::to_string(operands.size()));
  }
  std::string_view target = name == "$toBool"       ? "bool"
                            : name == "$toDate"     ? "date"
                            : name == "$toDecimal"  ? "decimal"
                            : name == "$toDouble"   ? "double"
                            : name == "$toInt"      ? "int"
                            : name == "$toLong"     ? "long"
                            : name == "$toObjectId" ? "objectId"
                                                    : "string";
  operands.push_back(MakeConstant(Value::String(target)));
  operands.resize(4);
  return ExpressionPtr(
      std::make_unique<OperatorExpression>("$convert", std::move(operands), EvalConvert));
}

}  // namespace cairn::query::ops
