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

}  // namespace cairn::server
