// $min / $max: the smallest / largest input by MongoDB's value comparison (canonical type order,
// numbers by value), ignoring missing, null and undefined; null when nothing remained
// (AccumulatorMinMax). Ties keep the first value seen.
#include "query/pipeline/accumulators/accumulator.h"
#include "query/pipeline/value.h"

namespace cairn::query {

namespace {

class MinMaxAccumulator final : public Accumulator {
 public:
  explicit MinMaxAccumulator(int sense) : sense_(sense) {}

  Status Process(const bson_iter_t* value) override {
    if (value == nullptr || BSON_ITER_HOLDS_NULL(value) || BSON_ITER_HOLDS_UNDEFINED(value)) {
      return Status::OK();
    }
    if (best_.missing() || CompareOwned(best_, value, collator_) * sense_ > 0) {
      best_ = OwnedValue(value);
    }
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override { best_.AppendTo(out, key); }

  size_t memory_bytes() const override { return sizeof(*this) + best_.memory_bytes(); }

  void SetCollator(const StringComparator* collator) override { collator_ = collator; }

 private:
  int sense_;  // 1: keep the smallest ($min); -1: keep the largest ($max)
  OwnedValue best_;
  const StringComparator* collator_ = nullptr;  // strings compare under it
};

}  // namespace

std::unique_ptr<Accumulator> MakeMin() { return std::make_unique<MinMaxAccumulator>(1); }
std::unique_ptr<Accumulator> MakeMax() { return std::make_unique<MinMaxAccumulator>(-1); }

}  // namespace cairn::query
