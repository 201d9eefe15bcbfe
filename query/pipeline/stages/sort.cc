// $sort: orders documents by a sort pattern (query/sort). Parse: an object (15973) with at least
// one key (15976); keys as SortPattern validates them. Blocking: holds documents up to
// PipelineOptions::sort_max_memory_bytes; past it the full sort spills sorted runs to disk
// (query/sort/external_sorter.h) when allowDiskUse is true, else fails with 292. Optimise: when
// $skip stages and then a $limit follow, only the top skip+limit documents are kept (a bounded
// heap; past the budget it too spills, or fails with 292), as MongoDB's sort absorbs a
// following limit. Text scores: a document's textScore (DocumentSource::text_score) travels
// with it through the sort (the sorter's value bytes), and a {$meta: "textScore"} key — highest
// score first — sorts documents carrying the score in SortPattern::kTextScoreField, added on
// the way in and removed on the way out; without a $text search before it that key fails with
// 40218 when the stage runs.
#include <algorithm>
#include <cstring>
#include <limits>
#include <queue>
#include <vector>

#include "query/pipeline/spill_stats.h"
#include "query/pipeline/stages/stage_parsers.h"
#include "query/sort/external_sorter.h"
#include "query/sort/sort_pattern.h"

namespace cairn::query::stages {

namespace {

class SortStage final : public Stage {
 public:
  SortStage(SortPattern pattern, ExternalSorterOptions spill, SpillStatsSlot stats,
            std::optional<int64_t> top_n)
      : pattern_(std::move(pattern)),
        spill_(std::move(spill)),
        stats_(std::move(stats)),
        top_n_(top_n) {}

  std::string_view name() const override { return "$sort"; }
  size_t OptimizeAt(size_t index, StageList* stages) const override;
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const SortPattern& pattern() const { return pattern_; }
  int64_t max_memory_bytes() const { return spill_.max_memory_bytes; }
  const ExternalSorterOptions& spill() const { return spill_; }
  const SpillStatsSlot& stats() const { return stats_; }
  std::optional<int64_t> top_n() const { return top_n_; }

 private:
  SortPattern pattern_;
  ExternalSorterOptions spill_;   // the budget, allowDiskUse, the spill directory
  SpillStatsSlot stats_;          // explain's usedDisk / spills
  std::optional<int64_t> top_n_;  // keep only the first N in sort order
};

class SortExecutor final : public ChildSource {
 public:
  SortExecutor(const SortStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage) {}

  bool Next() override {
    if (!loaded_) {
      loaded_ = true;
      if (!(stage_.top_n() ? LoadTopN() : LoadAll())) {
        sorted_.clear();  // an error ends the stream for good
        sorter_.reset();
        return false;
      }
      position_ = 0;
    } else {
      ++position_;
    }
    if (sorter_ != nullptr) {
      if (sorter_->Next()) return Emit(sorter_->key(), sorter_->value());
      return sorter_->status().ok() ? false : Fail(sorter_->status());
    }
    if (position_ >= sorted_.size()) return false;
    const Entry& entry = sorted_[position_];
    return Emit(entry.doc.view(), ScoreBytes(entry.score));
  }
  BsonView document() const override {
    if (stage_.pattern().needs_text_score()) return out_.view();
    return sorter_ != nullptr ? sorter_->key() : sorted_[position_].doc.view();
  }
  std::optional<double> text_score() const override {
    return carry_scores_ ? std::optional<double>(score_) : std::nullopt;
  }

 private:
  struct Entry {
    BsonDoc doc;
    uint64_t sequence;  // input order: ties keep it
    double score = 0;   // its textScore, when carry_scores_
  };

  // A score as the sorter's value bytes.
  static std::string_view ScoreBytes(const double& score) {
    return std::string_view(reinterpret_cast<const char*>(&score), sizeof(score));
  }

  // The input document as it is sorted (with its score in the score field for a textScore
  // key; valid until the next call) and *score its textScore. Whether scores travel at all is
  // decided on the first document: a $text search scores every document it returns.
  Result<BsonView> Prepare(double* score) {
    BsonView doc = child_->document();
    if (!scores_decided_) {
      scores_decided_ = true;
      carry_scores_ = child_->text_score().has_value();
    }
    if (carry_scores_) *score = child_->text_score().value_or(0);
    if (!stage_.pattern().needs_text_score()) return doc;
    if (!carry_scores_) {
      return TextScoreNotAvailable();
    }
    bson_reinit(with_score_.get());
    SortPattern::AppendWithTextScore(doc, *score, with_score_.get());
    return with_score_.view();
  }

