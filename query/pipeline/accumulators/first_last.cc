// $first / $last: the operand's value for the first / last document of the group, in input
// order; a missing value counts (and comes out as null), as AccumulatorFirst/Last keep it.
#include "query/pipeline/accumulators/accumulator.h"
#include "query/pipeline/value.h"

namespace cairn::query {

namespace {

class FirstAccumulator final : public Accumulator {
 public:
  Status Process(const bson_iter_t* value) override {
    if (seen_) return Status::OK();
    seen_ = true;
    if (value != nullptr) value_ = OwnedValue(value);
    return Status::OK();
  }
  void Finish(bson_t* out, std::string_view key) const override { value_.AppendTo(out, key); }
  size_t memory_bytes() const override { return sizeof(*this) + value_.memory_bytes(); }

 private:
  bool seen_ = false;
  OwnedValue value_;
};

class LastAccumulator final : public Accumulator {
 public:
  Status Process(const bson_iter_t* value) override {
    value_ = value != nullptr ? OwnedValue(value) : OwnedValue();
    return Status::OK();
  }
  void Finish(bson_t* out, std::string_view key) const override { value_.AppendTo(out, key); }
  size_t memory_bytes() const override { return sizeof(*this) + value_.memory_bytes(); }

 private:
  OwnedValue value_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeFirst() { return std::make_unique<FirstAccumulator>(); }
std::unique_ptr<Accumulator> MakeLast() { return std::make_unique<LastAccumulator>(); }

}  // namespace cairn::query
