// Catalog changes a replica set logs (drop, renameCollection, dropDatabase): the change and the
// oplog command entries that record it commit in one atomic write, as a document write and its
// entry do (oplog_sink.h). A standalone, or the local database, writes the change alone.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/write/write_context.h"
#include "storage/catalog.h"
#include "storage/engine.h"

namespace cairn::server {

// One {op: "c"} entry: its o and o2 (empty: none), and the collection it names (ui; may be null).
struct CommandEntry {
  storage::CollectionHandle collection;
  BsonDoc o;
  BsonDoc o2;
};

// Runs `apply` (the catalog call, handed the unit to commit with, or null when nothing is
// logged) with `entries` logged for database `db` in the same write.
Status CommitCatalogChange(WriteContext& writes, std::string_view db,
                           const std::vector<CommandEntry>& entries,
                           const std::function<Status(storage::WriteUnit*)>& apply);

}  // namespace cairn::server
