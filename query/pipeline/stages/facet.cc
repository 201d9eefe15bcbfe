// $facet: {$facet: {<name>: [<stage>, ...], ...}} — runs every sub-pipeline over the whole input
// and outputs one document {<name>: [<results>...], ...} (also for an empty input).
//
// The input is buffered once and each facet replays it in turn. MongoDB instead tees the input
// in 100 MB batches to all facets at once, which needs a "paused" state in the pull interface
// (a blocking $group in a facet must not see a batch end as the end of input); Cairn's
// DocumentSource has no such state, so the buffer is whole and counted against
// PipelineOptions::max_memory_bytes (292 past it, where MongoDB would still run).
// The result document is capped at 16 MiB + 16 KiB as every result document (BSONObjectTooLarge,
// 10334, mongod's message: common/bson_validate.h's ObjectTooLarge): Cairn documents are BSON
// throughout, so it could not be returned, while MongoDB lets a following stage shrink a result
// of up to 100 MB (4031700) first.
//
// Parse errors as DocumentSourceFacet and Pipeline::validateFacetPipeline, in MongoDB's order —
// first the shape of every facet, then each sub-pipeline: 40169 (not a non-empty object), field
// name rules (15998/16410/16411/16412 with context), 40170 (value not an array), 40171 (an
// element not an object), the sub-pipeline's own parse errors, BadValue (2) for an empty
// sub-pipeline, 40600 for a stage not allowed inside $facet.
#include <string>
#include <utility>
#include <vector>

#include "query/pipeline/stage_registry.h"
#include "query/pipeline/stages/buffered_input.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

struct Facet {
  std::string name;
  Pipeline pipeline;
};

class FacetStage final : public Stage {
 public:
  FacetStage(BsonDoc spec, std::vector<Facet> facets, int64_t max_memory_bytes)
      : spec_(std::move(spec)), facets_(std::move(facets)), max_memory_bytes_(max_memory_bytes) {}

  std::string_view name() const override { return "$facet"; }
  std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const override;

  const std::vector<Facet>& facets() const { return facets_; }
  int64_t max_memory_bytes() const { return max_memory_bytes_; }

 private:
  BsonDoc spec_;  // the $facet argument as written, which the pipelines may view
  std::vector<Facet> facets_;
  int64_t max_memory_bytes_;
};

class FacetExecutor final : public ChildSource {
 public:
  FacetExecutor(const FacetStage& stage, std::unique_ptr<DocumentSource> child)
      : ChildSource(std::move(child)), stage_(stage) {}

  bool Next() override {
    if (done_) return false;
    done_ = true;
    Status status = Run();
    if (!status.ok()) return Fail(std::move(status));
    return child_->status().ok();
  }
  BsonView document() const override { return out_.view(); }

 private:
  Status Run() {
    std::vector<BsonDoc> input;
    int64_t bytes = 0;
    while (child_->Next()) {
      bytes += static_cast<int64_t>(child_->document().size());
      if (bytes > stage_.max_memory_bytes()) return MemoryLimitExceeded(stage_.max_memory_bytes());
      input.emplace_back(child_->document());
    }
    if (!child_->status().ok()) return Status::OK();  // status() reports the child's error
    std::vector<BsonView> views;
    views.reserve(input.size());
    for (const BsonDoc& doc : input) views.push_back(doc.view());

    for (const Facet& facet : stage_.facets()) {
      std::unique_ptr<DocumentSource> exec =
          facet.pipeline.Bind(std::make_unique<ViewSource>(views), /*skip_leading_match=*/false);
      bson_t results;
      bson_append_array_begin(out_.get(), facet.name.data(), static_cast<int>(facet.name.size()),
                              &results);
      uint32_t index = 0;
      while (exec->Next()) {
        char key_buffer[16];
        const char* key;
        size_t key_length = bson_uint32_to_string(index++, &key, key_buffer, sizeof key_buffer);
        bson_t doc = exec->document().AsBson();
        bson_append_document(&results, key, static_cast<int>(key_length), &doc);
        // The parent's length is only final at the end; the array's own size bounds it.
        if (results.len + out_.get()->len > static_cast<uint32_t>(kMaxInternalBsonObjectSize)) {
          bson_append_array_end(out_.get(), &results);
          return CheckDocumentSize(out_.get());
        }
      }
      bson_append_array_end(out_.get(), &results);
      CAIRN_RETURN_IF_ERROR(exec->status());
      CAIRN_RETURN_IF_ERROR(CheckDocumentSize(out_.get()));
    }
    return Status::OK();
  }

  const FacetStage& stage_;
  bool done_ = false;
  BsonDoc out_;
};

std::unique_ptr<DocumentSource> FacetStage::Bind(std::unique_ptr<DocumentSource> child) const {
  return std::make_unique<FacetExecutor>(*this, std::move(child));
}

