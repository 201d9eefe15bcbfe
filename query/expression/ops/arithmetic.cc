// Arithmetic operators: $add (numbers and one date) $subtract (numbers and dates) $multiply
// $divide $mod $abs $ceil $floor $round $trunc $exp $ln $log $log10 $pow $sqrt, with MongoDB
// 7.0's type rules: the narrowest result that holds the value (int32 → int64 when an int32
// result outgrows it → double when int64 overflows), null for a null or missing operand, and
// its error codes. Any decimal128 operand makes the result decimal (the other operands widen
// through coerceToDecimal: doubles to 15 significant digits); the decimal arithmetic itself is
// common/decimal128.h.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "common/decimal128.h"
#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

constexpr int64_t kLongMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();

bool IsDecimal(const Value& v) { return v.type() == BSON_TYPE_DECIMAL128; }

// The domain test of $ln/$log/$log10 on decimals: greater than zero, or NaN.
bool PositiveOrNaN(const bson_decimal128_t& d) {
  return dec128::IsNaN(d) || (!dec128::IsZero(d) && !dec128::IsNegative(d));
}

// Value::getWidestNumeric over int32 < int64 < double < decimal; EOD when either is not a number.
bson_type_t WidestNumeric(bson_type_t a, bson_type_t b) {
  auto rank = [](bson_type_t t) {
    switch (t) {
      case BSON_TYPE_INT32:
        return 1;
      case BSON_TYPE_INT64:
        return 2;
      case BSON_TYPE_DOUBLE:
        return 3;
      case BSON_TYPE_DECIMAL128:
        return 4;
      default:
        return 0;
    }
  };
  int ra = rank(a), rb = rank(b);
  if (ra == 0 || rb == 0) return BSON_TYPE_EOD;
  return ra >= rb ? a : b;
}

// ExpressionSingleNumericArg: null for a nullish operand, 28765 for a non-number.
Result<Value> SingleNumeric(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
  if (v.nullish()) return Value::Null();
  if (!v.numeric()) {
    return Status(ErrorCode::kLocation28765,
                  std::string(op.name()) + " only supports numeric types, not " + TypeNameOf(v));
  }
  return v;
}

// On the first decimal operand, the running total (or product) of $add/$multiply so far becomes
// a decimal: an integral one exactly, a double one rounded to 34 digits (kRoundTo34Digits).
bson_decimal128_t RunningAsDecimal(bson_type_t old_type, double as_double, int64_t as_long) {
  return old_type == BSON_TYPE_DOUBLE ? dec128::FromDoubleTo34Digits(as_double)
                                      : dec128::FromInt64(as_long);
}

// The running sum of $add (AddState): an int64 total until a double arrives or int64 overflows.
class AddState {
 public:
  Status Add(const Value& v) {
    bson_type_t old_widest = widest_;
    int64_t as_long = 0;
    double as_double = 0;
    if (v.type() == BSON_TYPE_DATE_TIME) {
      if (is_date_) {
        return Status(ErrorCode::kLocation16612, "only one date allowed in an $add expression");
      }
      is_date_ = true;
      as_long = v.date();
      as_double = static_cast<double>(as_long);
    } else {
      widest_ = WidestNumeric(widest_, v.type());
      if (widest_ == BSON_TYPE_DECIMAL128) {
        if (old_widest != BSON_TYPE_DECIMAL128) {
          decimal_total_ = RunningAsDecimal(old_widest, double_total_, long_total_);
        }
        decimal_total_ = dec128::Add(decimal_total_, NumberAsDecimal(v));
        return Status::OK();
      }
      as_double = NumberAsDouble(v);
      if (v.type() != BSON_TYPE_DOUBLE)
        as_long = v.type() == BSON_TYPE_INT32 ? v.int32() : v.int64();
    }
    if (widest_ == BSON_TYPE_DECIMAL128) {  // a date after a decimal
      decimal_total_ = dec128::Add(decimal_total_, dec128::FromInt64(as_long));
      return Status::OK();
    }
    if (old_widest != widest_ && widest_ == BSON_TYPE_DOUBLE) double_total_ = long_total_;
    if (widest_ == BSON_TYPE_DOUBLE) {
      double_total_ += as_double;
      return Status::OK();
    }
    int64_t sum = 0;
    if (__builtin_add_overflow(long_total_, as_long, &sum)) {
      // int64 overflow: continue in double from the pre-overflow total.
      widest_ = BSON_TYPE_DOUBLE;
      double_total_ = static_cast<double>(long_total_) + as_double;
    } else {
      long_total_ = sum;
    }
    return Status::OK();
  }

