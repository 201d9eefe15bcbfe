// $sample: {$sample: {size: N}} — N documents of its input chosen uniformly at random, in random
// order (MongoDB's random-sort plan over a collection scan: each document gets a random key and
// the N smallest keys win). Cairn keeps a reservoir of N documents (Algorithm R) and shuffles it
// at the end, so memory is N documents, not the input. Blocking: fails with 292 past
// PipelineOptions::max_memory_bytes. Parse: an object (28745) with only `size` (28748), present
// (28749), a number (28746), not negative (28747).
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class SampleStage final : public Stage {
 public:
  SampleStage(int64_t size, int64_t max_memory_bytes)
      : size_(size), max_memory_bytes_(max_memory_bytes) {}

  std::string_view name() const override { return "$sample"; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  int64_t size() const { return size_; }
  int64_t max_memory_bytes() const { return max_memory_bytes_; }

 private:
  int64_t size_;
  int64_t max_memory_bytes_;
};

class SampleExecutor final : public ChildSource {
 public:
  SampleExecutor(const SampleStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage), rng_(std::random_device{}()) {}

  bool Next() override {
    if (!filled_) {
      filled_ = true;
      if (!Fill()) return false;
      std::shuffle(reservoir_.begin(), reservoir_.end(), rng_);
    }
    if (position_ >= reservoir_.size()) return false;
    current_ = position_++;
    return true;
  }
  BsonView document() const override { return reservoir_[current_].view(); }

 private:
  bool Fill() {
    const auto size = static_cast<uint64_t>(stage_.size());
    if (size == 0) return false;
    uint64_t seen = 0;
    int64_t memory = 0;
    while (child_->Next()) {
      BsonView doc = child_->document();
      ++seen;
      size_t slot;
      if (reservoir_.size() < size) {
        slot = reservoir_.size();
        reservoir_.emplace_back();
      } else {
        slot = std::uniform_int_distribution<uint64_t>(0, seen - 1)(rng_);
        if (slot >= size) continue;
        memory -= static_cast<int64_t>(reservoir_[slot].view().size());
      }
      reservoir_[slot] = BsonDoc(doc);
      memory += static_cast<int64_t>(doc.size());
      if (memory > stage_.max_memory_bytes()) {
        return Fail(Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                           "Sort exceeded memory limit of " +
                               std::to_string(stage_.max_memory_bytes()) +
                               " bytes, but did not opt in to external sorting."));
      }
    }
    return child_->status().ok();
  }

  const SampleStage& stage_;
  std::mt19937_64 rng_;
  bool filled_ = false;
  std::vector<BsonDoc> reservoir_;
  size_t position_ = 0;
  size_t current_ = 0;
};

std::unique_ptr<DocumentSource> SampleStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<SampleExecutor>(*this, std::move(child));
}

}  // namespace

Result<StagePtr> ParseSample(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kLocation28745, "the $sample stage specification must be an object");
  }
  bson_iter_t it;
  bson_iter_recurse(spec, &it);
  bool has_size = false;
  int64_t size = 0;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key != "size") {
      return Status(ErrorCode::kLocation28748,
                    "unrecognized option to $sample: " + std::string(key));
    }
    double number = 0;
    if (!IterIsNumber(&it) || !IterAsDouble(&it, &number)) {
      return Status(ErrorCode::kLocation28746, "size argument to $sample must be a number");
    }
    if (number < 0) {
      return Status(ErrorCode::kLocation28747, "size argument to $sample must not be negative");
    }
    int64_t as_int = 0;
    size = IterAsInt64(&it, &as_int) ? as_int : static_cast<int64_t>(number);
    has_size = true;
  }
  if (!has_size) {
    return Status(ErrorCode::kLocation28749, "$sample stage must specify a size");
  }
  return StagePtr(std::make_shared<SampleStage>(size, options.max_memory_bytes));
}

}  // namespace cairn::query::stages
