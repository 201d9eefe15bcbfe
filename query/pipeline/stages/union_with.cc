// $unionWith: {$unionWith: "coll"} or {$unionWith: {coll?, pipeline?}} — every input document,
// then the documents of the sub-pipeline run over collection `coll` of the same database (read
// through PipelineOptions::foreign; a missing collection is empty). Since 7.0 `coll` may be
// omitted when the pipeline starts with $documents (the sub-pipeline then has no input).
// The sub-pipeline is parsed once with the outer options, so nested $unionWith and $lookup work;
// it is opened only when the input is exhausted (a $limit that stops early never reads it).
// Errors as DocumentSourceUnionWith and its IDL spec: FailedToParse (9) for a spec that is neither
// an object nor a string and for a collectionless pipeline without $documents first; 40415 for
// an unknown field; TypeMismatch (14) for a field of the wrong type; 31441 for $out / $merge in
// the sub-pipeline (checked after it parses, as MongoDB's validator runs on the parsed pipeline).
#include <optional>
#include <string>

#include "query/pipeline/foreign_collections.h"
#include "query/pipeline/stage_registry.h"
#include "query/pipeline/stages/buffered_input.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

class UnionWithStage final : public Stage {
 public:
  UnionWithStage(std::optional<std::string> coll, BsonDoc pipeline_holder, Pipeline pipeline,
                 std::shared_ptr<ForeignCollections> foreign)
      : coll_(std::move(coll)),
        pipeline_holder_(std::move(pipeline_holder)),
        pipeline_(std::move(pipeline)),
        foreign_(std::move(foreign)) {}

  std::string_view name() const override { return "$unionWith"; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  // The sub-pipeline over the foreign collection (nothing when collectionless).
  Result<std::unique_ptr<DocumentSource>> OpenSubPipeline() const {
    std::unique_ptr<DocumentSource> input;
    if (coll_.has_value() && foreign_ != nullptr) {
      CAIRN_ASSIGN_OR_RETURN(input, foreign_->Open(*coll_, nullptr));
    } else {
      input = std::make_unique<ViewSource>();
    }
    return pipeline_.Bind(std::move(input), /*skip_leading_match=*/false);
  }

 private:
  std::optional<std::string> coll_;  // none: collectionless ($documents first)
  BsonDoc pipeline_holder_;          // the sub-pipeline's BSON, which pipeline_ may view
  Pipeline pipeline_;
  std::shared_ptr<ForeignCollections> foreign_;
};

class UnionWithExecutor final : public ChildSource {
 public:
  UnionWithExecutor(const UnionWithStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage) {}

  bool Next() override {
    if (sub_ == nullptr) {
      if (child_->Next()) return true;
      if (!child_->status().ok() || !status_.ok()) return false;
      Result<std::unique_ptr<DocumentSource>> sub = stage_.OpenSubPipeline();
      if (!sub.ok()) return Fail(sub.status());
      sub_ = std::move(*sub);
    }
    if (sub_->Next()) return true;
    if (!sub_->status().ok()) return Fail(sub_->status());
    return false;
  }
  BsonView document() const override {
    return sub_ == nullptr ? child_->document() : sub_->document();
  }

 private:
  const UnionWithStage& stage_;
  std::unique_ptr<DocumentSource> sub_;  // set once the input is exhausted
};

std::unique_ptr<DocumentSource> UnionWithStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<UnionWithExecutor>(*this, std::move(child));
}

Status WrongType(std::string_view field, const bson_iter_t* it, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '$unionWith." + std::string(field) +
                                              "' is the wrong type '" +
                                              std::string(BsonTypeName(bson_iter_type(it))) +
                                              "', expected type '" + std::string(expected) + "'");
}

// validateUnionWithCollectionlessPipeline: a non-empty pipeline whose first stage is $documents.
Status CheckCollectionless(std::optional<BsonView> pipeline) {
  static constexpr const char* kMessage =
      "$unionWith stage without explicit collection must have a pipeline with $documents as "
      "first stage";
  bson_iter_t stage;
  if (!pipeline.has_value() || !pipeline->Init(&stage) || !bson_iter_next(&stage)) {
    return Status(ErrorCode::kFailedToParse, kMessage);
  }
  bson_iter_t field;
  if (IterDocument(&stage).Find("$documents", &field)) return Status::OK();
  return Status(ErrorCode::kFailedToParse, kMessage);
}

// isAllowedInUnionPipeline: the writing stages are not.
Status CheckSubPipelineStages(BsonView pipeline) {
  std::string_view writing = FirstWritingStageName(pipeline);
  if (writing.empty()) return Status::OK();
  return Status(ErrorCode::kLocation31441,
                std::string(writing) + " is not allowed within a $unionWith's sub-pipeline");
}

}  // namespace

Result<StagePtr> ParseUnionWith(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec) && !BSON_ITER_HOLDS_UTF8(spec)) {
    return Status(ErrorCode::kFailedToParse,
                  "the $unionWith stage specification must be an object or string, but found " +
                      std::string(BsonTypeName(bson_iter_type(spec))));
  }
  std::optional<std::string> coll;
  BsonDoc holder;  // {"p": [...]}: the sub-pipeline as written, or empty
  std::optional<BsonView> pipeline;
  if (BSON_ITER_HOLDS_UTF8(spec)) {
    coll = std::string(IterUtf8(spec));
  } else {
    bson_iter_t it;
    bson_iter_recurse(spec, &it);
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (key == "coll") {
        if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(key, &it, "string");
        coll = std::string(IterUtf8(&it));
      } else if (key == "pipeline") {
        if (!BSON_ITER_HOLDS_ARRAY(&it)) return WrongType(key, &it, "array");
        bson_iter_t element;
        bson_iter_recurse(&it, &element);
        while (bson_iter_next(&element)) {
          if (!BSON_ITER_HOLDS_DOCUMENT(&element)) {
            return WrongType("pipeline." + std::string(IterKey(&element)), &element, "object");
          }
        }
        bson_reinit(holder.get());
        AppendIter(holder.get(), "p", &it);
        bson_iter_t stored;
        holder.view().Find("p", &stored);
        pipeline = IterDocument(&stored);
      } else {
        return Status(ErrorCode::kLocation40415,
                      "BSON field '$unionWith." + std::string(key) + "' is an unknown field.");
      }
    }
    if (!coll.has_value()) CAIRN_RETURN_IF_ERROR(CheckCollectionless(pipeline));
  }
  BsonView array = pipeline.value_or(BsonView());  // {} reads as the empty array
  CAIRN_ASSIGN_OR_RETURN(PipelineOptions sub_options, SubPipelineOptions(options));
  CAIRN_ASSIGN_OR_RETURN(Pipeline parsed, Pipeline::Parse(array, sub_options));
  CAIRN_RETURN_IF_ERROR(CheckSubPipelineStages(array));
  return StagePtr(std::make_shared<UnionWithStage>(std::move(coll), std::move(holder),
                                                   std::move(parsed), options.foreign));
}

}  // namespace cairn::query::stages
