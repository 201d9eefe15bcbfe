// $limit: passes the first n documents and stops pulling. Parse: a non-negative integer
// (5107201 "invalid argument to $limit stage: ...") that is positive (15958). Optimise: two
// consecutive $limit stages coalesce into the smaller (DocumentSourceLimit::doOptimizeAt).
#include <algorithm>

#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class LimitStage final : public Stage {
 public:
  explicit LimitStage(int64_t count) : count_(count) {}

  std::string_view name() const override { return "$limit"; }
  std::optional<int64_t> limit_count() const override { return count_; }
  size_t OptimizeAt(size_t index, StageList* stages) const override;
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

 private:
  int64_t count_;
};

class LimitExecutor final : public ChildSource {
 public:
  LimitExecutor(int64_t count, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), remaining_(count) {}

  bool Next() override {
    if (remaining_ <= 0) return false;
    --remaining_;
    return child_->Next();
  }
  BsonView document() const override { return child_->document(); }
  // One output per input document, which keeps its metadata.
  std::optional<double> text_score() const override { return child_->text_score(); }

 private:
  int64_t remaining_;
};

size_t LimitStage::OptimizeAt(size_t index, StageList* stages) const {
  if (index + 1 >= stages->size()) return index + 1;
  std::optional<int64_t> next = (*stages)[index + 1]->limit_count();
  if (!next) return index + 1;
  int64_t smaller = std::min(count_, *next);
  stages->erase(stages->begin() + static_cast<ptrdiff_t>(index) + 1);
  (*stages)[index] = std::make_shared<LimitStage>(smaller);  // destroys *this: return at once
  return index;
}

std::unique_ptr<DocumentSource> LimitStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<LimitExecutor>(count_, std::move(child));
}

}  // namespace

Result<StagePtr> ParseLimit(const bson_iter_t* spec, const PipelineOptions& options) {
  Result<int64_t> count = ParseNonNegativeInteger(spec);
  if (!count.ok()) {
    return Status(ErrorCode::kLocation5107201,
                  "invalid argument to $limit stage: " + count.status().reason());
  }
  if (*count == 0) return Status(ErrorCode::kLocation15958, "the limit must be positive");
  return StagePtr(std::make_shared<LimitStage>(*count));
}

}  // namespace cairn::query::stages
