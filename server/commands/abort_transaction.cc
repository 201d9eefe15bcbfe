// abortTransaction (admin): aborts the session's multi-document transaction; nothing it wrote was
// ever visible, and none of it is kept. An aborted transaction answers NoSuchTransaction 251 and a
// committed one TransactionCommitted 256 (server/txn/transaction_scope.h).
#include "server/commands/command_args.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"

namespace cairn::server {

CommandOutcome HandleAbortTransaction(CommandContext& ctx, const CommandRequest& request,
                                      bson_t* reply) {
  if (ctx.txn == nullptr) {
    return Status(ErrorCode::kInvalidOptions, "abortTransaction must be run within a transaction");
  }
  return ctx.txn->Abort();
}

}  // namespace cairn::server
