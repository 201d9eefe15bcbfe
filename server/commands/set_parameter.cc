// setParameter: changes the runtime-settable server parameters (server/server_parameters.h) with
// MongoDB's checks, all made before anything changes: an unknown name → InvalidOptions 72, a
// parameter getParameter shows but Cairn cannot change at runtime → IllegalOperation 20, a name
// given twice → InvalidOptions; then sets them in name order, replying `was` with the first
// one's previous value. logLevel and logComponentVerbosity set the logger's levels
// (admin/log_verbosity.h).
#include <map>
#include <string>

#include "common/bson_element.h"
#include "common/logging.h"
#include "server/admin/log_verbosity.h"
#include "server/commands/command_args.h"
#include "server/server_parameters.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// Parameters getParameter reports that Cairn does not let a client change.
constexpr std::string_view kReadOnlyParameters[] = {"cursorTimeoutMillis",
                                                    "featureCompatibilityVersion", "quiet"};

// The logger's parameters, set through log_verbosity.h rather than ServerParameters.
bool IsLogParameter(std::string_view name) {
  return name == "logComponentVerbosity" || name == "logLevel";
}

bool IsReadOnly(std::string_view name) {
  for (std::string_view p : kReadOnlyParameters) {
    if (p == name) return true;
  }
  return false;
}

}  // namespace

CommandOutcome HandleSetParameter(CommandContext& ctx, const CommandRequest& request,
                                  bson_t* reply) {
  std::map<std::string_view, BsonElement> to_set;
  bson_iter_t it;
  request.body.Init(&it);
  bson_iter_next(&it);  // setParameter: 1
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    if (IsGenericArgument(name)) continue;
    if (!IsSettableParameter(name) && !IsLogParameter(name)) {
      if (IsReadOnly(name)) {
        return Status(ErrorCode::kIllegalOperation,
                      "not allowed to change [" + std::string(name) + "] at runtime");
      }
      return Status(ErrorCode::kInvalidOptions, "attempted to set unrecognized parameter [" +
                                                    std::string(name) +
                                                    "], use help:true to see options ");
    }
    auto [pos, inserted] = to_set.emplace(name, BsonElement(&it));
    if (!inserted) {
      bson_iter_t first = pos->second.iter();
      return Status(ErrorCode::kInvalidOptions,
                    "attempted to set parameter [" + std::string(name) +
                        "] twice in the same setParameter command, once to value: [" +
                        ValueToShellString(&first) + "], and once to value: [" +
                        ValueToShellString(&it) + "]");
    }
  }
  if (to_set.empty()) {
    return Status(ErrorCode::kInvalidOptions,
                  "no option found to set, use help:true to see options ");
  }
  // The logger's levels are checked with the others, before anything changes.
  LogVerbosityChanges log_changes;
  if (auto it = to_set.find("logComponentVerbosity"); it != to_set.end()) {
    bson_iter_t value = it->second.iter();
    CAIRN_ASSIGN_OR_RETURN(log_changes, ParseLogComponentVerbosity(&value));
  }
  if (auto it = to_set.find("logLevel"); it != to_set.end()) {
    bson_iter_t value = it->second.iter();
    if (!BSON_ITER_HOLDS_NUMBER(&value) || bson_iter_as_int64(&value) < 0) {
      return Status(
          ErrorCode::kBadValue,
          "Invalid value for logLevel: " + ValueToShellString(&value) + " (a verbosity of 0 to 5)");
    }
    log_changes.emplace_back("", static_cast<int>(bson_iter_as_int64(&value)));
  }
  ServerParameters& parameters = ctx.state.parameters();
  bool first = true;
  for (const auto& [name, element] : to_set) {
    if (first) {
      if (name == "logComponentVerbosity") {
        AppendLogComponentVerbosity(reply, "was");
      } else if (name == "logLevel") {
        BSON_APPEND_INT32(reply, "was", logging::GlobalVerbosity());
      } else {
        AppendParameterValue(parameters, name, "was", reply);
      }
    }
    first = false;
    if (IsLogParameter(name)) continue;
    bson_iter_t value = element.iter();
    CAIRN_RETURN_IF_ERROR(SetParameterValue(&parameters, name, &value));
  }
  ApplyLogVerbosity(log_changes);
  // A new ttlMonitorSleepSecs applies to the sleep in progress.
  if (to_set.count("ttlMonitorSleepSecs") != 0) ctx.state.ttl_monitor().Wake();
  return Status::OK();
}

}  // namespace cairn::server
