// endSessions: drivers end their logical sessions on close. The sessions leave the server's
// SessionCache ($listLocalSessions), and their open multi-document transactions are aborted (mongod
// aborts them at its next session-cache refresh; at once is the same to a client, whose driver
// aborts before ending). Retryable-write records stay: a retry may still come. The argument must
// be an array, as MongoDB checks.
#include "server/commands/command_args.h"
#include "server/server_state.h"

#include <vector>

namespace cairn::server {

CommandOutcome HandleEndSessions(CommandContext& ctx, const CommandRequest& request,
                                 bson_t* reply) {
  bson_iter_t it;
  request.body.Init(&it);
  bson_iter_next(&it);
  if (!BSON_ITER_HOLDS_ARRAY(&it)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'endSessions' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&it))) +
                                                "', expected type 'array'");
  }
  ctx.connection.last_session = {};  // a later use records the session again
  std::vector<SessionId> ended;
  bson_iter_t session;
  bson_iter_recurse(&it, &session);
  while (bson_iter_next(&session)) {
    if (std::optional<SessionId> id = ParseSessionId(&session)) {
      ctx.state.sessions().End(*id);
      ended.push_back(*id);
    }
  }
  ctx.state.repl().retryable().AbortTransactionsOf(ended);
  return Status::OK();
}

}  // namespace cairn::server
