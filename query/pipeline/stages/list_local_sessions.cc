// $listLocalSessions: {$listLocalSessions: {allUsers?: bool, users?: [...]}} — the logical
// sessions this server has seen (ServerSources::ListLocalSessions), from {aggregate: 1} on any
// database (as MongoDB 5.0+). Parse errors, in this order: an argument that is not an object or
// a field of the wrong type TypeMismatch 14, an unknown field 40415 ($_internalPredicate, which
// mongos sends, is accepted); on a collection rather than {aggregate: 1} InvalidNamespace 73
// (MongoDB's createFromBson message). Position (first only, 40602) is pipeline.cc's; in $facet it
// is refused by facet.cc (40600), in a $lookup or $unionWith sub-pipeline it is not supported yet.
#include <string>

#include "query/pipeline/stages/server_source.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

Status WrongType(std::string_view field, const bson_iter_t* it, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '$listLocalSessions." + std::string(field) +
                                              "' is the wrong type '" +
                                              std::string(BsonTypeName(bson_iter_type(it))) +
                                              "', expected type '" + std::string(expected) + "'");
}

}  // namespace

Result<StagePtr> ParseListLocalSessions(const bson_iter_t* spec, const PipelineOptions& options) {
  CAIRN_RETURN_IF_ERROR(CheckNotInSubPipeline("$listLocalSessions", options));
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kTypeMismatch,
                  "$listLocalSessions options must be specified in an object, but found: " +
                      std::string(BsonTypeName(bson_iter_type(spec))));
  }
  ListLocalSessionsSpec parsed;
  bson_iter_t option;
  IterDocument(spec).Init(&option);
  while (bson_iter_next(&option)) {
    std::string_view name = IterKey(&option);
    if (name == "allUsers") {
      if (!BSON_ITER_HOLDS_BOOL(&option)) return WrongType(name, &option, "bool");
      parsed.all_users = bson_iter_bool(&option);
    } else if (name == "users") {
      if (!BSON_ITER_HOLDS_ARRAY(&option)) return WrongType(name, &option, "array");
      parsed.users = BsonDoc(IterDocument(&option));
    } else if (name != "$_internalPredicate") {
      return Status(ErrorCode::kLocation40415, "BSON field '$listLocalSessions." +
                                                   std::string(name) + "' is an unknown field.");
    }
  }
  if (!options.collection.empty()) {
    return Status(ErrorCode::kInvalidNamespace,
                  "$listLocalSessions must be run against the database with {aggregate: 1}, not a "
                  "collection");
  }
  return MakeServerSourceStage(
      "$listLocalSessions", options,
      [parsed = std::make_shared<const ListLocalSessionsSpec>(std::move(parsed))](
          ServerSources& server) { return server.ListLocalSessions(*parsed); });
}

}  // namespace cairn::query::stages
