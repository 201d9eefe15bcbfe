// $avg: the mean of the numeric inputs as a double, ignoring everything else; null when no input
// was numeric (AccumulatorAvg). With any Decimal128 input the mean is a decimal (the decimal
// total, see DecimalTotal, divided by the count).
#include "common/decimal128.h"
#include "query/pipeline/accumulators/accumulator.h"
#include "query/pipeline/accumulators/summation.h"

namespace cairn::query {

namespace {

class AvgAccumulator final : public Accumulator {
 public:
  Status Process(const bson_iter_t* value) override {
    if (value == nullptr) return Status::OK();
    switch (bson_iter_type(value)) {
      case BSON_TYPE_INT32:
        total_.AddDouble(bson_iter_int32(value));
        break;
      case BSON_TYPE_INT64:
        total_.AddLong(bson_iter_int64(value));
        break;
      case BSON_TYPE_DOUBLE:
        total_.AddDouble(bson_iter_double(value));
        break;
      case BSON_TYPE_DECIMAL128: {
        bson_decimal128_t d;
        bson_iter_decimal128(value, &d);
        decimals_.Add(d);
        break;
      }
      default:
        return Status::OK();  // non-numbers are ignored
    }
    ++count_;
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override {
    const int len = static_cast<int>(key.size());
    if (count_ == 0) {
      bson_append_null(out, key.data(), len);
      return;
    }
    if (decimals_.any()) {
      bson_decimal128_t mean = dec128::Divide(decimals_.Total(total_), dec128::FromInt64(count_));
      bson_append_decimal128(out, key.data(), len, &mean);
      return;
    }
    bson_append_double(out, key.data(), len, total_.GetDouble() / static_cast<double>(count_));
  }

  size_t memory_bytes() const override { return sizeof(*this); }

 private:
  DoubleDoubleSum total_;
  DecimalTotal decimals_;
  int64_t count_ = 0;
};

}  // namespace

std::unique_ptr<Accumulator> MakeAvg() { return std::make_unique<AvgAccumulator>(); }

}  // namespace cairn::query
