// A stage MongoDB defines as a sequence of other stages ($sortByCount, $bucket: a $group and a
// $sort): it replaces itself with them at optimisation, so they optimise as if written out
// (a following $limit turns the $sort into a top-N). Also builds those stages from BSON written
// by the desugaring stage.
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class DesugaredStage final : public Stage {
 public:
  DesugaredStage(std::string_view name, StageList stages) : name_(name), stages_(std::move(stages)) {}

  std::string_view name() const override { return name_; }

  size_t OptimizeAt(size_t index, StageList* stages) const override {
    (*stages)[index] = stages_.front();
    stages->insert(stages->begin() + static_cast<std::ptrdiff_t>(index) + 1, stages_.begin() + 1,
                   stages_.end());
    return index;  // optimise the replacements in turn
  }

  // Only reached when the pipeline was not optimised.
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override {
    for (const StagePtr& stage : stages_) child = stage->Bind(std::move(child));
    return child;
  }

 private:
  std::string_view name_;  // static
  StageList stages_;
};

}  // namespace

StagePtr MakeDesugaredStage(std::string_view static_name, StageList stages) {
  return std::make_shared<DesugaredStage>(static_name, std::move(stages));
}

Result<StagePtr> ParseStageDocument(BsonView stage, StageParser parse,
                                    const PipelineOptions& options) {
  bson_iter_t it;
  if (!stage.Init(&it) || !bson_iter_next(&it)) {
    return Status(ErrorCode::kInternalError, "empty desugared stage");
  }
  return parse(&it, options);
}

}  // namespace cairn::query::stages
