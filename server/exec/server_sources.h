// The server's side of the stages that report its state: query::ServerSources over the catalog
// ($collStats: catalog/collection_stats), the OpRegistry ($currentOp: admin/current_op) and the
// SessionCache ($listLocalSessions), as MongoDB's stages reach mongod through
// MongoProcessInterface (query/ knows neither storage nor the server).
#pragma once

#include <memory>

#include "query/pipeline/server_sources.h"
#include "server/server_state.h"

namespace cairn::server {

// The ServerSources of one aggregate.
std::shared_ptr<query::ServerSources> MakeServerSources(ServerState& state);

}  // namespace cairn::server
