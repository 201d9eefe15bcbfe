// The stage table (stage_registry.h). kStages maps each implemented stage name to its parser in
// stages/<stage>.cc; kNotImplemented lists MongoDB 7.0's other user-facing stages so they answer
// "… is not supported by Cairn yet" instead of 40324. Both tables are sorted by name.
#include "query/pipeline/stage_registry.h"

#include <string>

#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query {

namespace {

struct StageRow {
  std::string_view name;
  StageParser parse;
  StageTraits traits;
};

constexpr StageTraits kWrites{.writes_output = true};
constexpr StageTraits kIndependent{.independent_of_collection = true};
constexpr StageTraits kServerState{.reports_server_state = true};
constexpr StageTraits kIndependentServerState{.independent_of_collection = true,
                                              .reports_server_state = true};

constexpr StageRow kStages[] = {
    {"$addFields", stages::ParseAddFields, {}},
    {"$count", stages::ParseCount, {}},
    {"$group", stages::ParseGroup, {}},
    {"$limit", stages::ParseLimit, {}},
    {"$lookup", stages::ParseLookup, {}},
    {"$match", stages::ParseMatch, {}},
    {"$project", stages::ParseProject, {}},
    {"$replaceRoot", stages::ParseReplaceRoot, {}},
    {"$replaceWith", stages::ParseReplaceRoot, {}},
    {"$set", stages::ParseAddFields, {}},
    {"$skip", stages::ParseSkip, {}},
    {"$sort", stages::ParseSort, {}},
    {"$unset", stages::ParseUnset, {}},
    {"$unwind", stages::ParseUnwind, {}},
    {"$documents", stages::ParseDocuments, kIndependent},
    {"$merge", stages::ParseMerge, kWrites},
    {"$out", stages::ParseOut, kWrites},
    {"$sample", stages::ParseSample, {}},
    {"$sortByCount", stages::ParseSortByCount, {}},
    {"$bucket", stages::ParseBucket, {}},
    {"$unionWith", stages::ParseUnionWith, {}},
    {"$facet", stages::ParseFacet, {}},
    {"$bucketAuto", stages::ParseBucketAuto, {}},
    {"$collStats", stages::ParseCollStats, kServerState},
    {"$currentOp", stages::ParseCurrentOp, kIndependentServerState},
    {"$listLocalSessions", stages::ParseListLocalSessions, kIndependentServerState},
};

// MongoDB 7.0 stages (document_source_*.cpp REGISTER_DOCUMENT_SOURCE names a user can write)
// that Cairn does not implement yet, with what their lite parse already knows.
struct NotImplementedRow {
  std::string_view name;
  StageTraits traits;
};

constexpr NotImplementedRow kNotImplemented[] = {
    {"$changeStream", {.independent_of_collection = true, .requires_replica_set = true}},
    {"$changeStreamSplitLargeEvent", {}},
    {"$densify", {}},
    {"$fill", {}},
    {"$geoNear", {}},
    {"$graphLookup", {}},
    {"$indexStats", {}},
    {"$listCatalog", {}},
    {"$listSampledQueries", {}},
    {"$listSearchIndexes", {}},
    {"$listSessions", kIndependent},
    {"$planCacheStats", {}},
    {"$redact", {}},
    {"$search", {}},
    {"$searchMeta", {}},
    {"$setWindowFields", {}},
    {"$shardedDataDistribution", {}},
    {"$vectorSearch", {}},
};

const NotImplementedRow* FindNotImplemented(std::string_view name) {
  for (const NotImplementedRow& row : kNotImplemented) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

// The name of the first element of a pipeline array, or of the last one when `last`.
std::string_view StageNameAt(BsonView pipeline, bool last) {
  std::string_view name;
  bson_iter_t it, stage;
  if (!pipeline.Init(&it)) return name;
  while (bson_iter_next(&it)) {
    name = {};
    if (BSON_ITER_HOLDS_DOCUMENT(&it) && bson_iter_recurse(&it, &stage) && bson_iter_next(&stage)) {
      name = IterKey(&stage);
    }
    if (!last) break;
  }
  return name;
}

const StageRow* FindRow(std::string_view name) {
  for (const StageRow& row : kStages) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

}  // namespace

StageKind LookupStage(std::string_view name) {
  if (FindRow(name) != nullptr) return StageKind::kImplemented;
  if (FindNotImplemented(name) != nullptr) return StageKind::kNotImplemented;
  return StageKind::kUnknown;
}

StageTraits TraitsOf(std::string_view name) {
  if (const StageRow* row = FindRow(name)) return row->traits;
  if (const NotImplementedRow* row = FindNotImplemented(name)) return row->traits;
  return StageTraits();
}

std::string_view FirstStageName(BsonView pipeline_array) {
  return StageNameAt(pipeline_array, /*last=*/false);
}

std::string_view LastStageName(BsonView pipeline_array) {
  return StageNameAt(pipeline_array, /*last=*/true);
}

std::string_view FirstWritingStageName(BsonView pipeline_array) {
  bson_iter_t it, stage;
  if (!pipeline_array.Init(&it)) return {};
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) || !bson_iter_recurse(&it, &stage) ||
        !bson_iter_next(&stage)) {
      continue;
    }
    std::string_view name = IterKey(&stage);
    if (TraitsOf(name).writes_output) return name;
  }
  return {};
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
  // Atlas Search's stages: a mongod without mongot (the community server) refuses them so.
  if (name == "$search" || name == "$searchMeta" || name == "$vectorSearch" ||
      name == "$listSearchIndexes") {
    return Status(ErrorCode::kLocation6047401,
                  std::string(name) + " stage is only allowed on MongoDB Atlas");
  }
  if (LookupStage(name) == StageKind::kNotImplemented) {
    return Status(ErrorCode::kBadValue, std::string(name) + " is not supported by Cairn yet");
  }
  return Status(ErrorCode::kLocation40324,
                "Unrecognized pipeline stage name: '" + std::string(name) + "'");
}

}  // namespace cairn::query