  Result<Value> Finish() const {
    if (is_date_) {
      if (widest_ == BSON_TYPE_DECIMAL128) {
        std::optional<int64_t> millis =
            dec128::ToInt64(decimal_total_, dec128::Rounding::kTiesToEven);
        if (!millis) return Status(ErrorCode::kOverflow, "date overflow in $add");
        return Value::Date(*millis);
      }
      if (widest_ != BSON_TYPE_DOUBLE) return Value::Date(long_total_);
      if (!(double_total_ >= static_cast<double>(kLongMin) &&
            double_total_ < static_cast<double>(kLongMax))) {
        return Status(ErrorCode::kOverflow, "date overflow in $add");
      }
      return Value::Date(std::llround(double_total_));
    }
    switch (widest_) {
      case BSON_TYPE_INT64:
        return Value::Int64(long_total_);
      case BSON_TYPE_DOUBLE:
        return Value::Double(double_total_);
      case BSON_TYPE_DECIMAL128:
        return Value::Decimal(decimal_total_);
      default:
        return Value::IntOrLong(long_total_);
    }
  }

 private:
  int64_t long_total_ = 0;
  double double_total_ = 0;
  bson_decimal128_t decimal_total_{};
  bson_type_t widest_ = BSON_TYPE_INT32;
  bool is_date_ = false;
};

// The running product of $multiply (MultiplyState).
class MultiplyState {
 public:
  Status Multiply(const Value& v) {
    bson_type_t old_type = product_type_;
    product_type_ = WidestNumeric(product_type_, v.type());
    if (product_type_ == BSON_TYPE_DECIMAL128) {
      if (old_type != BSON_TYPE_DECIMAL128) {
        decimal_product_ = RunningAsDecimal(old_type, double_product_, long_product_);
      }
      decimal_product_ = dec128::Multiply(decimal_product_, NumberAsDecimal(v));
      return Status::OK();
    }
    double d = NumberAsDouble(v);
    double_product_ *= d;
    if (product_type_ != BSON_TYPE_DOUBLE) {
      int64_t factor = v.type() == BSON_TYPE_INT32 ? v.int32() : v.int64();
      if (__builtin_mul_overflow(long_product_, factor, &long_product_)) {
        product_type_ = BSON_TYPE_DOUBLE;
      }
    }
    return Status::OK();
  }

  Value Finish() const {
    switch (product_type_) {
      case BSON_TYPE_DOUBLE:
        return Value::Double(double_product_);
      case BSON_TYPE_DECIMAL128:
        return Value::Decimal(decimal_product_);
      case BSON_TYPE_INT64:
        return Value::Int64(long_product_);
      default:
        return Value::IntOrLong(long_product_);
    }
  }

 private:
  double double_product_ = 1;
  int64_t long_product_ = 1;
  bson_decimal128_t decimal_product_{};
  bson_type_t product_type_ = BSON_TYPE_INT32;
};

