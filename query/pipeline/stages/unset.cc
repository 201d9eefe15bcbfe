// $unset: an alias of an exclusion $project ({$unset: "a"} or {$unset: ["a", "b.c"]} →
// {$project: {a: 0, "b.c": 0}}), as DocumentSourceProject::createFromBson builds it. Parse:
// a string or an array (31002), non-empty (31119), of strings only (31120); path errors read
// "Invalid $unset :: caused by :: ...". The executor is $project's (project.cc).
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

Result<StagePtr> ParseUnset(const bson_iter_t* spec, const PipelineOptions& options) {
  if (!BSON_ITER_HOLDS_UTF8(spec) && !BSON_ITER_HOLDS_ARRAY(spec)) {
    return Status(ErrorCode::kLocation31002, "$unset specification must be a string or an array");
  }
  BsonDoc projection;
  if (BSON_ITER_HOLDS_UTF8(spec)) {
    std::string_view path = IterUtf8(spec);
    bson_append_int32(projection.get(), path.data(), static_cast<int>(path.size()), 0);
  } else {
    BsonView array = IterDocument(spec);
    if (array.empty()) {
      return Status(ErrorCode::kLocation31119,
                    "$unset specification must be a string or an array with at least one field");
    }
    bson_iter_t it;
    array.Init(&it);
    while (bson_iter_next(&it)) {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        return Status(
            ErrorCode::kLocation31120,
            "$unset specification must be a string or an array containing only string values");
      }
    }
    array.Init(&it);
    while (bson_iter_next(&it)) {
      std::string_view path = IterUtf8(&it);
      bson_append_int32(projection.get(), path.data(), static_cast<int>(path.size()), 0);
    }
  }
  return MakeProjectStage(projection.view(), "$unset");
}

}  // namespace cairn::query::stages
