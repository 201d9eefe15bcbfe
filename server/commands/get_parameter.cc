// getParameter: the server parameters Cairn has, by name or all with "*" (mongosh asks for
// featureCompatibilityVersion on connect). An unknown name answers InvalidOptions as MongoDB.
#include <string>

#include "common/logging.h"
#include "server/admin/log_verbosity.h"
#include "server/commands/command_args.h"
#include "server/server_parameters.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

void AppendParameter(CommandContext& ctx, std::string_view name, bson_t* reply) {
  if (name == "featureCompatibilityVersion") {
    bson_t fcv;
    BSON_APPEND_DOCUMENT_BEGIN(reply, "featureCompatibilityVersion", &fcv);
    BSON_APPEND_UTF8(&fcv, "version", "7.0");
    bson_append_document_end(reply, &fcv);
  } else if (name == "cursorTimeoutMillis") {
    BSON_APPEND_INT64(reply, "cursorTimeoutMillis",
                      static_cast<int64_t>(ctx.state.options().cursor_timeout_minutes) * 60000);
  } else if (name == "quiet") {
    BSON_APPEND_BOOL(reply, "quiet", ctx.state.options().quiet);
  } else if (name == "logLevel") {
    BSON_APPEND_INT32(reply, "logLevel", logging::GlobalVerbosity());
  } else if (name == "logComponentVerbosity") {
    AppendLogComponentVerbosity(reply, "logComponentVerbosity");
  } else if (name == "maxBsonObjectSize") {
    BSON_APPEND_INT32(reply, "maxBsonObjectSize", kMaxBsonObjectSize);
  } else {
    AppendParameterValue(ctx.state.parameters(), name, name, reply);  // setParameter's
  }
}

constexpr std::string_view kParameters[] = {"cursorTimeoutMillis", "featureCompatibilityVersion",
                                            "logComponentVerbosity", "logLevel", "quiet"};

bool Known(std::string_view name) {
  for (std::string_view p : kParameters) {
    if (p == name) return true;
  }
  return IsSettableParameter(name);
}

void AppendAllParameters(CommandContext& ctx, bson_t* reply) {
  for (std::string_view p : kParameters) AppendParameter(ctx, p, reply);
  for (std::string_view p : SettableParameterNames()) AppendParameter(ctx, p, reply);
}

}  // namespace

CommandOutcome HandleGetParameter(CommandContext& ctx, const CommandRequest& request,
                                  bson_t* reply) {
  bson_iter_t it;
  request.body.Init(&it);
  bson_iter_next(&it);
  if (BSON_ITER_HOLDS_UTF8(&it) && IterUtf8(&it) == "*") {
    AppendAllParameters(ctx, reply);
    return Status::OK();
  }
  if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
    // {getParameter: {showDetails: true, allParameters: true}}
    BsonView options = IterDocument(&it);
    bson_iter_t all;
    if (options.Find("allParameters", &all) && bson_iter_as_bool(&all)) {
      AppendAllParameters(ctx, reply);
      return Status::OK();
    }
  }
  int found = 0;
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    if (IsGenericArgument(name)) continue;
    if (!Known(name)) {
      return Status(ErrorCode::kInvalidOptions, "no option found to get");
    }
    AppendParameter(ctx, name, reply);
    ++found;
  }
  if (found == 0) return Status(ErrorCode::kInvalidOptions, "no option found to get");
  return Status::OK();
}

}  // namespace cairn::server