// Rounds the decimal digits of `x` (its value taken to 34 significant digits, as MongoDB's
// Decimal128(double, kRoundTo34Digits) does) to `places` decimal places, half to even or toward
// zero; NaN when the result would need more than 34 digits (Decimal128::quantize's invalid
// operation).
double RoundDoubleDecimal(double x, int64_t places, bool half_even) {
  if (x == 0 || std::isnan(x) || std::isinf(x)) return x;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.33e", x);
  bool negative = buf[0] == '-';
  std::string digits;
  const char* p = buf + (negative ? 1 : 0);
  for (; *p != 'e'; ++p) {
    if (*p != '.') digits.push_back(*p);
  }
  int64_t exponent = std::atoll(p + 1);    // x = d.ddd… × 10^exponent
  int64_t last_digit_exp = exponent - 33;  // the exponent of digits.back()
  if (exponent + 1 + places > 34) return std::nan("");
  if (last_digit_exp >= -places) return x;  // no digit below the quantum
  int64_t drop = -places - last_digit_exp;  // digits to remove from the right
  std::string kept;
  std::string dropped;
  if (drop >= static_cast<int64_t>(digits.size())) {
    kept = "0";
    dropped =
        std::string(static_cast<size_t>(drop - static_cast<int64_t>(digits.size())), '0') + digits;
  } else {
    kept = digits.substr(0, digits.size() - static_cast<size_t>(drop));
    dropped = digits.substr(digits.size() - static_cast<size_t>(drop));
  }
  bool round_up = false;
  if (half_even) {
    char first = dropped[0];
    bool rest_zero = dropped.find_first_not_of('0', 1) == std::string::npos;
    if (first > '5' || (first == '5' && !rest_zero)) {
      round_up = true;
    } else if (first == '5' && rest_zero) {
      round_up = ((kept.back() - '0') % 2) == 1;
    }
  }
  if (round_up) {
    int i = static_cast<int>(kept.size()) - 1;
    while (i >= 0 && kept[static_cast<size_t>(i)] == '9') kept[static_cast<size_t>(i--)] = '0';
    if (i < 0) {
      kept.insert(kept.begin(), '1');
    } else {
      ++kept[static_cast<size_t>(i)];
    }
  }
  std::string text = (negative ? "-" : "") + kept + "e" + std::to_string(-places);
  return std::strtod(text.c_str(), nullptr);
}

// $round / $trunc (evaluateRoundOrTrunc): precision in [-20, 100]; integers are only touched
// by a negative precision.
Result<Value> RoundOrTrunc(const OperatorExpression& op, Variables* vars, bool half_even) {
  CAIRN_ASSIGN_OR_RETURN(Value number, op.Eval(0, vars));
  if (number.nullish()) return Value::Null();
  if (!number.numeric()) {
    return Status(
        ErrorCode::kLocation51081,
        std::string(op.name()) + " only supports numeric types, not " + TypeNameOf(number));
  }
  int64_t places = 0;
  if (op.size() > 1) {
    CAIRN_ASSIGN_OR_RETURN(Value precision, op.Eval(1, vars));
    if (precision.nullish()) return Value::Null();
    CAIRN_ASSIGN_OR_RETURN(places, CoerceToLong(precision));
    if (!IsIntegral32(precision)) {
      return Status(ErrorCode::kLocation51082, "precision argument to  " + std::string(op.name()) +
                                                   " must be a integral value");
    }
    if (places < -20 || places > 100) {
      return Status(ErrorCode::kLocation51083,
                    "cannot apply " + std::string(op.name()) + " with precision value " +
                        std::to_string(places) + " value must be in [-20, 100]");
    }
  }
  switch (number.type()) {
    case BSON_TYPE_DECIMAL128: {
      const bson_decimal128_t& d = number.decimal();
      if (dec128::IsInfinite(d)) return number;
      return Value::Decimal(dec128::Quantize(
          d, places, half_even ? dec128::Rounding::kTiesToEven : dec128::Rounding::kTowardZero));
    }
    case BSON_TYPE_DOUBLE:
      return Value::Double(RoundDoubleDecimal(number.dbl(), places, half_even));
    default: {
      if (places >= 0) return number;
      int64_t v = number.type() == BSON_TYPE_INT32 ? number.int32() : number.int64();
      __int128 quantum = 1;
      for (int64_t i = 0; i < -places; ++i) quantum *= 10;
      __int128 q = static_cast<__int128>(v) / quantum;
      __int128 r = static_cast<__int128>(v) % quantum;
      if (half_even && r != 0) {
        __int128 twice = (r < 0 ? -r : r) * 2;
        if (twice > quantum || (twice == quantum && (q % 2 != 0))) q += (v < 0 ? -1 : 1);
      }
      __int128 rounded = q * quantum;
      if (rounded < kLongMin || rounded > kLongMax) {
        return Status(ErrorCode::kLocation51080,
                      "invalid conversion from Decimal128 result in " + std::string(op.name()) +
                          " resulting from arguments: [" + std::to_string(v) + ", " +
                          std::to_string(places) + "]");
      }
      int64_t out = static_cast<int64_t>(rounded);
      if (number.type() == BSON_TYPE_INT64 || out > std::numeric_limits<int32_t>::max() ||
          out < std::numeric_limits<int32_t>::min()) {
        return Value::Int64(out);
      }
      return Value::Int32(static_cast<int32_t>(out));
    }
  }
}

