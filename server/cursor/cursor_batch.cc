// Batch filling for find/getMore (and later aggregate).
#include "server/cursor/cursor_batch.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "common/interrupt.h"
#include "server/txn/transaction_scope.h"
#include "wire/message.h"

namespace cairn::server {

namespace {

// The 16 MiB of documents a batch carries at most, as MongoDB, when the client asked for a
// number of documents (batchSize).
constexpr size_t kMaxBatchBytes = static_cast<size_t>(kMaxBsonObjectSize);

// Without a batchSize (the common getMore of a driver iterating a cursor) batches stop at 1 MiB.
// A full scan (tools/bench scan, 200k documents of 223 B, the batch read ahead as a whole reply)
// ran 0.48-0.51 of the RocksDB-iterator ceiling with 4 MiB batches and 0.53-0.55 with 1 MiB
// ones (16 MiB ones ran 0.21 before the read-ahead): a reply that fits in cache is built, sent
// and parsed faster, and the client starts on it sooner. MongoDB, too, may return fewer
// documents than fit; no client relies on the batch being full.
constexpr size_t kDefaultBatchBytes = size_t{1} << 20;

// The decimal array index `n` written into buf (no terminator needed: lengths are passed);
// returns its length. libbson's bson_uint32_to_string falls back to snprintf above 999, which
// cost ~5% of a scan (a full batch has ~75,000 keys).
size_t FormatIndex(uint32_t n, char* buf) {
  char reversed[10];
  size_t length = 0;
  do {
    reversed[length++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  for (size_t i = 0; i < length; ++i) buf[i] = reversed[length - 1 - i];
  return length;
}

// The buffered document at the cursor's read position.
BsonView BufferedDocument(const Cursor& cursor) {
  const uint8_t* at =
      reinterpret_cast<const uint8_t*>(cursor.buffered.data()) + cursor.buffered_offset;
  uint32_t length;
  std::memcpy(&length, at, sizeof length);
  return BsonView(at, BSON_UINT32_FROM_LE(length));
}

}  // namespace

Status FillBatch(Cursor& cursor, Interruptible* op, bson_t* cursor_doc, const char* field,
                 int64_t max_docs, bool* exhausted) {
  // The streams' safe points check the operation pulling this batch.
  ScopedInterrupt current(cursor.interrupt.get(), op);
  *exhausted = false;
  bson_t array;
  bson_append_array_begin(cursor_doc, field, -1, &array);
  int64_t count = 0;
  size_t bytes = 0;
  char key_buf[16];
  const size_t max_bytes = max_docs == 0 ? kDefaultBatchBytes : kMaxBatchBytes;
  bson_t projected;
  bson_init(&projected);
  Status status;
  Status projection_error;  // a positional projection that found no element ends the query
  // Appends `doc` unless the batch is full (then false).
  auto append = [&](BsonView doc) -> bool {
    size_t key_len = FormatIndex(static_cast<uint32_t>(count), key_buf);
    BsonView out = doc;
    if (cursor.projection && !cursor.projection->IsIdentity()) {
      bson_reinit(&projected);
      projection_error = cursor.projection->Apply(doc, &projected);
      if (!projection_error.ok()) return false;
      out = BsonView(&projected);
    }
    if (count > 0 && bytes + out.size() > max_bytes) return false;
    bson_t view = out.AsBson();
    bson_append_document(&array, key_buf, static_cast<int>(key_len), &view);
    bytes += out.size();
    ++count;
    return true;
  };

  // First the documents already pulled from the stream.
  bool full = false;
  while (cursor.buffered_offset < cursor.buffered.size() && (max_docs == 0 || count < max_docs)) {
    BsonView doc = BufferedDocument(cursor);
    if (!append(doc)) {
      full = true;
      break;
    }
    cursor.buffered_offset += doc.size();
  }
  if (cursor.buffered_offset == cursor.buffered.size()) {
    cursor.buffered.clear();
    cursor.buffered_offset = 0;
    if (cursor.stream_done) {
      status = cursor.stream_status;
      *exhausted = true;
      full = true;
    }
  } else {
    full = true;
  }
  while (!full && (max_docs == 0 || count < max_docs)) {
    if (bytes >= max_bytes) break;
    // A safe point for whatever produces the documents (an $unwind of a large array, a sort's
    // merge of its spilled runs): maxTimeMS, killOp and the client's disconnect stop it here.
    if (op != nullptr) status = op->Check();
    if (!status.ok()) break;
    if (!cursor.stream->Next()) {
      status = cursor.stream->status();
      *exhausted = true;
      break;
    }
    BsonView doc = cursor.stream->document();
    if (!append(doc)) {
      // Keep it for the next batch (the buffer is empty here).
      cursor.buffered.assign(reinterpret_cast<const char*>(doc.data()), doc.size());
      break;
    }
  }
  bson_destroy(&projected);
  bson_append_array_end(cursor_doc, &array);
  if (!projection_error.ok()) {
    *exhausted = true;
    return projection_error;
  }
  cursor.returned += count;
  if (cursor.limit > 0 && cursor.returned >= cursor.limit && cursor.buffered.empty()) {
    *exhausted = true;
  }
  return status;
}

namespace {

// The old read-ahead: documents pulled into the cursor's buffer, for a cursor whose batches are
// projected (a prepared reply holds documents as they will be sent, which could not be returned
// to the buffer and projected again).
void ReadAheadIntoBuffer(Cursor& cursor) {
  if (cursor.buffered_offset > 0) {
    cursor.buffered.erase(0, cursor.buffered_offset);
    cursor.buffered_offset = 0;
  }
  while (cursor.buffered.size() < kDefaultBatchBytes) {
    if (!cursor.stream->Next()) {
      cursor.stream_done = true;
      cursor.stream_status = cursor.stream->status();
      return;
    }
    BsonView doc = cursor.stream->document();
    cursor.buffered.append(reinterpret_cast<const char*>(doc.data()), doc.size());
  }
}

// The nextBatch array of a finished prepared reply.
bool PreparedBatchArray(const wire::ReplyBuffer& prepared, bson_iter_t* batch) {
  BsonView body(prepared.data() + wire::kOpMsgBodyOffset, prepared.size() - wire::kOpMsgBodyOffset);
  bson_iter_t it;
  return body.Init(&it) && bson_iter_find_descendant(&it, "cursor.nextBatch", batch) &&
         bson_iter_recurse(batch, batch);
}

}  // namespace

static void ReadAheadBatch(Cursor& cursor, Interruptible* op);

Status ArmCursorDeadline(const Cursor& cursor, Interruptible* op) {
  if (!cursor.time_left || op == nullptr) return Status::OK();
  if (*cursor.time_left <= std::chrono::steady_clock::duration::zero()) {
    return Status(ErrorCode::kMaxTimeMSExpired, "operation exceeded time limit");
  }
  op->set_deadline(std::chrono::steady_clock::now() + *cursor.time_left);
  return Status::OK();
}

void SaveCursorDeadline(Cursor& cursor, const Interruptible* op) {
  if (op == nullptr || !op->has_deadline()) return;
  cursor.time_left = std::max(std::chrono::steady_clock::duration::zero(),
                              op->deadline() - std::chrono::steady_clock::now());
}

void ReadAhead(Cursor& cursor) {
  if (cursor.stream_done || cursor.prepared_ready) return;
  // The read-ahead is part of the next getMore's work: it runs under the cursor's deadline.
  Interruptible interrupt;
  ScopedInterrupt current(cursor.interrupt.get(), &interrupt);
  if (!ArmCursorDeadline(cursor, &interrupt).ok()) return;  // the getMore answers MaxTimeMSExpired
  ReadAheadBatch(cursor, &interrupt);
  SaveCursorDeadline(cursor, &interrupt);
}

static void ReadAheadBatch(Cursor& cursor, Interruptible* op) {
  if (cursor.projection && !cursor.projection->IsIdentity()) {
    ReadAheadIntoBuffer(cursor);
    return;
  }
  if (!cursor.prepared) cursor.prepared = std::make_unique<wire::ReplyBuffer>();
  wire::ReplyBuffer& out = *cursor.prepared;
  bson_t* body = out.Begin(wire::kOpMsgBodyOffset);
  bson_t cursor_doc;
  BSON_APPEND_DOCUMENT_BEGIN(body, "cursor", &cursor_doc);
  int64_t returned_before = cursor.returned;
  bool exhausted = false;
  Status status = FillBatch(cursor, op, &cursor_doc, "nextBatch", 0, &exhausted);
  BSON_APPEND_INT64(&cursor_doc, "id", exhausted ? 0 : cursor.id);
  AppendUtf8(&cursor_doc, "ns", cursor.ns);
  bson_append_document_end(body, &cursor_doc);
  BSON_APPEND_DOUBLE(body, "ok", 1.0);
  out.End();
  cursor.prepared_ready = true;
  cursor.prepared_exhausted = exhausted;
  cursor.prepared_docs = cursor.returned - returned_before;
  if (!status.ok()) {
    // The getMore must fail, as it would have without the read-ahead: return the documents to
    // the buffer, ahead of the stream's error.
    DropPreparedBatch(cursor);
    cursor.stream_done = true;
    cursor.stream_status = status;
  }
}

void DropPreparedBatch(Cursor& cursor) {
  if (!cursor.prepared_ready) return;
  cursor.prepared_ready = false;
  std::string documents;
  bson_iter_t batch;
  if (PreparedBatchArray(*cursor.prepared, &batch)) {
    while (bson_iter_next(&batch)) {
      uint32_t length;
      const uint8_t* data;
      bson_iter_document(&batch, &length, &data);
      documents.append(reinterpret_cast<const char*>(data), length);
    }
  }
  documents.append(cursor.buffered, cursor.buffered_offset, std::string::npos);
  cursor.buffered = std::move(documents);
  cursor.buffered_offset = 0;
  cursor.returned -= cursor.prepared_docs;
  // The stream ended (or the limit was reached) while the batch was prepared: it is not read
  // again, and the cursor ends once the buffer is drained.
  if (cursor.prepared_exhausted) cursor.stream_done = true;
}

int64_t RegisterCursor(CommandContext& ctx, std::unique_ptr<Cursor> cursor) {
  cursor->session = ctx.session;
  cursor->has_session = ctx.has_session;
  if (ctx.txn != nullptr) {
    cursor->transaction = ctx.txn->transaction();
    cursor->txn_number = ctx.txn->txn_number();
  }
  return ctx.state.cursors().Register(std::move(cursor));
}

Status ReplyWithFirstBatch(CommandContext& ctx, std::unique_ptr<Cursor> cursor, int64_t batch_size,
                           bool single_batch, bson_t* reply) {
  cursor->interrupt = ctx.interrupt;
  Interruptible* op = ctx.interrupt->op();
  int64_t max_docs = batch_size > 0 ? batch_size : kDefaultFirstBatchDocs;
  if (single_batch && batch_size <= 0) max_docs = 0;
  // batchSize: 0 establishes the cursor with an empty first batch.
  bool empty = batch_size == 0 && !single_batch;
  return AppendCursorBatch(reply, std::move(cursor), op, "firstBatch", max_docs, empty,
                           [&](std::unique_ptr<Cursor> done, bool exhausted) -> int64_t {
                             RecordBatch(ctx.debug, *done, done->returned);
                             if (exhausted || single_batch) return ctx.debug.cursor_id = 0;
                             SaveCursorDeadline(*done, op);
                             return ctx.debug.cursor_id = RegisterCursor(ctx, std::move(done));
                           });
}

void RecordBatch(OpDebug& debug, Cursor& cursor, int64_t n_returned) {
  OpDebug::Add(&debug.n_returned, n_returned);
  if (cursor.stream != nullptr) {
    debug.AddPlan(*cursor.stream, &cursor.reported);
  }
}

}  // namespace cairn::server
