// dropDatabase: drops every collection of the database in one atomic write.
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleDropDatabase(CommandContext& ctx, const CommandRequest& request,
                                  bson_t* reply) {
  CAIRN_RETURN_IF_ERROR(CommandArgs::Parse(request, {}).status());  // validation only
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(request.db));
  CAIRN_RETURN_IF_ERROR(ctx.state.engine().catalog().DropDatabase(request.db));
  AppendUtf8(reply, "dropped", request.db);
  return Status::OK();
}

}  // namespace cairn::server