// Whether base^exp (both integers, exp in [0, 63]) fits an int64 (ExpressionPow's table, here
// checked by exact repeated multiplication in 128 bits).
bool PowFitsLong(int64_t base, int64_t exp) {
  __int128 result = 1;
  for (int64_t i = 0; i < exp; ++i) {
    result *= base;
    if (result > kLongMax || result < kLongMin) return false;
  }
  return true;
}

}  // namespace

Result<Value> EvalAdd(const OperatorExpression& op, Variables* vars) {
  AddState state;
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (v.nullish()) return Value::Null();
    if (!v.numeric() && v.type() != BSON_TYPE_DATE_TIME) {
      return Status(ErrorCode::kTypeMismatch,
                    "$add only supports numeric or date types, not " + TypeNameOf(v));
    }
    CAIRN_RETURN_IF_ERROR(state.Add(v));
  }
  return state.Finish();
}

Result<Value> EvalSubtract(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value lhs, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value rhs, op.Eval(1, vars));
  switch (WidestNumeric(rhs.type(), lhs.type())) {
    case BSON_TYPE_DECIMAL128:
      return Value::Decimal(dec128::Subtract(NumberAsDecimal(lhs), NumberAsDecimal(rhs)));
    case BSON_TYPE_DOUBLE:
      return Value::Double(NumberAsDouble(lhs) - NumberAsDouble(rhs));
    case BSON_TYPE_INT64: {
      int64_t l = lhs.type() == BSON_TYPE_INT32 ? lhs.int32() : lhs.int64();
      int64_t r = rhs.type() == BSON_TYPE_INT32 ? rhs.int32() : rhs.int64();
      int64_t diff = 0;
      if (__builtin_sub_overflow(l, r, &diff)) {
        return Value::Double(static_cast<double>(l) - static_cast<double>(r));
      }
      return Value::Int64(diff);
    }
    case BSON_TYPE_INT32:
      return Value::IntOrLong(static_cast<int64_t>(lhs.int32()) - rhs.int32());
    default:
      break;
  }
  if (lhs.nullish() || rhs.nullish()) return Value::Null();
  if (lhs.type() == BSON_TYPE_DATE_TIME) {
    if (rhs.type() == BSON_TYPE_DATE_TIME) return Value::Int64(lhs.date() - rhs.date());
    if (rhs.numeric()) {
      CAIRN_ASSIGN_OR_RETURN(int64_t millis, CoerceToLong(rhs));
      return Value::Date(lhs.date() - millis);
    }
    return Status(ErrorCode::kTypeMismatch, "can't $subtract " + TypeNameOf(rhs) + " from Date");
  }
  return Status(ErrorCode::kTypeMismatch,
                "can't $subtract " + TypeNameOf(rhs) + " from " + TypeNameOf(lhs));
}

