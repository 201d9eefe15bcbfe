// DoubleDoubleSum: compensated summation keeping the total as an unevaluated pair of doubles
// (rounded sum + remainder), the way MongoDB's DoubleDoubleSummation does, so $sum/$avg give
// MongoDB's results: sums of int32/int64 are exact (up to 2^106), doubles are summed with
// ~107 bits, and the int64 range check rounds the pair correctly. Value type; not thread-safe.
#pragma once

#include <bson/bson.h>

#include <cstdint>

namespace cairn::query {

class DoubleDoubleSum {
 public:
  void AddDouble(double x);
  // Exact: the integer is split into two halves that doubles hold exactly.
  void AddLong(int64_t x);

  // The double nearest the total (the plain sum when the pair became NaN, e.g. inf + -inf).
  double GetDouble() const;

  // True when the total, rounded to an integer, is within int64.
  bool FitsLong() const;
  // The total rounded to the nearest integer (halves away from zero). Requires FitsLong().
  int64_t GetLong() const;

 private:
  double sum_ = 0.0;
  double addend_ = 0.0;
  double plain_ = 0.0;  // uncompensated sum, for infinities and NaN
};

// The Decimal128 inputs of $sum/$avg, summed exactly apart from the non-decimal ones (as
// MongoDB's AccumulatorSum keeps decimalTotal beside nonDecimalTotal); Total joins the two.
class DecimalTotal {
 public:
  void Add(const bson_decimal128_t& d);
  bool any() const { return any_; }
  // The decimal sum plus the non-decimal total: an integral total exactly, a fractional one
  // through its double rounded to 34 digits.
  bson_decimal128_t Total(const DoubleDoubleSum& non_decimal) const;

 private:
  bson_decimal128_t sum_{};
  bool any_ = false;
};

}  // namespace cairn::query
