// $push: the array of the operand's values in input order, skipping missing ones
// (AccumulatorPush); [] for a group where every value was missing.
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
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override {
    bson_t array;
    bson_append_array_begin(out, key.data(), static_cast<int>(key.size()), &array);
    for (size_t i = 0; i < values_.size(); ++i) {
      char buf[16];
      const char* index;
      size_t len = bson_uint32_to_string(static_cast<uint32_t>(i), &index, buf, sizeof buf);
      values_[i].AppendTo(&array, std::string_view(index, len));
    }
    bson_append_array_end(out, &array);
  }

  size_t memory_bytes() const override { return sizeof(*this) + bytes_; }

 private:
  std::vector<OwnedValue> values_;
  size_t bytes_ = 0;
};

}  // namespace

std::unique_ptr<Accumulator> MakePush() { return std::make_unique<PushAccumulator>(); }

}  // namespace cairn::query