Result<Value> EvalMultiply(const OperatorExpression& op, Variables* vars) {
  MultiplyState state;
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (v.nullish()) return Value::Null();
    if (!v.numeric()) {
      return Status(ErrorCode::kTypeMismatch,
                    "$multiply only supports numeric types, not " + TypeNameOf(v));
    }
    CAIRN_RETURN_IF_ERROR(state.Multiply(v));
  }
  return state.Finish();
}

Result<Value> EvalDivide(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value lhs, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value rhs, op.Eval(1, vars));
  if (lhs.numeric() && rhs.numeric()) {
    if (IsDecimal(lhs) || IsDecimal(rhs)) {
      bson_decimal128_t denominator = NumberAsDecimal(rhs);
      if (dec128::IsZero(denominator)) {
        return Status(ErrorCode::kBadValue, "can't $divide by zero");
      }
      return Value::Decimal(dec128::Divide(NumberAsDecimal(lhs), denominator));
    }
    double denominator = NumberAsDouble(rhs);
    if (denominator == 0) return Status(ErrorCode::kBadValue, "can't $divide by zero");
    return Value::Double(NumberAsDouble(lhs) / denominator);
  }
  if (lhs.nullish() || rhs.nullish()) return Value::Null();
  return Status(ErrorCode::kTypeMismatch, "$divide only supports numeric types, not " +
                                              TypeNameOf(lhs) + " and " + TypeNameOf(rhs));
}

Result<Value> EvalMod(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value lhs, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value rhs, op.Eval(1, vars));
  if (lhs.numeric() && rhs.numeric()) {
    if (IsDecimal(lhs) || IsDecimal(rhs)) {
      bson_decimal128_t right = NumberAsDecimal(rhs);
      if (dec128::IsZero(right)) return Status(ErrorCode::kLocation16610, "can't $mod by zero");
      return Value::Decimal(dec128::Mod(NumberAsDecimal(lhs), right));
    }
    double right = NumberAsDouble(rhs);
    if (right == 0) return Status(ErrorCode::kLocation16610, "can't $mod by zero");
    if (lhs.type() == BSON_TYPE_DOUBLE || (rhs.type() == BSON_TYPE_DOUBLE && !IsIntegral32(rhs))) {
      return Value::Double(std::fmod(NumberAsDouble(lhs), right));
    }
    if (lhs.type() == BSON_TYPE_INT64 || rhs.type() == BSON_TYPE_INT64) {
      CAIRN_ASSIGN_OR_RETURN(int64_t l, CoerceToLong(lhs));
      CAIRN_ASSIGN_OR_RETURN(int64_t r, CoerceToLong(rhs));
      return Value::Int64(r == -1 ? 0 : l % r);  // overflow::safeMod
    }
    CAIRN_ASSIGN_OR_RETURN(int32_t l, CoerceToInt(lhs));
    CAIRN_ASSIGN_OR_RETURN(int32_t r, CoerceToInt(rhs));
    return Value::Int32(r == -1 ? 0 : l % r);
  }
  if (lhs.nullish() || rhs.nullish()) return Value::Null();
  return Status(ErrorCode::kLocation16611, "$mod only supports numeric types, not " +
                                               TypeNameOf(lhs) + " and " + TypeNameOf(rhs));
}

Result<Value> EvalAbs(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, SingleNumeric(op, vars));
  switch (v.type()) {
    case BSON_TYPE_DOUBLE:
      return Value::Double(std::fabs(v.dbl()));
    case BSON_TYPE_DECIMAL128:
      return Value::Decimal(dec128::Abs(v.decimal()));
    case BSON_TYPE_INT32:
      return Value::IntOrLong(std::llabs(static_cast<int64_t>(v.int32())));
    case BSON_TYPE_INT64:
      if (v.int64() == kLongMin) {
        return Status(ErrorCode::kLocation28680, "can't take $abs of long long min");
      }
      return Value::Int64(std::llabs(v.int64()));
    default:
      return v;  // null
  }
}

