// $skip: drops the first n documents. Parse: a non-negative integer (5107200 "invalid argument
// to $skip stage: ..."); $skip: 0 is legal and skips nothing.
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class SkipStage final : public Stage {
 public:
  explicit SkipStage(int64_t count) : count_(count) {}

  std::string_view name() const override { return "$skip"; }
  std::optional<int64_t> skip_count() const override { return count_; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

 private:
  int64_t count_;
};

class SkipExecutor final : public ChildSource {
 public:
  SkipExecutor(int64_t count, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), to_skip_(count) {}

  bool Next() override {
    while (to_skip_ > 0) {
      if (!child_->Next()) return false;
      --to_skip_;
    }
    return child_->Next();
  }
  BsonView document() const override { return child_->document(); }
  // One output per input document, which keeps its metadata.
  std::optional<double> text_score() const override { return child_->text_score(); }

 private:
  int64_t to_skip_;
};

std::unique_ptr<DocumentSource> SkipStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<SkipExecutor>(count_, std::move(child));
}

}  // namespace

Result<StagePtr> ParseSkip(const bson_iter_t* spec, const PipelineOptions& options) {
  Result<int64_t> count = ParseNonNegativeInteger(spec);
  if (!count.ok()) {
    return Status(ErrorCode::kLocation5107200,
                  "invalid argument to $skip stage: " + count.status().reason());
  }
  return StagePtr(std::make_shared<SkipStage>(*count));
}

}  // namespace cairn::query::stages
