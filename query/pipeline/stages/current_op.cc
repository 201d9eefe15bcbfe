// $currentOp: {$currentOp: {idleConnections?, idleSessions?, allUsers?, localOps?, truncateOps?,
// idleCursors?, backtrace?}} — the server's connections and running commands
// (ServerSources::CurrentOp), in MongoDB's shape. Parse in MongoDB's two passes: its lite parse
// (an argument that is not an object, or allUsers/localOps not bool: TypeMismatch 14), then the
// full parse (not on admin with {aggregate: 1}: InvalidNamespace 73; an unknown option or
// another option not bool: FailedToParse 9). Position (first only, 40602) is pipeline.cc's; in
// $facet it is refused by facet.cc (40600), in a $lookup or $unionWith sub-pipeline it is not
// supported yet.
#include <algorithm>
#include <iterator>
#include <string>

#include "query/pipeline/stages/server_source.h"
#include "query/pipeline/stages/stage_parsers.h"

namespace cairn::query::stages {

namespace {

struct BoolOption {
  std::string_view name;
  bool CurrentOpSpec::*field;
};

constexpr BoolOption kBoolOptions[] = {
    {"idleConnections", &CurrentOpSpec::idle_connections},
    {"idleSessions", &CurrentOpSpec::idle_sessions},
    {"allUsers", &CurrentOpSpec::all_users},
    {"localOps", &CurrentOpSpec::local_ops},
    {"truncateOps", &CurrentOpSpec::truncate_ops},
    {"idleCursors", &CurrentOpSpec::idle_cursors},
    {"backtrace", &CurrentOpSpec::backtrace},
};

Status NotBool(ErrorCode code, std::string_view name, const bson_iter_t* it) {
  return Status(code, "The '" + std::string(name) +
                          "' parameter of the $currentOp stage must be a boolean value, but "
                          "found: " +
                          std::string(BsonTypeName(bson_iter_type(it))));
}

}  // namespace

Result<StagePtr> ParseCurrentOp(const bson_iter_t* spec, const PipelineOptions& options) {
  CAIRN_RETURN_IF_ERROR(CheckNotInSubPipeline("$currentOp", options));
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kTypeMismatch,
                  "$currentOp options must be specified in an object, but found: " +
                      std::string(BsonTypeName(bson_iter_type(spec))));
  }
  bson_iter_t option;
  IterDocument(spec).Init(&option);
  while (bson_iter_next(&option)) {
    std::string_view name = IterKey(&option);
    if ((name == "allUsers" || name == "localOps") && !BSON_ITER_HOLDS_BOOL(&option)) {
      return NotBool(ErrorCode::kTypeMismatch, name, &option);
    }
  }
  if (options.db != "admin" || !options.collection.empty()) {
    return Status(ErrorCode::kInvalidNamespace,
                  "$currentOp must be run against the 'admin' database with {aggregate: 1}");
  }
  CurrentOpSpec parsed;
  IterDocument(spec).Init(&option);
  while (bson_iter_next(&option)) {
    std::string_view name = IterKey(&option);
    const BoolOption* known =
        std::find_if(std::begin(kBoolOptions), std::end(kBoolOptions),
                     [&](const BoolOption& candidate) { return candidate.name == name; });
    if (known == std::end(kBoolOptions)) {
      return Status(ErrorCode::kFailedToParse,
                    "Unrecognized option '" + std::string(name) + "' in $currentOp stage.");
    }
    if (!BSON_ITER_HOLDS_BOOL(&option)) return NotBool(ErrorCode::kFailedToParse, name, &option);
    parsed.*(known->field) = bson_iter_bool(&option);
  }
  return MakeServerSourceStage(
      "$currentOp", options, [parsed](ServerSources& server) { return server.CurrentOp(parsed); });
}

}  // namespace cairn::query::stages
