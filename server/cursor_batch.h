// Cursor batches: fills firstBatch/nextBatch from a cursor's stream with MongoDB's sizing (the
// first batch 101 documents unless batchSize says otherwise, every batch at most 16 MiB of
// documents and at least one document), and writes the cursor reply
// {cursor: {firstBatch|nextBatch: [...], id, ns}}. The stream is only read as far as the batch
// needs: results are never materialised whole.
#pragma once

#include <bson/bson.h>

#include <memory>

#include "server/cursor_manager.h"
#include "server/server_state.h"

namespace cairn::server {

inline constexpr int64_t kDefaultFirstBatchDocs = 101;

// Appends `field` (firstBatch or nextBatch) with up to `max_docs` documents (0 = no count
// limit) to `cursor_doc`. Sets *exhausted when the stream has nothing more.
Status FillBatch(Cursor& cursor, bson_t* cursor_doc, const char* field, int64_t max_docs,
                 bool* exhausted);

// Appends {cursor: {<batch fields of cursor_doc>, id, ns}} to `reply`.
void AppendCursorReply(bson_t* reply, BsonView cursor_doc, int64_t id, std::string_view ns);

// Runs the first batch of a new cursor and appends {cursor: {firstBatch, id, ns}} to `reply`.
// When the stream is not exhausted and !single_batch the cursor is registered for getMore.
Status ReplyWithFirstBatch(ServerState& state, std::unique_ptr<Cursor> cursor, int64_t batch_size,
                           bool single_batch, bson_t* reply);

}  // namespace cairn::server
