// A stage MongoDB defines as a sequence of other stages ($sortByCount, $bucket: a $group and a
// $sort): it replaces itself with them at optimisation, so they optimise as if written out
// (a following $limit turns the $sort into a top-N). Also builds those stages from BSON written
// by the desugaring stage.
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class DesugaredStage final : public Stage {
 public:
  DesugaredStage(std::string_view name, StageList stages)
      : name_(name), stages_(std::move(stages)) {}

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

void AppendCountOfOne(bson_t* group_body) {
  bson_t count;
  bson_append_document_begin(group_body, "count", 5, &count);
  bson_append_int32(&count, "$sum", 4, 1);
  bson_append_document_end(group_body, &count);
}

bool IsGroupByExpression(const bson_iter_t* group_by, size_t min_path_length) {
  if (BSON_ITER_HOLDS_DOCUMENT(group_by)) {
    bson_iter_t inner;
    return bson_iter_recurse(group_by, &inner) && bson_iter_next(&inner) &&
           IterKey(&inner).substr(0, 1) == "$";
  }
  return BSON_ITER_HOLDS_UTF8(group_by) && IterUtf8(group_by).size() >= min_path_length &&
         IterUtf8(group_by).substr(0, 1) == "$";
}

Result<StagePtr> MakeGroupThenSort(std::string_view static_name, const BsonDoc& group,
                                   const char* sort_json, const PipelineOptions& options) {
  StageList stages(2);
  CAIRN_ASSIGN_OR_RETURN(stages[0], ParseStageDocument(group.view(), ParseGroup, options));
  CAIRN_ASSIGN_OR_RETURN(
      stages[1], ParseStageDocument(BsonDoc::FromJson(sort_json).view(), ParseSort, options));
  return MakeDesugaredStage(static_name, std::move(stages));
}

}  // namespace cairn::query::stages
