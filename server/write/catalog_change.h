// Catalog changes a replica set logs (create, collMod, createIndexes, dropIndexes, drop,
// renameCollection, dropDatabase): the change and the oplog command entries that record it
// commit in one atomic write, as a document write and its entry do (oplog_sink.h). A
// standalone, or the local database, writes the change alone.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/write/write_context.h"
#include "storage/catalog.h"
#include "storage/engine.h"

namespace cairn::server {

// One {op: "c"} entry: its o and o2 (empty: none), and the UUID of the collection it names (ui;
// none when !has_uuid).
struct CommandEntry {
  bool has_uuid = false;
  uint8_t uuid[16] = {};
  BsonDoc o;
  BsonDoc o2;
  void set_collection(const storage::CollectionEntry& collection);
};

// Runs `apply` (the catalog call, handed the unit to commit with, or null when nothing is
// logged) with `entries` logged for database `db` in the same write.
Status CommitCatalogChange(WriteContext& writes, std::string_view db,
                           const std::vector<CommandEntry>& entries,
                           const std::function<Status(storage::WriteUnit*)>& apply);

// Creates collection `ns` with `options` (explicitly or on first write), logged as mongod logs
// it: {create: <coll>, ...options, idIndex}. NamespaceExists as Catalog::CreateCollection.
Result<storage::CollectionHandle> CreateCollectionLogged(WriteContext& writes, std::string_view ns,
                                                         BsonView options);

}  // namespace cairn::server
