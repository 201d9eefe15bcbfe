// CommitCatalogChange (see catalog_change.h).
#include "server/write/catalog_change.h"

#include <algorithm>
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
  // The UUID is chosen here so the entry can name it.
  storage::NewCollectionUuid(create.uuid);
  create.has_uuid = true;
  AppendUtf8(create.o.get(), "create", ns.substr(ns.find('.') + 1));
  const bson_t given = options.AsBson();
  bson_concat(create.o.get(), &given);
  const BsonDoc id_index = storage::IdIndexSpec();
  BSON_APPEND_DOCUMENT(create.o.get(), "idIndex", id_index.get());
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
