// $project: inclusion/exclusion projection through query/projection's Projection. Parse: an
// object (15969) with at least one field (51272); the projection's own errors carry MongoDB's
// "Invalid $project :: caused by :: ..." context. Computed fields (expressions) are refused by
// Projection until the expression issue. Also hosts the executor $unset builds (unset.cc).
#include "query/pipeline/stages/stage_parsers.h"
#include "query/projection/projection.h"

namespace cairn::query::stages {

namespace {

class ProjectStage final : public Stage {
 public:
  ProjectStage(Projection projection, std::string_view name)
      : projection_(std::move(projection)), name_(name) {}

  std::string_view name() const override { return name_; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const Projection& projection() const { return projection_; }

 private:
  Projection projection_;
  std::string_view name_;  // "$project" or "$unset": static strings
};

class ProjectExecutor final : public ChildSource {
 public:
  ProjectExecutor(const ProjectStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage) {}

  bool Next() override {
    if (!child_->Next()) return false;
    bson_reinit(out_.get());
    stage_.projection().Apply(child_->document(), out_.get());
    return true;
  }
  BsonView document() const override { return out_.view(); }

 private:
  const ProjectStage& stage_;
  BsonDoc out_;
};

std::unique_ptr<DocumentSource> ProjectStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<ProjectExecutor>(*this, std::move(child));
}

}  // namespace

Result<StagePtr> MakeProjectStage(BsonView projection_spec, std::string_view stage_name) {
  Result<Projection> projection = Projection::Parse(projection_spec);
  if (!projection.ok()) {
    return projection.status().WithContext("Invalid " + std::string(stage_name));
  }
  std::string_view name = stage_name == "$unset" ? "$unset" : "$project";
  return StagePtr(std::make_shared<ProjectStage>(std::move(projection).value(), name));
}

Result<StagePtr> ParseProject(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kLocation15969, "$project specification must be an object");
  }
  BsonView projection = IterDocument(spec);
  if (projection.empty()) {
    return Status(ErrorCode::kLocation51272,
                  "Invalid $project :: caused by :: projection specification must have at least "
                  "one field");
  }
  return MakeProjectStage(projection, "$project");
}

}  // namespace cairn::query::stages
