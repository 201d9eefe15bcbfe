// What the server holds: databases, collections (listCollections entries) and indexes, read
// through the standard commands so the tools work against any MongoDB-compatible server.
#pragma once

#include <mongoc/mongoc.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "tools/cairn/bson_util.h"

namespace cairn::tools {

// The user databases (admin, config and local left out, as their contents are the server's).
Result<std::vector<std::string>> ListUserDatabases(mongoc_client_t* client);

// listCollections entries of `db` ({name, type, options, info, idIndex}); only `name` when
// it is not empty. system.* collections are left out.
Result<std::vector<BsonPtr>> ListCollections(mongoc_client_t* client, const std::string& db,
                                             const std::string& name = "");

// listIndexes documents of `db`.`collection`.
Result<std::vector<BsonPtr>> ListIndexes(mongoc_client_t* client, const std::string& db,
                                         const std::string& collection);

// Drains `cursor` into copies of its documents, destroying it.
Result<std::vector<BsonPtr>> DrainCursor(mongoc_cursor_t* cursor, const std::string& what);

}  // namespace cairn::tools
