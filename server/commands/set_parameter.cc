// setParameter: changes the runtime-settable server parameters (server/server_parameters.h) with
// MongoDB's checks, all made before anything changes: an unknown name → InvalidOptions 72, a
// parameter getParameter shows but Cairn cannot change at runtime → IllegalOperation 20, a name
// given twice → InvalidOptions; then sets them in name order, replying `was` with the first
// one's previous value.
#include <map>
#include <string>

#include "common/bson_element.h"
#include "server/commands/command_args.h"
#include "server/server_parameters.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// Parameters getParameter reports that Cairn does not let a client change.
constexpr std::string_view kReadOnlyParameters[] = {
    "cursorTimeoutMillis", "featureCompatibilityVersion", "logLevel", "quiet"};

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
    if (!IsSettableParameter(name)) {
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
  ServerParameters& parameters = ctx.state.parameters();
  bool first = true;
  for (const auto& [name, element] : to_set) {
    if (first) AppendParameterValue(parameters, name, "was", reply);
    first = false;
    bson_iter_t value = element.iter();
    CAIRN_RETURN_IF_ERROR(SetParameterValue(&parameters, name, &value));
  }
  // A new ttlMonitorSleepSecs applies to the sleep in progress.
  if (to_set.count("ttlMonitorSleepSecs") != 0) ctx.state.ttl_monitor().Wake();
  return Status::OK();
}

}  // namespace cairn::server
