// CommitCatalogChange (see catalog_change.h).
#include "server/write/catalog_change.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "server/write/oplog_sink.h"

namespace cairn::server {

void CommandEntry::set_collection(const storage::CollectionEntry& collection) {
  has_uuid = true;
  std::copy(collection.uuid, collection.uuid + 16, uuid);
}

Status CommitCatalogChange(WriteContext& writes, std::string_view db,
                           const std::vector<CommandEntry>& entries,
                           const std::function<Status(storage::WriteUnit*)>& apply) {
  OplogSink* oplog = writes.oplog();
  if (oplog == nullptr || !oplog->Logs(std::string(db) + ".$cmd")) return apply(nullptr);
  storage::WriteUnit unit = writes.engine().BeginWrite();
  OplogUnit pending;
  Status status;
  for (const CommandEntry& entry : entries) {
    status = oplog->LogCommand(unit, pending, db, entry.has_uuid ? entry.uuid : nullptr,
                               entry.o.view(), entry.o2.view());
    if (!status.ok()) break;
  }
  if (status.ok()) {
    oplog->Flush(unit, pending);
    status = apply(&unit);
  }
  oplog->UnitDone(pending, status.ok());
  return status;
}

Result<storage::CollectionHandle> CreateCollectionLogged(WriteContext& writes, std::string_view ns,
                                                         BsonView options) {
  std::vector<CommandEntry> entries(1);
  CommandEntry& create = entries[0];
  // A random (version 4) UUID, chosen here so the entry can name it.
  std::random_device random;
  for (size_t i = 0; i < 16; i += 4) {
    const uint32_t word = random();
    std::memcpy(create.uuid + i, &word, 4);
  }
  create.uuid[6] = static_cast<uint8_t>((create.uuid[6] & 0x0f) | 0x40);
  create.uuid[8] = static_cast<uint8_t>((create.uuid[8] & 0x3f) | 0x80);
  create.has_uuid = true;
  const std::string_view collection = ns.substr(ns.find('.') + 1);
  AppendUtf8(create.o.get(), "create", collection);
  bson_iter_t it;
  options.Init(&it);
  while (bson_iter_next(&it)) AppendIter(create.o.get(), IterKey(&it), &it);
  bson_t id_index, key;
  BSON_APPEND_DOCUMENT_BEGIN(create.o.get(), "idIndex", &id_index);
  BSON_APPEND_INT32(&id_index, "v", 2);
  BSON_APPEND_DOCUMENT_BEGIN(&id_index, "key", &key);
  BSON_APPEND_INT32(&key, "_id", 1);
  bson_append_document_end(&id_index, &key);
  BSON_APPEND_UTF8(&id_index, "name", "_id_");
  bson_append_document_end(create.o.get(), &id_index);
  storage::CollectionHandle created;
  Status status = CommitCatalogChange(
      writes, ns.substr(0, ns.find('.')), entries, [&](storage::WriteUnit* also) -> Status {
        Result<storage::CollectionHandle> made =
            writes.engine().catalog().CreateCollection(ns, options, also, create.uuid);
        if (made.ok()) created = made.value();
        return made.status();
      });
  if (!status.ok()) return status;
  return created;
}

}  // namespace cairn::server
