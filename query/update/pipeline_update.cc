// Pipeline-style updates (Update::ParsePipeline / ApplyPipeline, update.h): the u/update field
// given as an array of aggregation stages, parsed by query/pipeline with the command's
// expression context and run over the one document being updated, as MongoDB's PipelineExecutor
// does. Only the stages MongoDB allows in an update ($addFields/$set, $project, $unset,
// $replaceRoot/$replaceWith) pass; the stage errors come first (the pipeline is parsed whole),
// then InvalidOptions 72 for a stage not allowed. The document the pipeline yields replaces the
// input under the replacement rules (_id kept first and immutable, a no-op when unchanged), with
// top-level '$'-prefixed field names allowed.
#include <algorithm>
#include <iterator>

#include "query/pipeline/pipeline.h"
#include "query/update/update.h"

namespace cairn::query {

namespace {

// The stages MongoDB lets an update pipeline run (isAllowedWithinUpdatePipeline).
constexpr std::string_view kAllowedStages[] = {"$addFields",   "$project", "$replaceRoot",
                                               "$replaceWith", "$set",     "$unset"};

// Yields one document once: the document being updated.
class SingleDocumentSource final : public DocumentSource {
 public:
  explicit SingleDocumentSource(BsonView doc) : doc_(doc) {}
  bool Next() override {
    if (done_) return false;
    done_ = true;
    return true;
  }
  BsonView document() const override { return doc_; }

 private:
  BsonView doc_;
  bool done_ = false;
};

}  // namespace

Result<Update> Update::ParsePipeline(BsonView stages, BsonView array_filters,
                                     std::shared_ptr<const ExpressionContext> context) {
  if (!array_filters.empty()) {
    return Status(ErrorCode::kFailedToParse,
                  "arrayFilters may not be specified for pipeline-syle updates");
  }
  PipelineOptions options;
  options.expression_context = std::move(context);
  options.checks_output = false;  // the updated document is checked where it is stored
  CAIRN_ASSIGN_OR_RETURN(Pipeline pipeline, Pipeline::Parse(stages, options));
  bson_iter_t it;
  stages.Init(&it);
  while (bson_iter_next(&it)) {
    bson_iter_t stage;
    bson_iter_recurse(&it, &stage);
    bson_iter_next(&stage);
    std::string_view name = IterKey(&stage);
    if (std::find(std::begin(kAllowedStages), std::end(kAllowedStages), name) ==
        std::end(kAllowedStages)) {
      return Status(ErrorCode::kInvalidOptions,
                    std::string(name) + " is not allowed to be used within an update");
    }
  }
  Update update;
  update.pipeline_ = std::make_shared<const Pipeline>(std::move(pipeline));
  return update;
}

Result<bool> Update::ApplyPipeline(BsonView doc, bson_t* out) const {
  std::unique_ptr<DocumentSource> run =
      pipeline_->Bind(std::make_unique<SingleDocumentSource>(doc), /*skip_leading_match=*/false);
  if (!run->Next()) {
    CAIRN_RETURN_IF_ERROR(run->status());
    return Status(ErrorCode::kInternalError, "the update pipeline produced no document");
  }
  return ApplyReplacement(doc, run->document(), out, /*allow_dollar_prefixed_fields=*/true);
}

}  // namespace cairn::query