// FacetRequirement::kNotAllowed among MongoDB 7.0's stages.
bool NotAllowedInFacet(std::string_view stage) {
  static constexpr std::string_view kNotAllowed[] = {"$changeStream",
                                                     "$collStats",
                                                     "$currentOp",
                                                     "$facet",
                                                     "$geoNear",
                                                     "$indexStats",
                                                     "$listLocalSessions",
                                                     "$listSessions",
                                                     "$listCatalog",
                                                     "$merge",
                                                     "$out",
                                                     "$planCacheStats",
                                                     "$search",
                                                     "$searchMeta",
                                                     "$vectorSearch",
                                                     "$listSearchIndexes",
                                                     "$changeStreamSplitLargeEvent",
                                                     "$shardedDataDistribution",
                                                     "$listSampledQueries"};
  for (std::string_view name : kNotAllowed) {
    if (name == stage) return true;
  }
  return false;
}

Status NotAllowed(std::string_view stage) {
  return Status(ErrorCode::kLocation40600,
                std::string(stage) + " is not allowed to be used within a $facet stage");
}

// The first stage of `pipeline` not allowed inside $facet; `unimplemented_only` limits the
// search to stages Cairn cannot parse (refused before parsing, as MongoDB would parse them).
std::string_view FindNotAllowed(BsonView pipeline, bool unimplemented_only) {
  bson_iter_t stage;
  pipeline.Init(&stage);
  while (bson_iter_next(&stage)) {
    bson_iter_t name;
    if (!BSON_ITER_HOLDS_DOCUMENT(&stage) || !IterDocument(&stage).Init(&name) ||
        !bson_iter_next(&name)) {
      continue;
    }
    std::string_view stage_name = IterKey(&name);
    if (!NotAllowedInFacet(stage_name)) continue;
    if (!unimplemented_only || LookupStage(stage_name) == StageKind::kNotImplemented) {
      return stage_name;
    }
  }
  return {};
}

// FieldPath::validateFieldName, with DocumentSourceFacet's context.
Status ValidateFacetName(std::string_view name) {
  Status status;
  if (name.empty()) {
    status = Status(ErrorCode::kLocation15998, "FieldPath field names may not be empty strings.");
  } else if (name.find('.') != std::string_view::npos) {
    status = Status(ErrorCode::kLocation16412,
                    "FieldPath field names may not contain '.'. Consider using $getField or "
                    "$setField.");
  } else {
    status = SplitFieldPath(name).status();
  }
  if (status.ok()) return status;
  return status.WithContext(
      "$facet pipeline names must follow the naming rules of field path expressions.");
}

}  // namespace

Result<StagePtr> ParseFacet(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec) || IterDocument(spec).empty()) {
    return Status(
        ErrorCode::kLocation40169,
        "the $facet specification must be a non-empty object, but found: " + RenderElement(spec));
  }
  BsonDoc owned(IterDocument(spec));
  // Shape of every facet first (extractRawPipelines).
  bson_iter_t it;
  owned.view().Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    CAIRN_RETURN_IF_ERROR(ValidateFacetName(name));
    if (!BSON_ITER_HOLDS_ARRAY(&it)) {
      return Status(ErrorCode::kLocation40170, "arguments to $facet must be arrays, " +
                                                   std::string(name) + " is type " +
                                                   std::string(BsonTypeName(bson_iter_type(&it))));
    }
    bson_iter_t element;
    bson_iter_recurse(&it, &element);
    while (bson_iter_next(&element)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&element)) {
        return Status(ErrorCode::kLocation40171,
                      "elements of arrays in $facet spec must be non-empty objects, " +
                          std::string(name) + " argument contained an element of type " +
                          std::string(BsonTypeName(bson_iter_type(&element))) + ": " +
                          RenderElement(&element));
      }
    }
  }
  // Then each sub-pipeline.
  std::vector<Facet> facets;
  PipelineOptions sub_options = options;
  sub_options.stats = nullptr;  // explain counts top-level stages only
  // Its output is this stage's one document (checked as such); MongoDB's $facet shares its
  // expression context, so it adds no sub-pipeline level.
  sub_options.checks_output = false;
  owned.view().Init(&it);
  while (bson_iter_next(&it)) {
    BsonView array = IterDocument(&it);
    std::string_view refused = FindNotAllowed(array, /*unimplemented_only=*/true);
    if (!refused.empty()) return NotAllowed(refused);
    CAIRN_ASSIGN_OR_RETURN(Pipeline pipeline, Pipeline::Parse(array, sub_options));
    if (array.empty()) {
      return Status(ErrorCode::kBadValue, "sub-pipeline in $facet stage cannot be empty");
    }
    refused = FindNotAllowed(array, /*unimplemented_only=*/false);
    if (!refused.empty()) return NotAllowed(refused);
    facets.push_back(Facet{std::string(IterKey(&it)), std::move(pipeline)});
  }
  return StagePtr(
      std::make_shared<FacetStage>(std::move(owned), std::move(facets), options.max_memory_bytes));
}

}  // namespace cairn::query::stages
