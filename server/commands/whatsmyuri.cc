// whatsmyuri: the client's address as the server sees it.
#include "server/command.h"

namespace cairn::server {

CommandOutcome HandleWhatsMyUri(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  AppendUtf8(reply, "you", ctx.connection.remote);
  return Status::OK();
}

}  // namespace cairn::server
