// The stage table (stage_registry.h). kStages maps each implemented stage name to its parser in
// stages/<stage>.cc; kNotImplemented lists MongoDB 7.0's other user-facing stages so they answer
// "… is not supported by Cairn yet" instead of 40324. Both tables are sorted by name.
#include "query/pipeline/stage_registry.h"

#include <algorithm>
#include <iterator>
#include <string>

#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query {

namespace {

struct StageRow {
  std::string_view name;
  StageParser parse;
};

constexpr StageRow kStages[] = {
    {"$addFields", stages::ParseAddFields},
    {"$count", stages::ParseCount},
    {"$group", stages::ParseGroup},
    {"$limit", stages::ParseLimit},
    {"$lookup", stages::ParseLookup},
    {"$match", stages::ParseMatch},
    {"$project", stages::ParseProject},
    {"$replaceRoot", stages::ParseReplaceRoot},
    {"$replaceWith", stages::ParseReplaceRoot},
    {"$set", stages::ParseAddFields},
    {"$skip", stages::ParseSkip},
    {"$sort", stages::ParseSort},
    {"$unset", stages::ParseUnset},
    {"$unwind", stages::ParseUnwind},
    {"$documents", stages::ParseDocuments},
    {"$merge", stages::ParseMerge},
    {"$out", stages::ParseOut},
    {"$sample", stages::ParseSample},
    {"$sortByCount", stages::ParseSortByCount},
    {"$bucket", stages::ParseBucket},
    {"$unionWith", stages::ParseUnionWith},
    {"$facet", stages::ParseFacet},
    {"$bucketAuto", stages::ParseBucketAuto},
    {"$collStats", stages::ParseCollStats},
    {"$currentOp", stages::ParseCurrentOp},
    {"$listLocalSessions", stages::ParseListLocalSessions},
};

// MongoDB 7.0 stages (document_source_*.cpp REGISTER_DOCUMENT_SOURCE names a user can write)
// that Cairn does not implement yet.
constexpr std::string_view kNotImplemented[] = {
    "$changeStream",
    "$changeStreamSplitLargeEvent",
    "$densify",
    "$fill",
    "$geoNear",
    "$graphLookup",
    "$indexStats",
    "$listCatalog",
    "$listSampledQueries",
    "$listSearchIndexes",
    "$listSessions",
    "$planCacheStats",
    "$redact",
    "$search",
    "$searchMeta",
    "$setWindowFields",
    "$shardedDataDistribution",
    "$vectorSearch",
};

const StageRow* FindRow(std::string_view name) {
  for (const StageRow& row : kStages) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

}  // namespace

StageKind LookupStage(std::string_view name) {
  if (FindRow(name) != nullptr) return StageKind::kImplemented;
  if (std::find(std::begin(kNotImplemented), std::end(kNotImplemented), name) !=
      std::end(kNotImplemented)) {
    return StageKind::kNotImplemented;
  }
  return StageKind::kUnknown;
}

Status CheckStageShape(const bson_iter_t* element) {
  if (!BSON_ITER_HOLDS_DOCUMENT(element)) {
    return Status(ErrorCode::kTypeMismatch,
                  "Each element of the 'pipeline' array must be an object");
  }
  BsonView stage = IterDocument(element);
  if (stage.CountKeys() != 1) {
    return Status(ErrorCode::kLocation40323,
                  "A pipeline stage specification object must contain exactly one field.");
  }
  bson_iter_t it;
  if (!stage.Init(&it) || !bson_iter_next(&it)) {
    return Status(ErrorCode::kLocation40323,
                  "A pipeline stage specification object must contain exactly one field.");
  }
  std::string_view name = IterKey(&it);
  if (LookupStage(name) == StageKind::kUnknown) {
    return Status(ErrorCode::kLocation40324,
                  "Unrecognized pipeline stage name: '" + std::string(name) + "'");
  }
  return Status::OK();
}

Result<StagePtr> ParseStage(BsonView stage_doc, const PipelineOptions& options) {
  bson_iter_t it;
  if (!stage_doc.Init(&it) || !bson_iter_next(&it)) {
    return Status(ErrorCode::kLocation40323,
                  "A pipeline stage specification object must contain exactly one field.");
  }
  std::string_view name = IterKey(&it);
  if (const StageRow* row = FindRow(name)) return row->parse(&it, options);
  if (LookupStage(name) == StageKind::kNotImplemented) {
    return Status(ErrorCode::kBadValue, std::string(name) + " is not supported by Cairn yet");
  }
  return Status(ErrorCode::kLocation40324,
                "Unrecognized pipeline stage name: '" + std::string(name) + "'");
}

}  // namespace cairn::query
