// Write steps shared by update and findAndModify (one place for the update and upsert rules):
// applying an update to one stored document with the 16 MiB result limit, and building and
// inserting the document an upsert creates.
#pragma once

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/matcher/matcher.h"
#include "query/update/update.h"
#include "server/write/collection_writer.h"

namespace cairn::server {

// Applies `update` to `doc` (stored at `id`); when it changes, the new document goes through
// `writer` and into *new_doc. Returns whether it changed. Update::Apply enforces the 16 MiB
// result limit (BSONObjectTooLarge 10334), so nothing is written for an oversize result.
// `query` is the filter that selected `doc`: a positional "$" update takes its array index from
// matching it again (the elemMatchKey), as MongoDB's update stage does.
Result<bool> UpdateDocument(CollectionWriter& writer, const query::Update& update,
                            storage::RecordId id, BsonView doc, BsonDoc* new_doc,
                            const query::Matcher* query = nullptr);

// Creates the document an upsert inserts — the filter's equality fields, then the update
// applied as an insert ($setOnInsert applies), or the replacement keeping the filter's _id —
// gives it an _id, and inserts it through `writer`. Returns the inserted document.
Result<BsonDoc> UpsertDocument(CollectionWriter& writer, const query::Update& update,
                               BsonView filter);

}  // namespace cairn::server
