// $addToSet: the distinct operand values of the group, distinct by MongoDB's value comparison
// (1, 1.0 and NumberLong(1) are one value, strings under the command's collation; the first seen
// is kept), skipping missing ones
// (AccumulatorAddToSet). MongoDB leaves the order unspecified; Cairn keeps first-seen order.
// It cannot spill, so past 100 MiB it fails with 146 (internalQueryMaxAddToSetBytes).
#include <map>
#include <vector>

#include "query/pipeline/accumulators/accumulator.h"
#include "query/pipeline/value.h"

namespace cairn::query {

namespace {

class AddToSetAccumulator final : public Accumulator {
 public:
  Status Process(const bson_iter_t* value) override {
    if (value == nullptr) return Status::OK();
    if (seen_.find(value) != seen_.end()) return Status::OK();
    values_.push_back(std::make_unique<OwnedValue>(value));
    seen_.emplace(values_.back().get(), values_.size() - 1);
    bytes_ += values_.back()->memory_bytes() + 48;  // + the index node
    if (bytes_ >= kAccumulatorMaxMemoryBytes) return AccumulatorMemoryExceeded("$addToSet");
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override {
    AppendValueArray(out, key, values_.size(),
                     [this](size_t i) -> const OwnedValue& { return *values_[i]; });
  }

  size_t memory_bytes() const override { return sizeof(*this) + bytes_; }

  void SetCollator(const StringComparator* collator) override {
    seen_ = std::map<const OwnedValue*, size_t, OwnedValueLess>(OwnedValueLess{collator});
  }

 private:
  std::vector<std::unique_ptr<OwnedValue>> values_;  // first-seen order
  std::map<const OwnedValue*, size_t, OwnedValueLess> seen_;
  size_t bytes_ = 0;
};

}  // namespace

std::unique_ptr<Accumulator> MakeAddToSet() { return std::make_unique<AddToSetAccumulator>(); }

}  // namespace cairn::query
