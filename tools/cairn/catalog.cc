// listDatabases, listCollections and listIndexes.
#include "tools/cairn/catalog.h"

namespace cairn::tools {

Result<std::vector<BsonPtr>> DrainCursor(mongoc_cursor_t* cursor, const std::string& what) {
  std::vector<BsonPtr> out;
  const bson_t* doc;
  while (mongoc_cursor_next(cursor, &doc)) out.emplace_back(bson_copy(doc));
  bson_error_t error;
  bool failed = mongoc_cursor_error(cursor, &error);
  mongoc_cursor_destroy(cursor);
  if (failed) return Status(ErrorCode::kUnknownError, what + ": " + error.message);
  return out;
}

Result<std::vector<std::string>> ListUserDatabases(mongoc_client_t* client) {
  bson_error_t error;
  // (libmongoc asks for nameOnly itself.)
  char** names = mongoc_client_get_database_names_with_opts(client, nullptr, &error);
  if (!names)
    return Status(ErrorCode::kUnknownError, std::string("listDatabases: ") + error.message);
  std::vector<std::string> out;
  for (char** name = names; *name; ++name) {
    std::string db = *name;
    if (db != "admin" && db != "config" && db != "local") out.push_back(db);
  }
  bson_strfreev(names);
  return out;
}

Result<std::vector<BsonPtr>> ListCollections(mongoc_client_t* client, const std::string& db,
                                             const std::string& name) {
  mongoc_database_t* database = mongoc_client_get_database(client, db.c_str());
  BsonPtr opts = NewBson();
  if (!name.empty()) {
    bson_t filter;
    BSON_APPEND_DOCUMENT_BEGIN(opts.get(), "filter", &filter);
    BSON_APPEND_UTF8(&filter, "name", name.c_str());
    bson_append_document_end(opts.get(), &filter);
  }
  mongoc_cursor_t* cursor = mongoc_database_find_collections_with_opts(database, opts.get());
  mongoc_database_destroy(database);
  CAIRN_ASSIGN_OR_RETURN(std::vector<BsonPtr> all, DrainCursor(cursor, "listCollections on " + db));
  std::vector<BsonPtr> out;
  for (BsonPtr& entry : all) {
    if (GetString(entry.get(), "name").rfind("system.", 0) != 0) out.push_back(std::move(entry));
  }
  return out;
}

Result<std::vector<BsonPtr>> ListIndexes(mongoc_client_t* client, const std::string& db,
                                         const std::string& collection) {
  mongoc_collection_t* coll = mongoc_client_get_collection(client, db.c_str(), collection.c_str());
  mongoc_cursor_t* cursor = mongoc_collection_find_indexes_with_opts(coll, nullptr);
  mongoc_collection_destroy(coll);
  return DrainCursor(cursor, "listIndexes on " + db + "." + collection);
}

}  // namespace cairn::tools