  // Positions the output on a sorted document and its score bytes.
  bool Emit(BsonView sorted, std::string_view score_bytes) {
    if (carry_scores_ && score_bytes.size() == sizeof(score_)) {
      std::memcpy(&score_, score_bytes.data(), sizeof(score_));
    }
    if (!stage_.pattern().needs_text_score()) return true;
    bson_reinit(out_.get());
    SortPattern::AppendWithoutTextScore(sorted, out_.get());
    return true;
  }

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

  // The full sort: documents go to the external sorter, which spills past the budget.
  bool LoadAll() {
    MakeSorter();
    return FeedSorter();
  }

  void MakeSorter() {
    ExternalSorterOptions options = stage_.spill();
    options.no_disk_use_message = MemoryExceeded().reason();
    const SortPattern& pattern = stage_.pattern();
    sorter_ = std::make_unique<ExternalSorter>(
        [&pattern](BsonView a, BsonView b) { return pattern.Compare(a, b); }, std::move(options));
  }

  // Adds the rest of the input to the sorter and sorts.
  bool FeedSorter() {
    while (child_->Next()) {
      double score = 0;
      Result<BsonView> doc = Prepare(&score);
      if (!doc.ok()) return Fail(doc.status());
      Status added = sorter_->Add(*doc, carry_scores_ ? ScoreBytes(score) : std::string_view());
      if (!added.ok()) return Fail(std::move(added));
    }
    if (!child_->status().ok()) return false;
    Status sorted = sorter_->Sort();
    stage_.stats().Record(sorter_.get());
    return sorted.ok() || Fail(std::move(sorted));
  }

  // $sort + $limit: a bounded heap of the first N. Should the N outgrow the budget, with
  // allowDiskUse the heap's documents and the rest of the input go through the external sorter
  // instead (the $limit after this stage still applies).
  bool LoadTopN() {
    auto before = [this](const Entry& a, const Entry& b) { return Before(a, b); };
    const std::optional<int64_t> top_n = stage_.top_n();
    int64_t memory = 0;
    uint64_t sequence = 0;
    while (child_->Next()) {
      double score = 0;
      Result<BsonView> prepared = Prepare(&score);
      if (!prepared.ok()) return Fail(prepared.status());
      BsonView doc = *prepared;
      // Max-heap on sort order: its front is the last of the N kept.
      if (static_cast<int64_t>(sorted_.size()) == *top_n) {
        // A tie with the last kept loses: it came later.
        if (stage_.pattern().Compare(doc, sorted_.front().doc.view()) >= 0) {
          ++sequence;
          continue;
        }
        std::pop_heap(sorted_.begin(), sorted_.end(), before);
        memory -= static_cast<int64_t>(sorted_.back().doc.view().size());
        sorted_.back() = Entry{BsonDoc(doc), sequence++, score};
      } else {
        sorted_.push_back(Entry{BsonDoc(doc), sequence++, score});
      }
      std::push_heap(sorted_.begin(), sorted_.end(), before);
      memory += static_cast<int64_t>(doc.size());
      if (memory > stage_.max_memory_bytes()) {
        if (!stage_.spill().allow_disk_use) return Fail(MemoryExceeded());
        // In input order, so that ties keep it.
        std::sort(sorted_.begin(), sorted_.end(),
                  [](const Entry& a, const Entry& b) { return a.sequence < b.sequence; });
        MakeSorter();
        for (const Entry& kept : sorted_) {
          Status added = sorter_->Add(kept.doc.view(),
                                      carry_scores_ ? ScoreBytes(kept.score) : std::string_view());
          if (!added.ok()) return Fail(std::move(added));
        }
        sorted_.clear();
        return FeedSorter();
      }
    }
    if (!child_->status().ok()) return false;
    std::sort_heap(sorted_.begin(), sorted_.end(), before);
    return true;
  }

  const SortStage& stage_;
  bool loaded_ = false;
  size_t position_ = 0;
  std::vector<Entry> sorted_;               // LoadTopN
  std::unique_ptr<ExternalSorter> sorter_;  // LoadAll
  bool scores_decided_ = false;
  bool carry_scores_ = false;  // the input has textScores: each document's travels with it
  double score_ = 0;           // the current output document's
  BsonDoc with_score_;         // Prepare's document with the score field
  BsonDoc out_;                // a textScore key: the output without the score field
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
      (*stages)[index] = std::make_shared<SortStage>(pattern_, spill_, stats_, bound);
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
  ExternalSorterOptions spill;
  spill.max_memory_bytes = options.sort_max_memory_bytes;
  spill.allow_disk_use = options.allow_disk_use;
  spill.spill_dir = options.spill_dir;
  return StagePtr(std::make_shared<SortStage>(std::move(pattern), std::move(spill),
                                              SpillStatsSlot(options), std::nullopt));
}

}  // namespace cairn::query::stages
