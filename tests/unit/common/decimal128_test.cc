// Decimal128 arithmetic (common/decimal128.h): exact decimal results as MongoDB's Decimal128
// gives them (0.1 + 0.2 == 0.3, trailing zeros kept), special values, rounding and conversions.
#include "common/decimal128.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace cairn::dec128 {
namespace {

bson_decimal128_t D(const char* s) { return FromString(s); }

std::string S(const bson_decimal128_t& d) {
  char buf[BSON_DECIMAL128_STRING];
  bson_decimal128_to_string(&d, buf);
  return buf;
}

struct BinaryCase {
  const char* a;
  const char* b;
  const char* add;
  const char* sub;
  const char* mul;
  const char* div;
};

TEST(Decimal128Test, BasicArithmeticIsExact) {
  const BinaryCase cases[] = {
      {"0.1", "0.2", "0.3", "-0.1", "0.02", "0.5"},
      {"1.50", "2", "3.50", "-0.50", "3.00", "0.75"},
      {"10", "4", "14", "6", "40", "2.5"},
      {"1", "3", "4", "-2", "3", "0.3333333333333333333333333333333333"},
      {"-5", "0.5", "-4.5", "-5.5", "-2.5", "-1E+1"},
      {"Infinity", "1", "Infinity", "Infinity", "Infinity", "Infinity"},
      {"NaN", "1", "NaN", "NaN", "NaN", "NaN"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.a) + " op " + c.b);
    EXPECT_EQ(S(Add(D(c.a), D(c.b))), c.add);
    EXPECT_EQ(S(Subtract(D(c.a), D(c.b))), c.sub);
    EXPECT_EQ(S(Multiply(D(c.a), D(c.b))), c.mul);
    EXPECT_EQ(S(Divide(D(c.a), D(c.b))), c.div);
  }
}

TEST(Decimal128Test, DivisionByZeroGivesInfinityOrNaN) {
  EXPECT_EQ(S(Divide(D("1"), D("0"))), "Infinity");
  EXPECT_EQ(S(Divide(D("-1"), D("0"))), "-Infinity");
  EXPECT_EQ(S(Divide(D("0"), D("0"))), "NaN");
}

TEST(Decimal128Test, ModKeepsTheDividendsSign) {
  EXPECT_EQ(S(Mod(D("7.5"), D("2"))), "1.5");
  EXPECT_EQ(S(Mod(D("-7"), D("3"))), "-1");
  EXPECT_EQ(S(Mod(D("7"), D("-3"))), "1");
}

TEST(Decimal128Test, AbsAndNegate) {
  EXPECT_EQ(S(Abs(D("-2.50"))), "2.50");
  EXPECT_EQ(S(Negate(D("2.50"))), "-2.50");
  EXPECT_EQ(S(Abs(D("-Infinity"))), "Infinity");
}

TEST(Decimal128Test, QuantizeRoundsHalfEvenOrTowardZero) {
  struct Case {
    const char* in;
    int64_t places;
    Rounding rounding;
    const char* out;
  } cases[] = {
      {"2.5", 0, Rounding::kTiesToEven, "2"},
      {"3.5", 0, Rounding::kTiesToEven, "4"},
      {"1.2345", 2, Rounding::kTiesToEven, "1.23"},
      {"1.235", 2, Rounding::kTiesToEven, "1.24"},
      {"-1.239", 2, Rounding::kTowardZero, "-1.23"},
      {"1234", -2, Rounding::kTiesToEven, "1.2E+3"},
      {"1.5", 3, Rounding::kTiesToEven, "1.500"},
      {"1.5", 0, Rounding::kTowardPositive, "2"},
      {"-1.5", 0, Rounding::kTowardNegative, "-2"},
      {"1E+40", 0, Rounding::kTiesToEven, "NaN"},  // needs more than 34 digits
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.in) + " places " + std::to_string(c.places));
    EXPECT_EQ(S(Quantize(D(c.in), c.places, c.rounding)), c.out);
  }
}

TEST(Decimal128Test, Predicates) {
  EXPECT_TRUE(IsNaN(D("NaN")));
  EXPECT_TRUE(IsInfinite(D("-Infinity")));
  EXPECT_TRUE(IsZero(D("-0.00")));
  EXPECT_FALSE(IsZero(D("0.001")));
  EXPECT_TRUE(IsNegative(D("-0")));
  EXPECT_TRUE(Equal(D("1.0"), D("1.00")));
  EXPECT_FALSE(Identical(D("1.0"), D("1.00")));
  EXPECT_FALSE(Equal(D("NaN"), D("NaN")));
}

TEST(Decimal128Test, Conversions) {
  EXPECT_EQ(S(FromInt64(-42)), "-42");
  EXPECT_EQ(S(FromInt64(INT64_MIN)), "-9223372036854775808");
  EXPECT_DOUBLE_EQ(ToDouble(D("0.1")), 0.1);
  EXPECT_TRUE(std::isinf(ToDouble(D("Infinity"))));
  EXPECT_EQ(ToInt64(D("2.5"), Rounding::kTiesToEven), 2);
  EXPECT_EQ(ToInt64(D("-2.7"), Rounding::kTowardZero), -2);
  EXPECT_EQ(ToInt64(D("1E+30"), Rounding::kTowardZero), std::nullopt);
  EXPECT_EQ(ToInt64(D("NaN"), Rounding::kTowardZero), std::nullopt);
}

TEST(Decimal128Test, Transcendentals) {
  EXPECT_EQ(S(Sqrt(D("2.25"))), "1.5");
  EXPECT_EQ(S(Pow(D("2"), D("10"))), "1024");
  EXPECT_EQ(S(Log10(D("1000"))), "3");
  EXPECT_EQ(S(Log(D("8"), D("2"))), "3");
  EXPECT_EQ(S(Ln(D("1"))), "0");
  EXPECT_EQ(S(Exp(D("0"))), "1");
}

}  // namespace
}  // namespace cairn::dec128
