// commitTransaction (admin): commits the session's multi-document transaction, its data and its
// applyOps oplog entry in one atomic write (server/txn/session_transaction.h). A commit retried
// after it succeeded answers OK again, and waits for its write concern again, as mongod does.
// WriteConflict 112 (with TransientTransactionError) when a key it wrote changed meanwhile; the
// transaction is then aborted.
#include "server/commands/command_args.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"

namespace cairn::server {

CommandOutcome HandleCommitTransaction(CommandContext& ctx, const CommandRequest& request,
                                       bson_t* reply) {
  if (ctx.txn == nullptr) {
    return Status(ErrorCode::kInvalidOptions, "commitTransaction must be run within a transaction");
  }
  bson_iter_t commit_timestamp;
  if (request.body.Find("commitTimestamp", &commit_timestamp)) {
    return Status(ErrorCode::kInvalidOptions,
                  "commitTransaction cannot provide commitTimestamp to unprepared transaction.");
  }
  return ctx.txn->Commit();
}

}  // namespace cairn::server
