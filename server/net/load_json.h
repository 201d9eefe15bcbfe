// LoadJson: `cairnd --load-json DB.COLLECTION FILE [options naming the server]` inserts the
// Extended JSON documents of FILE (concatenated or one per line, as mongoimport reads them, or
// one JSON array) into that collection of the server the options describe (as --ping finds
// it), in batched insert commands. The container image's entrypoint loads
// /docker-entrypoint-initdb.d/*.json and *.jsonl with it, where no driver or shell exists.
// Exit status 0 when every document was inserted, else 1 with the first failure (the
// document's number and the parser's or the server's message) on standard error.
#pragma once

#include <cstdint>
#include <string>

#include "server/options.h"

namespace cairn::server {

inline constexpr int kLoadJsonDone = 0;
inline constexpr int kLoadJsonFailed = 1;

// Loads `path` into `ns` ("db.collection"); *inserted counts what was inserted, also on failure.
int LoadJsonFile(const ServerOptions& options, const std::string& ns, const std::string& path,
                 int64_t* inserted, std::string* error);

}  // namespace cairn::server
