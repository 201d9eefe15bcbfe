#include "tools/bench/client.h"

namespace cairn::bench {

Client Connect(const Options& options, std::string* error) {
  bson_error_t err;
  mongoc_uri_t* uri = mongoc_uri_new_with_error(options.uri.c_str(), &err);
  if (!uri) {
    *error = std::string("bad --uri: ") + err.message;
    return nullptr;
  }
  mongoc_uri_set_option_as_bool(uri, MONGOC_URI_RETRYWRITES, false);
  mongoc_uri_set_option_as_bool(uri, MONGOC_URI_RETRYREADS, false);
  if (!mongoc_uri_has_option(uri, MONGOC_URI_APPNAME)) {
    mongoc_uri_set_appname(uri, "cairn-bench");
  }
  Client client(mongoc_client_new_from_uri_with_error(uri, &err));
  mongoc_uri_destroy(uri);
  if (!client) {
    *error = std::string("cannot create a client: ") + err.message;
    return nullptr;
  }
  mongoc_client_set_error_api(client.get(), MONGOC_ERROR_API_VERSION_2);
  bson_t ping = BSON_INITIALIZER;
  BSON_APPEND_INT32(&ping, "ping", 1);
  bool ok = RunCommand(client.get(), "admin", &ping, nullptr, error);
  bson_destroy(&ping);
  if (!ok) return nullptr;
  return client;
}

bool RunCommand(mongoc_client_t* client, const std::string& db, const bson_t* command,
                bson_t* reply, std::string* error) {
  bson_error_t err;
  bson_t local;
  bool ok = mongoc_client_command_simple(client, db.c_str(), command, nullptr,
                                         reply ? reply : &local, &err);
  if (!reply) bson_destroy(&local);
  if (!ok) *error = err.message;
  return ok;
}

bool FindInt32(bson_t* doc, const char* path, bson_iter_t* it) {
  bson_iter_t root;
  return bson_iter_init(&root, doc) && bson_iter_find_descendant(&root, path, it) &&
         BSON_ITER_HOLDS_INT32(it);
}

std::string ServerVersion(mongoc_client_t* client) {
  bson_t cmd = BSON_INITIALIZER;
  BSON_APPEND_INT32(&cmd, "buildInfo", 1);
  bson_t reply;
  std::string error, version = "unknown";
  if (RunCommand(client, "admin", &cmd, &reply, &error)) {
    bson_iter_t it;
    if (bson_iter_init_find(&it, &reply, "version") && BSON_ITER_HOLDS_UTF8(&it)) {
      version = bson_iter_utf8(&it, nullptr);
    }
    bson_iter_t root, cairn;
    if (bson_iter_init(&root, &reply) &&
        bson_iter_find_descendant(&root, "cairn.version", &cairn) && BSON_ITER_HOLDS_UTF8(&cairn)) {
      version =
          std::string("cairn ") + bson_iter_utf8(&cairn, nullptr) + " (as MongoDB " + version + ")";
    } else {
      version = "MongoDB " + version;
    }
  }
  bson_destroy(&reply);
  bson_destroy(&cmd);
  return version;
}

int64_t DrainCursor(mongoc_cursor_t* cursor, const char* what, std::string* error) {
  const bson_t* doc;
  int64_t n = 0;
  uint64_t touched = 0;
  while (mongoc_cursor_next(cursor, &doc)) {
    touched += doc->len + bson_get_data(doc)[doc->len - 1];
    ++n;
  }
  thread_local volatile uint64_t sink;
  sink = sink + touched;
  bson_error_t err;
  bool failed = mongoc_cursor_error(cursor, &err);
  if (failed) *error = std::string(what) + ": " + err.message;
  mongoc_cursor_destroy(cursor);
  return failed ? -1 : n;
}

}  // namespace cairn::bench
