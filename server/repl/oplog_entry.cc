// Oplog entry bodies (see oplog_entry.h).
#include "server/repl/oplog_entry.h"

#include <string>

#include "server/repl/update_diff.h"

namespace cairn::server {

namespace {

// {_id: <the document's _id>}.
void AppendIdDocument(bson_t* entry, const char* key, BsonView doc) {
  bson_t id_doc;
  bson_append_document_begin(entry, key, -1, &id_doc);
  bson_iter_t id;
  if (doc.Find("_id", &id)) AppendIter(&id_doc, "_id", &id);
  bson_append_document_end(entry, &id_doc);
}

}  // namespace

void BeginCollectionOp(bson_t* entry, const char* op, const storage::CollectionEntry& collection) {
  BSON_APPEND_UTF8(entry, "op", op);
  AppendUtf8(entry, "ns", collection.ns);
  BSON_APPEND_BINARY(entry, "ui", BSON_SUBTYPE_UUID, collection.uuid, sizeof collection.uuid);
}

void AppendInsertOp(bson_t* entry, const storage::CollectionEntry& collection, BsonView doc) {
  BeginCollectionOp(entry, "i", collection);
  const bson_t o = doc.AsBson();
  BSON_APPEND_DOCUMENT(entry, "o", &o);
  AppendIdDocument(entry, "o2", doc);
}

void AppendUpdateOp(bson_t* entry, const storage::CollectionEntry& collection, BsonView old_doc,
                    BsonView new_doc, bool replacement) {
  BeginCollectionOp(entry, "u", collection);
  if (replacement) {
    const bson_t o = new_doc.AsBson();
    BSON_APPEND_DOCUMENT(entry, "o", &o);
  } else {
    bson_t o, diff;
    BSON_APPEND_DOCUMENT_BEGIN(entry, "o", &o);
    BSON_APPEND_INT32(&o, "$v", 2);
    BSON_APPEND_DOCUMENT_BEGIN(&o, "diff", &diff);
    AppendDocumentDiff(old_doc, new_doc, &diff);
    bson_append_document_end(&o, &diff);
    bson_append_document_end(entry, &o);
  }
  AppendIdDocument(entry, "o2", new_doc);
}

void AppendDeleteOp(bson_t* entry, const storage::CollectionEntry& collection, BsonView old_doc) {
  BeginCollectionOp(entry, "d", collection);
  AppendIdDocument(entry, "o", old_doc);
}

void AppendNoopOp(bson_t* entry, const storage::CollectionEntry& collection, BsonView o,
                  BsonView o2) {
  BeginCollectionOp(entry, "n", collection);
  const bson_t o_doc = o.AsBson(), o2_doc = o2.AsBson();
  BSON_APPEND_DOCUMENT(entry, "o", &o_doc);
  BSON_APPEND_DOCUMENT(entry, "o2", &o2_doc);
}

void AppendCommandOp(bson_t* entry, std::string_view db, const uint8_t* uuid, BsonView o,
                     BsonView o2) {
  BSON_APPEND_UTF8(entry, "op", "c");
  AppendUtf8(entry, "ns", std::string(db) + ".$cmd");
  if (uuid != nullptr) BSON_APPEND_BINARY(entry, "ui", BSON_SUBTYPE_UUID, uuid, 16);
  const bson_t o_doc = o.AsBson();
  BSON_APPEND_DOCUMENT(entry, "o", &o_doc);
  if (!o2.empty()) {
    const bson_t o2_doc = o2.AsBson();
    BSON_APPEND_DOCUMENT(entry, "o2", &o2_doc);
  }
}

}  // namespace cairn::server
