// Cursor batches: fills firstBatch/nextBatch from a cursor's stream with MongoDB's sizing (the
// first batch 101 documents unless batchSize says otherwise, every batch at most 16 MiB of
// documents and at least one document), and writes the cursor reply
// {cursor: {firstBatch|nextBatch: [...], id, ns}}. The stream is only read as far as the batch
// needs: results are never materialised whole.
#pragma once

#include <bson/bson.h>

#include <memory>
#include <string>

#include "server/command.h"
#include "server/cursor/cursor_manager.h"
#include "server/server_state.h"

namespace cairn::server {

inline constexpr int64_t kDefaultFirstBatchDocs = 101;

// Appends `field` (firstBatch or nextBatch) with up to `max_docs` documents (0 = no count
// limit: the batch then stops at 1 MiB, else at 16 MiB) to `cursor_doc`. Sets *exhausted when the
// stream has nothing more. The batch runs under `op` (null: nothing interrupts it): the cursor's
// interrupt slot points at it while the stream is pulled, and it is checked between documents.
Status FillBatch(Cursor& cursor, Interruptible* op, bson_t* cursor_doc, const char* field,
                 int64_t max_docs, bool* exhausted);

// Reads the next default batch (1 MiB) while the client consumes the last one: the server calls
// it after sending a batch. It builds the whole reply of a getMore without batchSize into
// cursor.prepared, so that getMore sends it with no further work and no copy
// (wire::ReplyBuffer::Adopt) — the batch's reading and building leave the request's critical path.
// Cursors with a projection get their documents buffered instead.
void ReadAhead(Cursor& cursor);

// The reply memory an idle cursor keeps for its next read-ahead (a 1 MiB batch's reply grows its
// buffer by doubling).
inline constexpr size_t kPreparedReplyKeepBytes = size_t{4} << 20;

// maxTimeMS over a cursor's batches. ArmCursorDeadline gives `op`, the operation about to pull
// a batch (common/interrupt.h), the deadline left in the cursor, or fails with MaxTimeMSExpired
// when none is left; SaveCursorDeadline stores what is left of `op`'s deadline into the cursor
// (at registration, and after each batch). A null `op` does nothing.
Status ArmCursorDeadline(const Cursor& cursor, Interruptible* op);
void SaveCursorDeadline(Cursor& cursor, const Interruptible* op);

// Undoes a prepared reply that is not sent as is (the getMore has a batchSize, or came as
// OP_QUERY): its documents go back to the front of the cursor's buffer, uncounted.
void DropPreparedBatch(Cursor& cursor);

// Appends {cursor: {<field>: [batch], id, ns}} to `reply`, filling the batch straight into the
// reply (no intermediate copy). `op` and `max_docs` as FillBatch; `empty` sends an empty batch
// (batchSize 0). `cursor` is a new cursor (std::unique_ptr<Cursor>) or a checked-out one
// (CursorPin); `decide_id(cursor, exhausted)` is handed it once the batch is filled and returns
// the id to report — 0 when the cursor is done — after registering, checking in or discarding it.
template <typename CursorOwner, typename DecideId>
Status AppendCursorBatch(bson_t* reply, CursorOwner cursor, Interruptible* op, const char* field,
                         int64_t max_docs, bool empty, DecideId decide_id) {
  std::string ns = cursor->ns;
  bson_t out;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "cursor", &out);
  bool exhausted = false;
  if (empty) {
    bson_t batch;
    bson_append_array_begin(&out, field, -1, &batch);
    bson_append_array_end(&out, &batch);
  } else {
    Status status = FillBatch(*cursor, op, &out, field, max_docs, &exhausted);
    if (!status.ok()) {
      decide_id(std::move(cursor), /*exhausted=*/true);  // a failed cursor is closed
      bson_append_document_end(reply, &out);             // the caller discards the reply
      return status;
    }
  }
  if (cursor->batch_fields != nullptr) cursor->batch_fields->Append(*cursor, exhausted, &out);
  BSON_APPEND_INT64(&out, "id", decide_id(std::move(cursor), exhausted));
  AppendUtf8(&out, "ns", ns);
  bson_append_document_end(reply, &out);
  return Status::OK();
}

// Records in `debug` a batch of `n_returned` documents of `cursor`, and what its stream examined
// since the last batch recorded. (The caller sets debug.cursor_id: the id the reply gives, 0 once
// the cursor is done.)
void RecordBatch(OpDebug& debug, Cursor& cursor, int64_t n_returned);

// Runs the first batch of a new cursor and appends {cursor: {firstBatch, id, ns}} to `reply`.
// When the stream is not exhausted and !single_batch the cursor is registered for getMore. The
// cursor keeps the command's interrupt slot, which its streams were built with.
// Registers a new cursor of the command: tagged with the command's session and transaction.
int64_t RegisterCursor(CommandContext& ctx, std::unique_ptr<Cursor> cursor);

Status ReplyWithFirstBatch(CommandContext& ctx, std::unique_ptr<Cursor> cursor, int64_t batch_size,
                           bool single_batch, bson_t* reply);

}  // namespace cairn::server
