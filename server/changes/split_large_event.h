// $changeStreamSplitLargeEvent: a change event too large to return (its pre- and post-images
// together can pass 16 MiB) split into fragments as MongoDB 7.0 splits it. Each fragment is
// {_id: <its own resume token>, splitEvent: {fragment: n, of: total}, <some of the event's
// top-level fields>}; the fields go smallest first (by size, then name), as many as fit in each,
// so the first fragment carries as much of the event's context as it can. Subdocuments are never
// split: one field too large for a fragment fails the split.
#pragma once

#include <cstddef>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/changes/change_event.h"

namespace cairn::server {

// The largest event returned whole when the stage is present (mongod's
// kBSONObjMaxChangeEventSize: the internal BSON limit, 16 MiB + 16 KiB, less 8 KiB), counting its
// _id twice (the batch's postBatchResumeToken repeats it), and the size of each fragment.
inline constexpr size_t kMaxChangeEventSize = kMaxInternalBsonObjectSize - 8 * 1024;

// The stage's own checks: its argument must be an empty object (7182800) and it must be the last
// stage of the pipeline (7182802).
Status CheckSplitLargeEventStage(const bson_iter_t* stage_argument, bool is_last);

// The size the stage measures `event` by: its BSON and its _id once more.
size_t ChangeEventSize(BsonView event);

// Splits `event` (whose _id is the token of `point`) into `fragments`, leaving out the first
// `skip` of them (a stream resumed from a fragment's token). Each fragment is at most
// kMaxChangeEventSize bytes less the token's size (room for the batch's postBatchResumeToken);
// a field too large for that fails with 7182500, as mongod. *total is how many fragments the
// event makes (skipped or not).
Status SplitChangeEvent(BsonView event, ResumePoint point, size_t skip,
                        std::vector<BsonDoc>* fragments, size_t* total);

}  // namespace cairn::server
