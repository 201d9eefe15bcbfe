// $sum (and $count, which is $sum of 1): adds the numeric inputs, ignoring everything else
// (AccumulatorSum). The result has the widest input type: int32 while the total fits an int32,
// int64 when an int32 total outgrows it or any input was int64, double when the total leaves
// int64's range or any input was a double; 0 (int32) when nothing was numeric. Any Decimal128
// input makes the result a decimal: decimals are summed apart, exactly, and the non-decimal
// total joins them at the end (DecimalTotal).
#include <limits>

#include "query/pipeline/accumulators/accumulator.h"
#include "query/pipeline/accumulators/summation.h"

namespace cairn::query {

namespace {

enum class SumType { kInt32, kInt64, kDouble, kDecimal };

class SumAccumulator final : public Accumulator {
 public:
  Status Process(const bson_iter_t* value) override {
    if (value == nullptr) return Status::OK();
    switch (bson_iter_type(value)) {
      case BSON_TYPE_INT32:
        total_.AddDouble(bson_iter_int32(value));
        break;
      case BSON_TYPE_INT64:
        if (type_ == SumType::kInt32) type_ = SumType::kInt64;
        total_.AddLong(bson_iter_int64(value));
        break;
      case BSON_TYPE_DOUBLE:
        type_ = SumType::kDouble;
        total_.AddDouble(bson_iter_double(value));
        break;
      case BSON_TYPE_DECIMAL128: {
        type_ = SumType::kDecimal;
        bson_decimal128_t d;
        bson_iter_decimal128(value, &d);
        decimals_.Add(d);
        break;
      }
      default:
        break;  // non-numbers are ignored
    }
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override {
    const int len = static_cast<int>(key.size());
    if (type_ == SumType::kDecimal) {
      bson_decimal128_t total = decimals_.Total(total_);
      bson_append_decimal128(out, key.data(), len, &total);
      return;
    }
    if (type_ != SumType::kDouble && total_.FitsLong()) {
      int64_t sum = total_.GetLong();
      if (type_ == SumType::kInt32 && sum >= std::numeric_limits<int32_t>::min() &&
          sum <= std::numeric_limits<int32_t>::max()) {
        bson_append_int32(out, key.data(), len, static_cast<int32_t>(sum));
      } else {
        bson_append_int64(out, key.data(), len, sum);
      }
      return;
    }
    bson_append_double(out, key.data(), len, total_.GetDouble());
  }

  size_t memory_bytes() const override { return sizeof(*this); }

 private:
  SumType type_ = SumType::kInt32;
  DoubleDoubleSum total_;
  DecimalTotal decimals_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeSum() { return std::make_unique<SumAccumulator>(); }

}  // namespace cairn::query
