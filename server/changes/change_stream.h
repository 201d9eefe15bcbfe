// Change streams: an aggregate whose pipeline starts with $changeStream opens a tailable,
// awaitData cursor over local.oplog.rs that turns the entries of the watched namespaces into
// change events (change_event.h) and runs the stages after $changeStream on them ($match,
// $project, $addFields/$set, $unset, $replaceRoot/$replaceWith, $redact: what mongod allows).
//
// Every batch carries postBatchResumeToken: the token of the last event returned, or, when the
// oplog had nothing more, a token at the newest entry examined, so a stream resumed from it
// neither repeats nor skips an event. getMore waits for new entries as a tailable awaitData
// cursor does (tailable_cursor.h: no I/O thread is held), reading only up to the oplog's visible
// bound, so an entry committed out of order is never skipped. A resume point the oplog has
// already truncated answers ChangeStreamHistoryLost 286.
//
// Drop, rename and dropDatabase entries make their events; a collection's stream ends with an
// invalidate event at its collection's drop or rename, a database's at dropDatabase (the cursor
// closes after it). Pre-images recorded for collections with changeStreamPreAndPostImages are
// read from the oplog by the preImageOpTime of the change's entry. Not yet: showExpandedEvents'
// create/createIndexes/dropIndexes/modify events.
#pragma once

#include <string_view>

#include "common/bson_doc.h"
#include "query/pipeline/pipeline.h"
#include "server/command.h"

namespace cairn::server {

// Runs the aggregate {aggregate: `collection` (empty: 1), pipeline} on `db` whose first stage
// is $changeStream, on a primary; appends {cursor: {firstBatch, postBatchResumeToken, id, ns}}.
Status ReplyWithChangeStream(CommandContext& ctx, std::string_view db, std::string_view collection,
                             BsonView pipeline, const query::PipelineOptions& options,
                             int64_t batch_size, bson_t* reply);

}  // namespace cairn::server
