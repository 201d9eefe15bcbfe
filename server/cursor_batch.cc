// Batch filling for find/getMore (and later aggregate).
#include "server/cursor_batch.h"

#include <cstring>
#include <string>

namespace cairn::server {

namespace {

// The 16 MiB of documents a batch carries at most, as MongoDB.
constexpr size_t kMaxBatchBytes = static_cast<size_t>(kMaxBsonObjectSize);

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

}  // namespace

Status FillBatch(Cursor& cursor, bson_t* cursor_doc, const char* field, int64_t max_docs,
                 bool* exhausted) {
  *exhausted = false;
  bson_t array;
  bson_append_array_begin(cursor_doc, field, -1, &array);
  int64_t count = 0;
  size_t bytes = 0;
  char key_buf[16];
  bson_t projected;
  bson_init(&projected);
  Status status;
  auto append = [&](BsonView doc) -> bool {
    size_t key_len = FormatIndex(static_cast<uint32_t>(count), key_buf);
    BsonView out = doc;
    if (cursor.projection && !cursor.projection->IsIdentity()) {
      bson_reinit(&projected);
      cursor.projection->Apply(doc, &projected);
      out = BsonView(&projected);
    }
    if (count > 0 && bytes + out.size() > kMaxBatchBytes) return false;
    bson_t view = out.AsBson();
    bson_append_document(&array, key_buf, static_cast<int>(key_len), &view);
    bytes += out.size();
    ++count;
    return true;
  };

  if (cursor.pending) {
    append(cursor.pending->view());
    cursor.pending.reset();
  }
  while (max_docs == 0 || count < max_docs) {
    if (bytes >= kMaxBatchBytes) break;
    if (!cursor.stream->Next()) {
      status = cursor.stream->status();
      *exhausted = true;
      break;
    }
    BsonView doc = cursor.stream->document();
    if (!append(doc)) {
      cursor.pending.emplace(doc);  // keep it for the next batch
      break;
    }
  }
  bson_destroy(&projected);
  bson_append_array_end(cursor_doc, &array);
  cursor.returned += count;
  if (cursor.limit > 0 && cursor.returned >= cursor.limit && !cursor.pending) *exhausted = true;
  return status;
}

Status ReplyWithFirstBatch(ServerState& state, std::unique_ptr<Cursor> cursor, int64_t batch_size,
                           bool single_batch, bson_t* reply) {
  int64_t max_docs = batch_size > 0 ? batch_size : kDefaultFirstBatchDocs;
  if (single_batch && batch_size <= 0) max_docs = 0;
  // batchSize: 0 establishes the cursor with an empty first batch.
  bool empty = batch_size == 0 && !single_batch;
  return AppendCursorBatch(reply, std::move(cursor), "firstBatch", max_docs, empty,
                           [&](std::unique_ptr<Cursor> done, bool exhausted) -> int64_t {
                             if (exhausted || single_batch) return 0;
                             return state.cursors().Register(std::move(done));
                           });
}

}  // namespace cairn::server
