// Tailable cursors on capped collections (find {tailable: true[, awaitData: true]}), as MongoDB
// 7.0: the cursor reads in natural order and, when it runs out, stays open remembering the last
// RecordId it examined; each getMore resumes after it and returns what was inserted since. A
// cursor whose position was evicted (the capped collection wrapped past it) dies with
// CappedPositionLost 136. As MongoDB (SERVER-13955), a tailable find on an empty collection
// returns cursor id 0.
//
// awaitData: a getMore that finds nothing new does not answer at once. The handler returns a
// kAwaitInsert continuation (command.h); the connection's coroutine (net/server.cc) then waits on
// an asio timer until the collection's next insert commit (CappedRegistry wakes it) or maxTimeMS
// (default 1 s), and resumes the batch step (not the whole getMore). Why this design: commands run
// synchronously on the connection's single-threaded io_context, shared with other connections, so
// blocking the handler on a condition variable would stall every connection of that thread; a timer
// suspends only this connection's coroutine, and an insert wakes it by posting a cancel to its own
// context.
#pragma once

#include <bson/bson.h>

#include <memory>
#include <string>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/matcher/matcher.h"
#include "server/command.h"
#include "server/cursor/cursor_manager.h"
#include "storage/catalog.h"

namespace cairn::server {

// find's checks of tailable/awaitData against its other options, as MongoDB's
// query_request_helper: awaitData without tailable → FailedToParse 9; tailable with a sort other
// than {$natural: 1} or with singleBatch → BadValue 2.
Status CheckTailableFindOptions(bool tailable, bool await_data, BsonView sort, bool single_batch);

// Runs a tailable find on `collection` (which exists) and appends {cursor: {firstBatch, id, ns}}:
// BadValue 2 "error processing query: ... tailable cursor requested on non capped collection"
// when it is not capped. `cursor` carries ns, projection and limit; the stream is built here
// from `filter` (null: every document) after skipping `skip` matches.
Status ReplyWithTailableFind(CommandContext& ctx, const storage::CollectionHandle& collection,
                             std::unique_ptr<Cursor> cursor,
                             std::shared_ptr<const query::Matcher> filter, BsonView filter_doc,
                             int64_t skip, bool await_data, int64_t batch_size, bson_t* reply);

// getMore on a tailable cursor (checked out, from `ns`): the next batch; the cursor stays open
// when the batch is empty. With awaitData and nothing new, returns a kAwaitInsert continuation
// (command.h): the connection waits for an insert until `max_time_ms` (0: the default 1000 ms)
// from now, then the batch is read again.
CommandOutcome ReplyWithTailableGetMore(CommandContext& ctx, CursorPin cursor, std::string ns,
                                        int64_t batch_size, int64_t max_time_ms, bson_t* reply);

}  // namespace cairn::server
