// endSessions: drivers end their logical sessions on close. The sessions leave the server's
// SessionCache ($listLocalSessions); Cairn keeps no other per-session state yet (no
// transactions, no retryable-write records). The argument must be an array, as MongoDB checks.
#include "server/commands/command_args.h"
#include "server/server_state.h"

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
  bson_iter_t session;
  bson_iter_recurse(&it, &session);
  while (bson_iter_next(&session)) {
    if (std::optional<SessionId> id = ParseSessionId(&session)) ctx.state.sessions().End(*id);
  }
  return Status::OK();
}

}  // namespace cairn::server
