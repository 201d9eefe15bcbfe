// $sort: orders documents by a sort pattern (query/sort). Parse: an object (15973) with at least
// one key (15976); keys as SortPattern validates them. Blocking: holds documents up to
// PipelineOptions::max_memory_bytes, then fails with 292. Optimise: when $skip stages and then
// a $limit follow, only the top skip+limit documents are kept (a bounded heap), as MongoDB's
// sort absorbs a following limit.
#include <algorithm>
#include <limits>
#include <queue>
#include <vector>

#include "query/pipeline/stages/stage_parsers.h"
#include "query/sort/sort_pattern.h"

namespace cairn::query::stages {

namespace {

class SortStage final : public Stage {
 public:
  SortStage(SortPattern pattern, int64_t max_memory_bytes, std::optional<int64_t> top_n)
      : pattern_(std::move(pattern)), max_memory_bytes_(max_memory_bytes), top_n_(top_n) {}

  std::string_view name() const override { return "$sort"; }
  size_t OptimizeAt(size_t index, StageList* stages) const override;
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const SortPattern& pattern() const { return pattern_; }
  int64_t max_memory_bytes() const { return max_memory_bytes_; }
  std::optional<int64_t> top_n() const { return top_n_; }

 private:
  SortPattern pattern_;
  int64_t max_memory_bytes_;
  std::optional<int64_t> top_n_;  // keep only the first N in sort order
};

class SortExecutor final : public ChildSource {
 public:
  SortExecutor(const SortStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage) {}

  bool Next() override {
    if (!loaded_) {
      loaded_ = true;
      if (!Load()) {
        sorted_.clear();  // an error ends the stream for good
        return false;
      }
      position_ = 0;
    } else {
      ++position_;
    }
    return position_ < sorted_.size();
  }
  BsonView document() const override { return sorted_[position_].doc.view(); }

 private:
  struct Entry {
    BsonDoc doc;
    uint64_t sequence;  // input order: ties keep it
  };

  // True when a sorts before b.
  bool Before(const Entry& a, const Entry& b) const {
    int c = stage_.pattern().Compare(a.doc.view(), b.doc.view());
    return c != 0 ? c < 0 : a.sequence < b.sequence;
  }

  Status MemoryExceeded() const {
    return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                  "Sort exceeded memory limit of " + std::to_string(stage_.max_memory_bytes()) +
                      " bytes, but did not opt in to external sorting.");
  }

  bool Load() {
    auto before = [this](const Entry& a, const Entry& b) { return Before(a, b); };
    const std::optional<int64_t> top_n = stage_.top_n();
    int64_t memory = 0;
    uint64_t sequence = 0;
    while (child_->Next()) {
      BsonView doc = child_->document();
      if (top_n) {
        // Max-heap on sort order: its front is the last of the N kept.
        if (static_cast<int64_t>(sorted_.size()) == *top_n) {
          // A tie with the last kept loses: it came later.
          if (stage_.pattern().Compare(doc, sorted_.front().doc.view()) >= 0) {
            ++sequence;
            continue;
          }
          std::pop_heap(sorted_.begin(), sorted_.end(), before);
          memory -= static_cast<int64_t>(sorted_.back().doc.view().size());
          sorted_.back() = Entry{BsonDoc(doc), sequence++};
        } else {
          sorted_.push_back(Entry{BsonDoc(doc), sequence++});
        }
        std::push_heap(sorted_.begin(), sorted_.end(), before);
      } else {
        sorted_.push_back(Entry{BsonDoc(doc), sequence++});
      }
      memory += static_cast<int64_t>(doc.size());
      if (memory > stage_.max_memory_bytes()) {
        return Fail(MemoryExceeded());
      }
    }
    if (!child_->status().ok()) return false;
    if (top_n) {
      std::sort_heap(sorted_.begin(), sorted_.end(), before);
    } else {
      std::stable_sort(sorted_.begin(), sorted_.end(), before);
    }
    return true;
  }

  const SortStage& stage_;
  bool loaded_ = false;
  size_t position_ = 0;
  std::vector<Entry> sorted_;
};

size_t SortStage::OptimizeAt(size_t index, StageList* stages) const {
  // $sort, $skip*, $limit: only the first skip + limit documents can reach the output.
  int64_t skipped = 0;
  for (size_t i = index + 1; i < stages->size(); ++i) {
    const Stage& next = *(*stages)[i];
    if (std::optional<int64_t> skip = next.skip_count()) {
      skipped = *skip > std::numeric_limits<int64_t>::max() - skipped
                    ? std::numeric_limits<int64_t>::max()
                    : skipped + *skip;
      continue;
    }
    if (std::optional<int64_t> limit = next.limit_count()) {
      int64_t bound = *limit > std::numeric_limits<int64_t>::max() - skipped
                          ? std::numeric_limits<int64_t>::max()
                          : skipped + *limit;
      if (top_n_ && *top_n_ <= bound) break;
      (*stages)[index] = std::make_shared<SortStage>(pattern_, max_memory_bytes_, bound);
    }
    break;
  }
  return index + 1;
}

std::unique_ptr<DocumentSource> SortStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<SortExecutor>(*this, std::move(child));
}

}  // namespace

Result<StagePtr> ParseSort(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kLocation15973, "the $sort key specification must be an object");
  }
  // Strings sort under the command's collation, if any.
  CAIRN_ASSIGN_OR_RETURN(
      SortPattern pattern,
      SortPattern::Parse(IterDocument(spec), options.expression_context != nullptr
                                                 ? options.expression_context->shared_collator()
                                                 : nullptr));
  if (pattern.empty()) {
    return Status(ErrorCode::kLocation15976, "$sort stage must have at least one sort key");
  }
  return StagePtr(
      std::make_shared<SortStage>(std::move(pattern), options.max_memory_bytes, std::nullopt));
}

}  // namespace cairn::query::stages
