// killSessions: kills sessions as mongod does: their running operations are interrupted
// (Interrupted 11601), their cursors killed, and their open multi-document transactions
// aborted. Each session is {id: UUID} (a uid is accepted and ignored: there is no
// authentication). The sessions stay in the session cache (endSessions ends them).
#include <vector>

#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleKillSessions(CommandContext& ctx, const CommandRequest& request,
                                  bson_t* reply) {
  bson_iter_t it;
  request.body.Init(&it);
  bson_iter_next(&it);
  if (!BSON_ITER_HOLDS_ARRAY(&it)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'killSessions' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&it))) +
                                                "', expected type 'array'");
  }
  std::vector<SessionId> sessions;
  bson_iter_t session;
  bson_iter_recurse(&it, &session);
  while (bson_iter_next(&session)) {
    std::optional<SessionId> id = ParseSessionId(&session);
    if (!id) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'KillSessionsCmdFromClient.killSessions' is the wrong type: each "
                    "session must be {id: UUID}");
    }
    sessions.push_back(*id);
  }
  // Operations first: a running command holds its session until it stops.
  ctx.state.ops().KillSessions(sessions, ErrorCode::kInterrupted);
  ctx.state.cursors().KillSessionCursors(sessions);
  ctx.state.repl().retryable().AbortTransactionsOf(sessions);
  return Status::OK();
}

}  // namespace cairn::server
