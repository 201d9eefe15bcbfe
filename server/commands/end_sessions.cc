// endSessions: drivers end their logical sessions on close. Cairn keeps no per-session state
// yet (no transactions, no retryable-write records), so there is nothing to release; the
// argument is still checked to be an array of session ids, as MongoDB does.
#include "server/commands/command_args.h"

namespace cairn::server {

Status HandleEndSessions(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  bson_iter_t it;
  request.body.Init(&it);
  bson_iter_next(&it);
  if (!BSON_ITER_HOLDS_ARRAY(&it)) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'endSessions' is the wrong type '" +
                      std::string(BsonTypeName(bson_iter_type(&it))) + "', expected type 'array'");
  }
  return Status::OK();
}

}  // namespace cairn::server
