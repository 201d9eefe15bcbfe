// getMore: the next batch of an open cursor (no document-count limit unless batchSize; at most
// 16 MiB, or 1 MiB without batchSize, when the following batch is read ahead, reply and all:
// see ReadAhead). The cursor is closed when its stream is exhausted. A non-tailable cursor's
// batches run under what is left of its find's or aggregate's maxTimeMS (a getMore's own
// maxTimeMS is accepted and ignored for them, as MongoDB does). Tailable cursors:
// tailable_cursor.h.
#include <string>

#include "server/admin/fail_points.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/commands/command_table.h"
#include "server/cursor/cursor_batch.h"
#include "server/cursor/tailable_cursor.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"
#include "wire/reply_buffer.h"

namespace cairn::server {

namespace {

// A cursor opened in a transaction is read by that transaction's commands only, and a
// transaction reads only its own cursors (mongod's 50739-50741).
Status CheckCursorTransaction(CommandContext& ctx, const Cursor& cursor) {
  const void* txn = ctx.txn != nullptr ? ctx.txn->transaction() : nullptr;
  if (cursor.transaction == txn) return Status::OK();
  const std::string prefix = "Cannot run getMore on cursor " + std::to_string(cursor.id);
  if (cursor.transaction == nullptr) {
    return Status(ErrorCode::kLocation50739,
                  prefix + ", which was not created in a transaction, in transaction " +
                      std::to_string(ctx.txn->txn_number()));
  }
  if (ctx.txn == nullptr) {
    return Status(ErrorCode::kLocation50740, prefix + ", which was created in transaction " +
                                                 std::to_string(cursor.txn_number) +
                                                 ", without a txnNumber");
  }
  return Status(ErrorCode::kLocation50741,
                prefix + ", which was created in transaction " + std::to_string(cursor.txn_number) +
                    ", in transaction " + std::to_string(ctx.txn->txn_number()));
}

}  // namespace

CommandOutcome HandleGetMore(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  bson_iter_t it;
  request.body.Init(&it);
  bson_iter_next(&it);
  if (bson_iter_type(&it) != BSON_TYPE_INT64) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'getMore.getMore' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&it))) +
                                                "', expected type 'long'");
  }
  int64_t id = bson_iter_int64(&it);
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"collection", kArgString, true},
                                                      {"batchSize", kArgNumber},
                                                      {"term", kArgNumber},
                                                      {"lastKnownCommittedOpTime", kArgDocument}}));
  ctx.state.opcounters().getmore++;
  int64_t batch_size = args.GetInt("batchSize", 0);
  CAIRN_RETURN_IF_ERROR(CheckNonNegative("batchSize", batch_size));
  std::string ns = MakeNamespace(request.db, args.GetString("collection"));
  // Checked out until the pin ends: every return below gives it back, unless it is discarded.
  CAIRN_ASSIGN_OR_RETURN(CursorPin cursor, ctx.state.cursors().Pin(id, ns));
  CAIRN_RETURN_IF_ERROR(CheckCursorTransaction(ctx, *cursor));
  // failGetMoreAfterCursorCheckout (a test failpoint): the getMore fails once its cursor is
  // checked out, with the data's errorCode (InternalError without one), for the connections
  // failCommand's rules pick (appName, namespace...).
  const FailCommandTarget target{FindCommand("getMore"), &request, &ctx.connection, FindCommand};
  if (std::shared_ptr<const BsonDoc> data =
          ctx.state.fail_points().fail_get_more_after_cursor_checkout.Evaluate(
              [&](BsonView data) { return FailCommandTargets(data, target); })) {
    bson_iter_t code;
    const bool has_code = data->view().Find("errorCode", &code) && IterIsNumber(&code);
    return Status(
        has_code ? static_cast<ErrorCode>(bson_iter_as_int64(&code)) : ErrorCode::kInternalError,
        "Hit the 'failGetMoreAfterCursorCheckout' failpoint");
  }
  if (cursor->tailable) {
    int64_t max_time_ms = args.GetInt("maxTimeMS", 0);
    if (args.Has("maxTimeMS") && !cursor->await_data) {
      return Status(ErrorCode::kBadValue,
                    "cannot set maxTimeMS on getMore command for a non-awaitData cursor");
    }
    return ReplyWithTailableGetMore(ctx, std::move(cursor), ns, batch_size, max_time_ms, reply);
  }
  // The find's or aggregate's maxTimeMS goes on counting over the batches, under this getMore.
  Interruptible* op = ctx.interrupt->op();
  if (Status armed = ArmCursorDeadline(*cursor, op); !armed.ok()) {
    cursor.Discard();
    return armed.WithContext("Executor error during getMore");
  }
  if (cursor->prepared_ready) {
    // The batch read ahead, reply and all (cursor_batch.h): sent as is when nothing asks for a
    // different batch, else returned to the buffer.
    if (batch_size == 0 && ctx.out != nullptr && ctx.out->Adopt(*cursor->prepared)) {
      cursor->prepared_ready = false;
      RecordBatch(ctx.debug, *cursor, cursor->prepared_docs);
      ctx.debug.cursor_id = cursor->prepared_exhausted ? 0 : id;
      // The cursor now holds the connection's previous reply buffer: an idle cursor keeps no
      // more than a read-ahead needs (that buffer may have grown for a 16 MiB batch).
      cursor->prepared->Reset(kPreparedReplyKeepBytes);
      if (cursor->prepared_exhausted) {
        cursor.Discard();
        return Status::OK();
      }
      cursor.CheckIn();  // before the loop starts the read-ahead of it
      return Continuation::ReadAhead(id);
    }
    DropPreparedBatch(*cursor);
  }
  bool open = false;
  const int64_t returned_before = cursor->returned;
  Status status =
      AppendCursorBatch(reply, std::move(cursor), op, "nextBatch", batch_size, /*empty=*/false,
                        [&](CursorPin done, bool exhausted) -> int64_t {
                          RecordBatch(ctx.debug, *done, done->returned - returned_before);
                          ctx.debug.cursor_id = exhausted ? 0 : id;
                          if (exhausted) {
                            done.Discard();
                            return 0;
                          }
                          SaveCursorDeadline(*done, op);
                          done.CheckIn();
                          open = true;
                          return id;
                        });
  // An error while the batch runs carries MongoDB's context (getmore_cmd.cpp), for find and
  // aggregate cursors alike.
  if (!status.ok()) return status.WithContext("Executor error during getMore");
  // A driver iterating a cursor without batchSize will ask for the next batch: read it while this
  // one is on its way. Not on a replica set member: every reply there carries the cluster time
  // and operationTime of the moment it is sent, which a reply built ahead cannot.
  if (open && batch_size == 0 && !ctx.state.repl().enabled()) return Continuation::ReadAhead(id);
  return status;
}

}  // namespace cairn::server
