// getDefaultRWConcern: {getDefaultRWConcern: 1, inMemory: <bool>} (admin only). A replica set
// member answers the cluster-wide defaults setDefaultRWConcern set, or the implicit ones, with
// their sources and update times (server/repl/rw_concern_defaults.h); a standalone refuses with
// mongod's 51300. Cairn has one copy of the defaults, in memory and stored alike, so inMemory
// only adds inMemory: true to the reply, as mongod does.
#include <string>

#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleGetDefaultRWConcern(CommandContext& ctx, const CommandRequest& request,
                                         bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args, CommandArgs::Parse(request, {{"inMemory", kArgBool}}));
  ReplicationCoordinator& repl = ctx.state.repl();
  if (!repl.enabled()) {
    return Status(ErrorCode::kLocation51300,
                  "'getDefaultRWConcern' is not supported on standalone nodes.");
  }
  // The implicit default write concern is known once the set has a configuration.
  RwConcernDefaults::AppendReply(*repl.rw_concern_defaults().current(), repl.primary(),
                                 args.GetBool("inMemory", false), reply);
  return Status::OK();
}

}  // namespace cairn::server
