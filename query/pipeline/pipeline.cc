// Pipeline (pipeline.h): parse in MongoDB's two passes — first the shape of every element (the
// aggregate command's type check and LiteParsedPipeline: 14, 40323, 40324), then each stage's
// full parse in order — then optimise with each stage's OptimizeAt, and bind executors.
#include "query/pipeline/pipeline.h"

#include "query/matcher/matcher.h"
#include "query/matcher/text_expression.h"
#include "query/pipeline/explain_stats.h"
#include "query/pipeline/stage.h"
#include "query/pipeline/stage_registry.h"

namespace cairn::query {

namespace {

// The position rules of MongoDB's Pipeline::validateCommon: a writing stage ($out, $merge) only
// last (40601); a source stage ($documents, $collStats, $currentOp, $listLocalSessions) only
// first (40602); $text only in the first $match (17313).
Status CheckStagePositions(const StageList& stages) {
  for (size_t i = 0; i < stages.size(); ++i) {
    std::string_view name = stages[i]->name();
    if (TraitsOf(name).writes_output && i + 1 != stages.size()) {
      return Status(ErrorCode::kLocation40601,
                    std::string(name) + " can only be the final stage in the pipeline");
    }
    // Only a leading $match runs as the collection's query, where the text index answers $text.
    if (i != 0 && stages[i]->matcher() != nullptr) {
      Result<const TextMatchExpression*> text = FindTextClause(stages[i]->matcher()->root());
      if (!text.ok() || *text != nullptr) {
        return Status(ErrorCode::kLocation17313,
                      "$match with $text is only allowed as the first pipeline stage");
      }
    }
    if (stages[i]->is_source() && i != 0) {
      return Status(ErrorCode::kLocation40602,
                    std::string(name) + " is only valid as the first stage in a pipeline");
    }
  }
  return Status::OK();
}

// The command's results leave as BSON: each document is checked against MongoDB's limits on a
// serialized document as it is pulled (a length comparison for all but very large ones).
class OutputLimitsSource final : public DocumentSource {
 public:
  explicit OutputLimitsSource(std::unique_ptr<DocumentSource> input) : input_(std::move(input)) {}

  bool Next() override {
    if (!error_.ok() || !input_->Next()) return false;
    error_ = CheckOutputDocument(input_->document());
    return error_.ok();
  }
  BsonView document() const override { return input_->document(); }
  Status status() const override { return error_.ok() ? input_->status() : error_; }
  int64_t docs_examined() const override { return input_->docs_examined(); }
  int64_t keys_examined() const override { return input_->keys_examined(); }
  std::optional<double> text_score() const override { return input_->text_score(); }

 private:
  std::unique_ptr<DocumentSource> input_;
  Status error_;
};

}  // namespace

Result<PipelineOptions> SubPipelineOptions(const PipelineOptions& outer) {
  if (outer.sub_pipeline_depth >= kMaxSubPipelineDepth) {
    return Status(ErrorCode::kMaxSubPipelineDepthExceeded,
                  "Maximum number of nested sub-pipelines exceeded. Limit is " +
                      std::to_string(kMaxSubPipelineDepth));
  }
  PipelineOptions sub = outer;
  sub.sub_pipeline_depth = outer.sub_pipeline_depth + 1;
  sub.checks_output = false;
  sub.stats = nullptr;  // explain counts top-level stages only
  return sub;
}

Result<Pipeline> Pipeline::Parse(BsonView pipeline_array, const PipelineOptions& options) {
  bson_iter_t it;
  if (!pipeline_array.Init(&it)) {
    return Status(ErrorCode::kTypeMismatch, "'pipeline' option must be specified as an array");
  }
  bool first = true;
  while (bson_iter_next(&it)) {
    CAIRN_RETURN_IF_ERROR(CheckStageShape(&it));
    // A change stream is opened by the server (its own cursor over the oplog) only from the
    // first stage; anywhere else mongod refuses it by position before anything else.
    bson_iter_t name;
    if (IterDocument(&it).Init(&name) && bson_iter_next(&name)) {
      if (!first && IterKey(&name) == "$changeStream") {
        return Status(ErrorCode::kLocation40602,
                      "$changeStream is only valid as the first stage in a pipeline");
      }
      // The change stream's own stage: the server takes it off the stages it hands here.
      if (IterKey(&name) == "$changeStreamSplitLargeEvent") {
        return Status(ErrorCode::kIllegalOperation,
                      "$changeStreamSplitLargeEvent can only be used in a $changeStream pipeline");
      }
    }
    first = false;
  }

  StageList stages;
  size_t stages_parsed = 0;  // the position in the array as given (stages may desugar)
  pipeline_array.Init(&it);
  while (bson_iter_next(&it)) {
    // Checked as stages are parsed, so a huge pipeline is refused before it is all parsed.
    if (stages.size() == kMaxPipelineLength) {
      return Status(ErrorCode::kFailedToParse, "Pipeline length must be no longer than " +
                                                   std::to_string(kMaxPipelineLength) + " stages");
    }
    // Counters a stage registers for explain are filed under its position (explain_stats.h).
    if (options.stats != nullptr) options.stats->parsing_position = stages_parsed;
    ++stages_parsed;
    CAIRN_ASSIGN_OR_RETURN(StagePtr stage, ParseStage(IterDocument(&it), options));
    stages.push_back(std::move(stage));
  }
  CAIRN_RETURN_IF_ERROR(CheckStagePositions(stages));

  size_t index = 0;
  while (index < stages.size()) {
    StagePtr current = stages[index];  // keeps the stage alive while it replaces itself
    index = current->OptimizeAt(index, &stages);
  }

  Pipeline pipeline;
  pipeline.stages_ = std::make_shared<const StageList>(std::move(stages));
  pipeline.checks_output_ = options.checks_output;
  return pipeline;
}

BsonView Pipeline::leading_match() const {
  if (stages_ == nullptr || stages_->empty()) return BsonView();
  const Matcher* matcher = stages_->front()->matcher();
  return matcher != nullptr ? matcher->filter() : BsonView();
}

bool Pipeline::starts_with_source() const {
  return stages_ != nullptr && !stages_->empty() && stages_->front()->is_source();
}

std::unique_ptr<DocumentSource> Pipeline::Bind(std::unique_ptr<DocumentSource> input,
                                               bool skip_leading_match) const {
  std::unique_ptr<DocumentSource> source = std::move(input);
  if (stages_ == nullptr) return source;
  size_t first = 0;
  if (skip_leading_match && !stages_->empty() && stages_->front()->matcher() != nullptr) {
    first = 1;
  }
  for (size_t i = first; i < stages_->size(); ++i) {
    source = (*stages_)[i]->Bind(std::move(source));
  }
  // Documents straight from the collection (no stage after a leading $match) are stored ones,
  // already within the limits.
  if (checks_output_ && first < stages_->size()) {
    source = std::make_unique<OutputLimitsSource>(std::move(source));
  }
  return source;
}

}  // namespace cairn::query
