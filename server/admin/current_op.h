// $currentOp's documents and the currentOp command's host: the server's connections and running
// commands from its OpRegistry, in MongoDB's shape. The stage's argument is parsed in
// query/pipeline/stages/current_op.cc and reaches here through exec/server_sources. Cairn has no
// authentication (allUsers changes nothing), no multi-document transactions (idleSessions lists
// nothing) and no shards (localOps changes nothing); idleCursors is accepted and lists nothing
// yet.
#pragma once

#include <string>
#include <vector>

#include "common/bson_doc.h"
#include "query/pipeline/server_sources.h"

namespace cairn::server {

class ServerState;

// What {$currentOp: spec} outputs: one document per running operation, and per idle
// connection with idleConnections.
std::vector<BsonDoc> CurrentOpDocuments(ServerState& state, const query::CurrentOpSpec& spec);

// The "host" field of server reports: "<hostname>:<port>".
std::string ServerHostAndPort(const ServerState& state);

}  // namespace cairn::server
