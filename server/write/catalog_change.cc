// CommitCatalogChange (see catalog_change.h).
#include "server/write/catalog_change.h"

#include <string>

#include "server/write/oplog_sink.h"

namespace cairn::server {

Status CommitCatalogChange(WriteContext& writes, std::string_view db,
                           const std::vector<CommandEntry>& entries,
                           const std::function<Status(storage::WriteUnit*)>& apply) {
  OplogSink* oplog = writes.oplog();
  if (oplog == nullptr || !oplog->Logs(std::string(db) + ".$cmd")) return apply(nullptr);
  storage::WriteUnit unit = writes.engine().BeginWrite();
  OplogUnit pending;
  Status status;
  for (const CommandEntry& entry : entries) {
    status = oplog->LogCommand(unit, pending, db, entry.collection.get(), entry.o.view(),
                               entry.o2.view());
    if (!status.ok()) break;
  }
  if (status.ok()) {
    oplog->Flush(unit, pending);
    status = apply(&unit);
  }
  oplog->UnitDone(pending, status.ok());
  return status;
}

}  // namespace cairn::server
