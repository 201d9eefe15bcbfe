// $avg: the mean of the numeric inputs as a double, ignoring everything else; null when no input
// was numeric (AccumulatorAvg). Decimal128 inputs are refused until Cairn has decimal arithmetic.
#include "query/pipeline/accumulators/accumulator.h"
#include "query/pipeline/accumulators/summation.h"

namespace cairn::query {

namespace {

class AvgAccumulator final : public Accumulator {
 public:
  Status Process(const bson_iter_t* value) override {
    if (value == nullptr) return Status::OK();
    switch (bson_iter_type(value)) {
      case BSON_TYPE_INT32: total_.AddDouble(bson_iter_int32(value)); break;
      case BSON_TYPE_INT64: total_.AddLong(bson_iter_int64(value)); break;
      case BSON_TYPE_DOUBLE: total_.AddDouble(bson_iter_double(value)); break;
      case BSON_TYPE_DECIMAL128:
        return Status(ErrorCode::kBadValue,
                      "$avg of a decimal128 value is not supported by Cairn yet");
      default: return Status::OK();  // non-numbers are ignored
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
    bson_append_double(out, key.data(), len, total_.GetDouble() / static_cast<double>(count_));
  }

  size_t memory_bytes() const override { return sizeof(*this); }

 private:
  DoubleDoubleSum total_;
  int64_t count_ = 0;
};

}  // namespace

std::unique_ptr<Accumulator> MakeAvg() { return std::make_unique<AvgAccumulator>(); }

}  // namespace cairn::query
