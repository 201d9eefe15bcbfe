// The body of the oplog entry of one change, {op, ns, ui, o, o2}, without what the log adds
// (ts, t, v, wall, the session fields): what an entry of local.oplog.rs and an operation inside
// a committed transaction's applyOps share (MongoDB's shapes; updates as $v: 2 diffs).
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <string_view>

#include "common/bson_doc.h"
#include "storage/catalog.h"

namespace cairn::server {

// An insert: o is the document, o2 its {_id}.
void AppendInsertOp(bson_t* entry, const storage::CollectionEntry& collection, BsonView doc);
// An update of the document with `old_doc`'s _id: o is `new_doc` whole for a replacement, else
// {$v: 2, diff}; o2 is {_id}.
void AppendUpdateOp(bson_t* entry, const storage::CollectionEntry& collection, BsonView old_doc,
                    BsonView new_doc, bool replacement);
// A delete: o is {_id}.
void AppendDeleteOp(bson_t* entry, const storage::CollectionEntry& collection, BsonView old_doc);
// A no-op of a collection: {op: "n", ns, ui, o, o2}.
void AppendNoopOp(bson_t* entry, const storage::CollectionEntry& collection, BsonView o,
                  BsonView o2);
// A command (catalog change) of database `db`: {op: "c", ns: "<db>.$cmd", ui, o, o2}; `uuid`
// may be null, `o2` empty (none).
void AppendCommandOp(bson_t* entry, std::string_view db, const uint8_t* uuid, BsonView o,
                     BsonView o2);
// op, ns and ui: what every entry of a collection's change starts with.
void BeginCollectionOp(bson_t* entry, const char* op, const storage::CollectionEntry& collection);

}  // namespace cairn::server
