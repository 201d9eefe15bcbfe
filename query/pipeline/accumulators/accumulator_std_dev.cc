// $stdDevPop / $stdDevSamp: the population / sample standard deviation of the numeric inputs as
// a double, every other value ignored (AccumulatorStdDev); null when no input was numeric, and
// for the sample form also when only one was. Welford's running mean keeps it one pass and
// numerically stable; decimals are folded in as doubles, as MongoDB's coerceToDouble does.
#include <cmath>

#include "query/pipeline/accumulators/accumulator.h"

namespace cairn::query {

namespace {

class StdDevAccumulator final : public Accumulator {
 public:
  explicit StdDevAccumulator(bool sample) : sample_(sample) {}

  Status Process(const bson_iter_t* value) override {
    double x = 0;
    if (value == nullptr || !IterIsNumber(value) || !IterAsDouble(value, &x)) {
      return Status::OK();
    }
    ++count_;
    const double delta = x - mean_;
    if (delta != 0) {
      mean_ += delta / static_cast<double>(count_);
      m2_ += delta * (x - mean_);
    }
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override {
    const int len = static_cast<int>(key.size());
    if (count_ == 0 || (sample_ && count_ == 1)) {
      bson_append_null(out, key.data(), len);
      return;
    }
    const double variance = m2_ / static_cast<double>(count_ - (sample_ ? 1 : 0));
    bson_append_double(out, key.data(), len, std::sqrt(variance));
  }

  size_t memory_bytes() const override { return sizeof(*this); }

 private:
  bool sample_;
  int64_t count_ = 0;
  double mean_ = 0;
  double m2_ = 0;  // sum of squared distances from the running mean
};

}  // namespace

std::unique_ptr<Accumulator> MakeStdDevPop() { return std::make_unique<StdDevAccumulator>(false); }
std::unique_ptr<Accumulator> MakeStdDevSamp() { return std::make_unique<StdDevAccumulator>(true); }

}  // namespace cairn::query
