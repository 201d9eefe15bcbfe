// killOp: interrupts a running operation by its opid ($currentOp's "opid"). The operation ends
// at its next safe point with Interrupted 11601 "operation was interrupted"; the reply does not
// wait for it, and says the same whether or not the operation was found, as mongod's does.
#include <climits>
#include <string>

#include "common/logging.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleKillOp(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args, CommandArgs::Parse(request, {{"op", kArgAny}}));
  bson_iter_t op;
  if (!args.Get("op", &op)) {
    return Status(ErrorCode::kNoSuchKey, "Missing expected field \"op\"");
  }
  int64_t opid = 0;
  if (!IterAsInt64(&op, &opid)) {
    double value = 0;
    if (!IterAsDouble(&op, &value)) {
      return Status(ErrorCode::kTypeMismatch, "\"op\" had the wrong type. Expected number, found " +
                                                  std::string(BsonTypeName(bson_iter_type(&op))));
    }
    return Status(ErrorCode::kBadValue,
                  "Expected field \"op\" to have integral value, not " + ValueToShellString(&op));
  }
  if (opid < INT_MIN || opid > INT_MAX) {
    return Status(ErrorCode::kLocation26823, "invalid op : " + std::to_string(opid) +
                                                 ". Op ID cannot be represented with 32 bits");
  }
  {
    BsonDoc attr;
    BSON_APPEND_INT64(attr.get(), "opId", opid);
    logging::Log(logging::Severity::kInfo, "COMMAND", 20482,
                 "conn" + std::to_string(ctx.connection.id), "Going to kill op", attr.get());
  }
  ctx.state.ops().Kill(opid, ErrorCode::kInterrupted);
  AppendUtf8(reply, "info", "attempting to kill op");
  return Status::OK();
}

}  // namespace cairn::server
