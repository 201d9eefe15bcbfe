// libmongoc helpers: one single-threaded mongoc_client_t per benchmark thread (no pool, so no
// shared contention point), commands with errors turned into strings.
#pragma once

#include <mongoc/mongoc.h>

#include <memory>
#include <string>

#include "tools/bench/bench.h"

namespace cairn::bench {

struct ClientDeleter {
  void operator()(mongoc_client_t* c) const { mongoc_client_destroy(c); }
};
using Client = std::unique_ptr<mongoc_client_t, ClientDeleter>;

// A connected client (a ping has succeeded, so the handshake is done). Retryable reads and
// writes are off: the benchmark measures one attempt per operation.
Client Connect(const Options& options, std::string* error);

// Runs `command` on `db`; false with *error on a transport error or {ok: 0}. `reply` may be null.
bool RunCommand(mongoc_client_t* client, const std::string& db, const bson_t* command,
                bson_t* reply, std::string* error);

// The int32 value at dotted `path` of `doc`, as a writable iterator (bson_iter_overwrite_int32):
// commands are built once and only their key is patched per operation.
bool FindInt32(bson_t* doc, const char* path, bson_iter_t* it);

// Reads every document of `cursor` (touching each, so the client's work is counted), destroys
// it, and returns how many there were; -1 with *error ("<what>: <message>") on failure.
int64_t DrainCursor(mongoc_cursor_t* cursor, const char* what, std::string* error);

// The server's version string (buildInfo.version) and, if it reports one, Cairn's own version.
std::string ServerVersion(mongoc_client_t* client);

}  // namespace cairn::bench
