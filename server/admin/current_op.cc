// current_op.h: $currentOp's documents from the OpRegistry.
#include "server/admin/current_op.h"

#include <unistd.h>

#include "server/server_state.h"

namespace cairn::server {

std::string ServerHostAndPort(const ServerState& state) {
  char hostname[256] = {0};
  gethostname(hostname, sizeof hostname - 1);
  return std::string(hostname) + ":" + std::to_string(state.options().port);
}

std::vector<BsonDoc> CurrentOpDocuments(ServerState& state, const query::CurrentOpSpec& spec) {
  OpRegistry::ReportOptions options;
  options.idle_connections = spec.idle_connections;
  options.host = ServerHostAndPort(state);
  return state.ops().Report(options);
}

}  // namespace cairn::server
