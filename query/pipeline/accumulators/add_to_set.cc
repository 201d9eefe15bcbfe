// $addToSet: the distinct operand values of the group, distinct by MongoDB's value comparison
// (1, 1.0 and NumberLong(1) are one value; the first seen is kept), skipping missing ones
// (AccumulatorAddToSet). MongoDB leaves the order unspecified; Cairn keeps first-seen order.
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
    return Status::OK();
  }

  void Finish(bson_t* out, std::string_view key) const override {
    bson_t array;
    bson_append_array_begin(out, key.data(), static_cast<int>(key.size()), &array);
    for (size_t i = 0; i < values_.size(); ++i) {
      char buf[16];
      const char* index;
      size_t len = bson_uint32_to_string(static_cast<uint32_t>(i), &index, buf, sizeof buf);
      values_[i]->AppendTo(&array, std::string_view(index, len));
    }
    bson_append_array_end(out, &array);
  }

  size_t memory_bytes() const override { return sizeof(*this) + bytes_; }

 private:
  // Orders stored values (and probes by bson_iter_t) by MongoDB's value comparison.
  struct Less {
    using is_transparent = void;
    bool operator()(const OwnedValue* a, const OwnedValue* b) const {
      bson_iter_t it;
      b->Iter(&it);
      return CompareOwned(*a, &it) < 0;
    }
    bool operator()(const OwnedValue* a, const bson_iter_t* b) const {
      return CompareOwned(*a, b) < 0;
    }
    bool operator()(const bson_iter_t* a, const OwnedValue* b) const {
      return CompareOwned(*b, a) > 0;
    }
  };

  std::vector<std::unique_ptr<OwnedValue>> values_;  // first-seen order
  std::map<const OwnedValue*, size_t, Less> seen_;
  size_t bytes_ = 0;
};

}  // namespace

std::unique_ptr<Accumulator> MakeAddToSet() { return std::make_unique<AddToSetAccumulator>(); }

}  // namespace cairn::query
