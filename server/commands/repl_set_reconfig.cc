// replSetReconfig: replaces the set's configuration (still one member, this server) with a newer
// version, or with force: true whatever the version (ReplicationCoordinator::Reconfig).
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleReplSetReconfig(CommandContext& ctx, const CommandRequest& request,
                                     bson_t* reply) {
  Result<CommandArgs> args = CommandArgs::Parse(request, {{"force", kArgBool}});
  if (!args.ok()) return args.status();
  if (!BSON_ITER_HOLDS_DOCUMENT(&args->first())) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'replSetReconfig' is the wrong type '" +
                      std::string(BsonTypeName(bson_iter_type(&args->first()))) +
                      "', expected type 'object'");
  }
  return ctx.state.repl().Reconfig(IterDocument(&args->first()), args->GetBool("force", false));
}

}  // namespace cairn::server
