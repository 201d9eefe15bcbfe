// $push: the array of the operand's values in input order, skipping missing ones
// (AccumulatorPush); [] for a group where every value was missing. It cannot spill, so past
// 100 MiB it fails with 146 (internalQueryMaxPushBytes).
#include <vector>

#include "query/pipeline/accumulators/accumulator.h"
#include "query/pipeline/value.h"

namespace cairn::query {

namespace {

class PushAccumulator final : public Accumulator {
 public:
  Status Process(const bson_iter_t* value) override {
    if (value == nullptr) return Status::OK();
    values_.emplace_back(value);
    bytes_ += values_.back().memory_bytes();
    if (bytes_ >= kAccumulatorMaxMemoryBytes) return AccumulatorMemoryExceeded("$push");
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override {
    AppendValueArray(out, key, values_.size(),
                     [this](size_t i) -> const OwnedValue& { return values_[i]; });
  }

  size_t memory_bytes() const override { return sizeof(*this) + bytes_; }

 private:
  std::vector<OwnedValue> values_;
  size_t bytes_ = 0;
};

}  // namespace

std::unique_ptr<Accumulator> MakePush() { return std::make_unique<PushAccumulator>(); }

}  // namespace cairn::query
