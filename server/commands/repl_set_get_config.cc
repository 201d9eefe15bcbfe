// replSetGetConfig: the set's configuration as rs.conf() prints it ({config: {...}}).
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleReplSetGetConfig(CommandContext& ctx, const CommandRequest& request,
                                      bson_t* reply) {
  Result<CommandArgs> args = CommandArgs::Parse(
      request, {{"commitmentStatus", kArgBool}, {"includeNewlyAdded", kArgBool}});
  if (!args.ok()) return args.status();
  std::shared_ptr<const Topology> topology = ctx.state.repl().topology();
  if (topology->state == MemberState::kStandalone) {
    return Status(ErrorCode::kNoReplicationEnabled, "not running with --replSet");
  }
  if (!topology->config) {
    return Status(ErrorCode::kNotYetInitialized, "no replset config has been received");
  }
  bson_t config;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "config", &config);
  topology->config->AppendTo(&config);
  bson_append_document_end(reply, &config);
  // A one-member set commits every configuration the moment it is installed.
  if (args->GetBool("commitmentStatus", false)) BSON_APPEND_BOOL(reply, "commitmentStatus", true);
  return Status::OK();
}

}  // namespace cairn::server
