// getLog: "*" lists the logs; "global" returns recent log lines; "startupWarnings" the warnings
// logged at start-up (mongosh prints them on connect).
#include <string>
#include <vector>

#include "common/logging.h"
#include "server/command.h"

namespace cairn::server {

CommandOutcome HandleGetLog(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  bson_iter_t it;
  request.body.Init(&it);
  bson_iter_next(&it);
  if (!BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kTypeMismatch, "Argument to getLog must be of type String; found " +
                                                ValueToShellString(&it) + " of type " +
                                                std::string(BsonTypeName(bson_iter_type(&it))));
  }
  std::string_view name = IterUtf8(&it);
  if (name == "*") {
    bson_t names;
    BSON_APPEND_ARRAY_BEGIN(reply, "names", &names);
    BSON_APPEND_UTF8(&names, "0", "global");
    BSON_APPEND_UTF8(&names, "1", "startupWarnings");
    bson_append_array_end(reply, &names);
    return Status::OK();
  }
  std::vector<std::string> lines;
  if (name == "global") {
    lines = logging::RecentLines();
  } else if (name == "startupWarnings") {
    lines = logging::StartupWarnings();
  } else {
    return Status(ErrorCode::kOperationFailed, "No log named '" + std::string(name) + "'");
  }
  BSON_APPEND_INT64(reply, "totalLinesWritten", static_cast<int64_t>(lines.size()));
  bson_t log;
  BSON_APPEND_ARRAY_BEGIN(reply, "log", &log);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string key = std::to_string(i);
    BSON_APPEND_UTF8(&log, key.c_str(), lines[i].c_str());
  }
  bson_append_array_end(reply, &log);
  return Status::OK();
}

}  // namespace cairn::server
