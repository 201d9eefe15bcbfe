// The $v: 2 update description MongoDB 5.0+ logs for an update (doc_diff.h's format): from the
// document before and after, {d: {removed: false}, u: {changed: value}, i: {added: value},
// s<field>: {sub-diff}} with sub-documents present on both sides diffed recursively, and arrays
// and values of another type replaced whole ("u").
#pragma once

#include <bson/bson.h>

#include "common/bson_doc.h"

namespace cairn::server {

// Appends the diff's fields (d, u, i, s<field>...) from `before` to `after` to `out`.
void AppendDocumentDiff(BsonView before, BsonView after, bson_t* out);

// The reverse: appends to `out` the fields of `before` with `diff` applied (removed fields left
// out, updated ones in place, sub-diffs applied inside, inserted ones at the end): the document
// after the update, from the one before (a change stream's post-image).
void ApplyDocumentDiff(BsonView before, BsonView diff, bson_t* out);

}  // namespace cairn::server
