// replSetInitiate: initiates the replica set this server was started for (--replSet) with the
// given one-member configuration, or the default one ({} or no document); the server is primary
// when it answers (ReplicationCoordinator::Initiate has the rules and codes).
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleReplSetInitiate(CommandContext& ctx, const CommandRequest& request,
                                     bson_t* reply) {
  Result<CommandArgs> args = CommandArgs::Parse(request, {});
  if (!args.ok()) return args.status();
  // mongod reads a document argument as the configuration; anything else (1, true, null)
  // asks for the default one.
  BsonView config;
  if (BSON_ITER_HOLDS_DOCUMENT(&args->first())) config = IterDocument(&args->first());
  return ctx.state.repl().Initiate(config);
}

}  // namespace cairn::server
