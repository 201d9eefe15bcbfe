// current_op.h: $currentOp's option parsing (MongoDB's two passes: the lite parse's TypeMismatch
// checks of allUsers/localOps, then the full parse) and its documents from the OpRegistry.
#include "server/admin/current_op.h"

#include <unistd.h>

#include <algorithm>

#include "server/server_state.h"

namespace cairn::server {

namespace {

constexpr std::string_view kBoolOptions[] = {"idleConnections", "idleSessions", "allUsers",
                                             "localOps",        "truncateOps",  "idleCursors",
                                             "backtrace"};

Status NotBool(ErrorCode code, std::string_view name, const bson_iter_t* it) {
  return Status(code, "The '" + std::string(name) +
                          "' parameter of the $currentOp stage must be a boolean value, but "
                          "found: " +
                          std::string(BsonTypeName(bson_iter_type(it))));
}

// The parse of a $currentOp argument: the options it sets, or MongoDB's error.
Result<OpRegistry::ReportOptions> ParseOptions(const bson_iter_t* spec, std::string_view db,
                                               bool collectionless) {
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
  if (db != "admin" || !collectionless) {
    return Status(ErrorCode::kInvalidNamespace,
                  "$currentOp must be run against the 'admin' database with {aggregate: 1}");
  }
  OpRegistry::ReportOptions options;
  IterDocument(spec).Init(&option);
  while (bson_iter_next(&option)) {
    std::string_view name = IterKey(&option);
    if (std::find(std::begin(kBoolOptions), std::end(kBoolOptions), name) ==
        std::end(kBoolOptions)) {
      return Status(ErrorCode::kFailedToParse,
                    "Unrecognized option '" + std::string(name) + "' in $currentOp stage.");
    }
    if (!BSON_ITER_HOLDS_BOOL(&option)) return NotBool(ErrorCode::kFailedToParse, name, &option);
    if (name == "idleConnections") options.idle_connections = bson_iter_bool(&option);
  }
  return options;
}

}  // namespace

std::string ServerHostAndPort(const ServerState& state) {
  char hostname[256] = {0};
  gethostname(hostname, sizeof hostname - 1);
  return std::string(hostname) + ":" + std::to_string(state.options().port);
}

Result<std::optional<LeadingStageSource>> TakeLeadingCurrentOp(ServerState& state,
                                                               std::string_view db,
                                                               bool collectionless,
                                                               BsonView pipeline) {
  bson_iter_t stages, spec;
  if (!FindLeadingStage(pipeline, "$currentOp", &stages, &spec)) {
    // Elsewhere in the pipeline: its own checks, then the position rule.
    bson_iter_t it, stage;
    pipeline.Init(&it);
    while (bson_iter_next(&it)) {
      if (BSON_ITER_HOLDS_DOCUMENT(&it) && IterDocument(&it).Init(&stage) &&
          bson_iter_next(&stage) && IterKey(&stage) == "$currentOp") {
        CAIRN_RETURN_IF_ERROR(ParseOptions(&stage, db, collectionless).status());
        return Status(ErrorCode::kLocation40602,
                      "$currentOp is only valid as the first stage in a pipeline");
      }
    }
    return std::optional<LeadingStageSource>();
  }
  CAIRN_ASSIGN_OR_RETURN(OpRegistry::ReportOptions options,
                         ParseOptions(&spec, db, collectionless));
  options.host = ServerHostAndPort(state);
  LeadingStageSource source;
  source.documents = state.ops().Report(options);
  source.rest = RestOfPipeline(&stages);
  return std::optional<LeadingStageSource>(std::move(source));
}

}  // namespace cairn::server
