// The server's side of $lookup's `from`: query::ForeignCollections over the catalog and
// BuildQueryStream (query/ knows no storage), so a filtered foreign read goes through the query
// planner — an equality on an indexed foreignField becomes an index probe.
#pragma once

#include <memory>
#include <string>

#include "common/interrupt.h"
#include "query/pipeline/foreign_collections.h"
#include "server/server_state.h"

namespace cairn::server {

// The ForeignCollections of one aggregate running in database `db`: it reads through `reader`
// (with `id_cache`, null for none: a transaction's reads); its reads are interrupted through
// `interrupt` (the command's slot, kept by its cursor).
std::shared_ptr<query::ForeignCollections> MakeForeignCollections(
    ServerState& state, const storage::Reader& reader, IdCache* id_cache, std::string db,
    std::shared_ptr<const InterruptSlot> interrupt);

}  // namespace cairn::server
