// The server's side of $lookup's `from`: query::ForeignCollections over the catalog and
// BuildQueryStream (query/ knows no storage), so a filtered foreign read goes through the query
// planner — an equality on an indexed foreignField becomes an index probe.
#pragma once

#include <memory>
#include <string>

#include "query/pipeline/foreign_collections.h"
#include "server/server_state.h"

namespace cairn::server {

// The ForeignCollections of one aggregate running in database `db`.
std::shared_ptr<query::ForeignCollections> MakeForeignCollections(ServerState& state,
                                                                  std::string db);

}  // namespace cairn::server
