// The connection to the server: --uri (default mongodb://127.0.0.1:27017), or mongodump's
// --host/--port, through libmongoc. Commands come back as Status, the server's errmsg kept.
#pragma once

#include <mongoc/mongoc.h>

#include <memory>
#include <string>

#include "common/status.h"
#include "tools/cairn/args.h"
#include "tools/cairn/bson_util.h"

namespace cairn::tools {

struct ClientDeleter {
  void operator()(mongoc_client_t* c) const { mongoc_client_destroy(c); }
};
using Client = std::unique_ptr<mongoc_client_t, ClientDeleter>;

// A client whose first ping succeeded (so a wrong address fails here, with its reason).
Result<Client> Connect(const Args& args, const char* app_name);

// Runs `command` on `db`; the reply (also for {ok: 0}) goes to *reply when given.
Status RunCommand(mongoc_client_t* client, const std::string& db, const bson_t* command,
                  bson_t* reply = nullptr);

// buildInfo.version, or "" when the server does not say.
std::string ServerVersion(mongoc_client_t* client);

}  // namespace cairn::tools
