// ping: answers {ok: 1}; drivers use it to check liveness and measure round trips.
#include "server/command.h"

namespace cairn::server {

CommandOutcome HandlePing(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  return Status::OK();
}

}  // namespace cairn::server
