// DoubleDoubleSum (summation.h): Fast2Sum (Dekker) and 2Sum (Møller, Knuth) error-free
// transformations; see Boldo, Graillat, Muller, "On the robustness of the 2Sum and Fast2Sum
// algorithms" (2016).
#include "query/pipeline/accumulators/summation.h"

#include <cmath>
#include <limits>

#include "common/decimal128.h"

namespace cairn::query {

namespace {

struct Pair {
  double hi;
  double lo;
};

// Exact a + b for |a| >= |b|.
Pair FastTwoSum(double a, double b) {
  double s = a + b;
  double z = s - a;
  return {s, b - z};
}

// Exact a + b for any a, b.
Pair TwoSum(double a, double b) {
  double s = a + b;
  double a_part = s - b;
  double b_part = s - a_part;
  return {s, (a - a_part) + (b - b_part)};
}

constexpr double kLongMin = static_cast<double>(std::numeric_limits<int64_t>::min());  // -2^63
constexpr double kLongMaxPlusOne = -kLongMin;                                          // 2^63

}  // namespace

void DoubleDoubleSum::AddDouble(double x) {
  plain_ += x;
  Pair small = FastTwoSum(x, addend_);  // the remainder is tinier than x's share of the sum
  addend_ = small.lo;
  Pair big = TwoSum(sum_, small.hi);
  sum_ = big.hi;
  addend_ += big.lo;
}

void DoubleDoubleSum::AddLong(int64_t x) {
  int64_t high = x / (int64_t{1} << 32) * (int64_t{1} << 32);
  int64_t low = x - high;
  AddDouble(static_cast<double>(low));
  AddDouble(static_cast<double>(high));
}

double DoubleDoubleSum::GetDouble() const { return std::isnan(sum_) ? plain_ : sum_; }

bool DoubleDoubleSum::FitsLong() const {
  if (sum_ > kLongMin && sum_ < kLongMaxPlusOne) return true;
  // At the edges the remainder decides which integer the pair rounds to.
  if (sum_ == kLongMaxPlusOne) return addend_ < -0.5;
  if (sum_ == kLongMin) return addend_ >= -0.5;
  return false;  // out of range, infinite or NaN
}

int64_t DoubleDoubleSum::GetLong() const {
  if (sum_ == kLongMaxPlusOne) {
    // 2^63 + addend with addend < -0.5: compute without overflowing.
    return std::llround(addend_) - std::numeric_limits<int64_t>::min();
  }
  int64_t whole = std::llround(sum_);
  whole += std::llround((sum_ - static_cast<double>(whole)) + addend_);
  return whole;
}

void DecimalTotal::Add(const bson_decimal128_t& d) {
  sum_ = any_ ? dec128::Add(sum_, d) : d;
  any_ = true;
}

bson_decimal128_t DecimalTotal::Total(const DoubleDoubleSum& non_decimal) const {
  double approx = non_decimal.GetDouble();
  bson_decimal128_t other = non_decimal.FitsLong() && approx == std::trunc(approx)
                                ? dec128::FromInt64(non_decimal.GetLong())
                                : dec128::FromDoubleTo34Digits(approx);
  return any_ ? dec128::Add(other, sum_) : other;
}

}  // namespace cairn::query