Result<Value> EvalCeil(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, SingleNumeric(op, vars));
  if (v.type() == BSON_TYPE_DOUBLE) return Value::Double(std::ceil(v.dbl()));
  if (IsDecimal(v)) {  // to the integer above, with exponent 0 (quantize, as MongoDB does)
    return Value::Decimal(dec128::Quantize(v.decimal(), 0, dec128::Rounding::kTowardPositive));
  }
  return v;
}

Result<Value> EvalFloor(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, SingleNumeric(op, vars));
  if (v.type() == BSON_TYPE_DOUBLE) return Value::Double(std::floor(v.dbl()));
  if (IsDecimal(v)) {
    return Value::Decimal(dec128::Quantize(v.decimal(), 0, dec128::Rounding::kTowardNegative));
  }
  return v;
}

Result<Value> EvalExp(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, SingleNumeric(op, vars));
  if (v.type() == BSON_TYPE_NULL) return v;
  if (IsDecimal(v)) return Value::Decimal(dec128::Exp(v.decimal()));
  return Value::Double(std::exp(NumberAsDouble(v)));
}

// $ln and $log10: a logarithm of one positive (or NaN) number, `code` when it is not.
Result<Value> EvalLogarithm(const OperatorExpression& op, Variables* vars, ErrorCode code,
                            std::string_view name,
                            bson_decimal128_t (*of_decimal)(const bson_decimal128_t&),
                            double (*of_double)(double)) {
  CAIRN_ASSIGN_OR_RETURN(Value v, SingleNumeric(op, vars));
  if (v.type() == BSON_TYPE_NULL) return v;
  const std::string not_positive =
      std::string(name) + "'s argument must be a positive number, but is ";
  if (IsDecimal(v)) {
    const bson_decimal128_t& d = v.decimal();
    if (!PositiveOrNaN(d)) return Status(code, not_positive + DecimalToString(d));
    return Value::Decimal(of_decimal(d));
  }
  double x = NumberAsDouble(v);
  if (!(x > 0 || std::isnan(x))) return Status(code, not_positive + FormatDouble(x));
  return Value::Double(of_double(x));
}

Result<Value> EvalLn(const OperatorExpression& op, Variables* vars) {
  return EvalLogarithm(op, vars, ErrorCode::kLocation28766, "$ln", dec128::Ln,
                       [](double x) { return std::log(x); });
}

Result<Value> EvalLog10(const OperatorExpression& op, Variables* vars) {
  return EvalLogarithm(op, vars, ErrorCode::kLocation28761, "$log10", dec128::Log10,
                       [](double x) { return std::log10(x); });
}

Result<Value> EvalLog(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value arg, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value base, op.Eval(1, vars));
  if (arg.nullish() || base.nullish()) return Value::Null();
  if (!arg.numeric()) {
    return Status(ErrorCode::kLocation28756,
                  "$log's argument must be numeric, not " + TypeNameOf(arg));
  }
  if (!base.numeric()) {
    return Status(ErrorCode::kLocation28757,
                  "$log's base must be numeric, not " + TypeNameOf(base));
  }
  if (IsDecimal(arg) || IsDecimal(base)) {
    bson_decimal128_t x = NumberAsDecimal(arg);
    bson_decimal128_t b = NumberAsDecimal(base);
    if (!PositiveOrNaN(x)) {
      return Status(ErrorCode::kLocation28758,
                    "$log's argument must be a positive number, but is " + DecimalToString(x));
    }
    if (!(dec128::IsNaN(b) || (PositiveOrNaN(b) && !dec128::Equal(b, dec128::FromInt64(1))))) {
      return Status(
          ErrorCode::kLocation28759,
          "$log's base must be a positive number not equal to 1, but is " + DecimalToString(b));
    }
    return Value::Decimal(dec128::Log(x, b));
  }
  double x = NumberAsDouble(arg);
  double b = NumberAsDouble(base);
  if (!(x > 0 || std::isnan(x))) {
    return Status(ErrorCode::kLocation28758,
                  "$log's argument must be a positive number, but is " + FormatDouble(x));
  }
  if (!((b > 0 && b != 1) || std::isnan(b))) {
    return Status(
        ErrorCode::kLocation28759,
        "$log's base must be a positive number not equal to 1, but is " + FormatDouble(b));
  }
  return Value::Double(std::log(x) / std::log(b));
}

