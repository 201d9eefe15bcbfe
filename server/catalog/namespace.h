// MongoDB's naming rules for databases and collections (InvalidNamespace 73), and "db.coll"
// namespace strings. Pure functions.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace cairn::server {

// A database name: non-empty, shorter than 64 bytes, none of / \ . " $ * < > : | ? space or NUL.
Status ValidateDatabaseName(std::string_view db);
// A collection name usable for user writes: non-empty, no '$' and no NUL, not "system.*", and
// "db.coll" at most 255 bytes.
Status ValidateCollectionName(std::string_view db, std::string_view collection);
// As ValidateCollectionName, for a read (find, aggregate): <db>.system.profile is also a name
// one may read, as on mongod (mongosh's `show profile`), empty while nothing profiles into it.
Status ValidateReadableCollectionName(std::string_view db, std::string_view collection);

inline std::string MakeNamespace(std::string_view db, std::string_view collection) {
  std::string ns;
  ns.reserve(db.size() + 1 + collection.size());
  ns.append(db);
  ns += '.';
  ns.append(collection);
  return ns;
}

}  // namespace cairn::server