Result<Value> EvalSqrt(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value v, SingleNumeric(op, vars));
  if (v.type() == BSON_TYPE_NULL) return v;
  if (IsDecimal(v)) {
    const bson_decimal128_t& d = v.decimal();
    if (!dec128::IsNaN(d) && !dec128::IsZero(d) && dec128::IsNegative(d)) {
      return Status(ErrorCode::kLocation28714,
                    "$sqrt's argument must be greater than or equal to 0");
    }
    return Value::Decimal(dec128::Sqrt(d));
  }
  double x = NumberAsDouble(v);
  if (x < 0) {
    return Status(ErrorCode::kLocation28714, "$sqrt's argument must be greater than or equal to 0");
  }
  return Value::Double(std::sqrt(x));
}

Result<Value> EvalPow(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value base, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value exp, op.Eval(1, vars));
  if (base.nullish() || exp.nullish()) return Value::Null();
  if (!base.numeric()) {
    return Status(ErrorCode::kLocation28762,
                  "$pow's base must be numeric, not " + TypeNameOf(base));
  }
  if (!exp.numeric()) {
    return Status(ErrorCode::kLocation28763,
                  "$pow's exponent must be numeric, not " + TypeNameOf(exp));
  }
  if (IsDecimal(base) || IsDecimal(exp)) {
    bson_decimal128_t b = NumberAsDecimal(base);
    bson_decimal128_t e = NumberAsDecimal(exp);
    if (dec128::IsZero(b) && !dec128::IsZero(e) && dec128::IsNegative(e) && !dec128::IsNaN(e)) {
      return Status(ErrorCode::kLocation28764,
                    "$pow cannot take a base of 0 and a negative exponent");
    }
    return Value::Decimal(dec128::Pow(b, e));
  }
  double b = NumberAsDouble(base);
  double e = NumberAsDouble(exp);
  if (b == 0 && e < 0) {
    return Status(ErrorCode::kLocation28764,
                  "$pow cannot take a base of 0 and a negative exponent");
  }
  if (base.type() == BSON_TYPE_DOUBLE || exp.type() == BSON_TYPE_DOUBLE) {
    return Value::Double(std::pow(b, e));
  }
  const bool long_result = base.type() == BSON_TYPE_INT64 || exp.type() == BSON_TYPE_INT64;
  auto format = [long_result](int64_t r) {
    return long_result ? Value::Int64(r) : Value::IntOrLong(r);
  };
  int64_t bl = base.type() == BSON_TYPE_INT32 ? base.int32() : base.int64();
  int64_t el = exp.type() == BSON_TYPE_INT32 ? exp.int32() : exp.int64();
  if (bl == 0) return format(el == 0 ? 1 : 0);
  if (bl == 1) return format(1);
  if (bl == -1) return format(el % 2 == 0 ? 1 : -1);
  if (el > 63 || el < 0 || !PowFitsLong(bl, el)) {
    return Value::Double(std::pow(static_cast<double>(bl), static_cast<double>(el)));
  }
  int64_t result = 1;
  for (int64_t i = 0; i < el; ++i) result *= bl;
  return format(result);
}

Result<Value> EvalRound(const OperatorExpression& op, Variables* vars) {
  return RoundOrTrunc(op, vars, /*half_even=*/true);
}

Result<Value> EvalTrunc(const OperatorExpression& op, Variables* vars) {
  return RoundOrTrunc(op, vars, /*half_even=*/false);
}

}  // namespace cairn::query::ops
