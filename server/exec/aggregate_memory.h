// The server's side of an aggregate's memory budgets: allowDiskUse, the spill directory
// (<dbpath>/_tmp, shared with find's blocking sort) and the budgets the server parameters set
// (internalQueryMaxBlockingSortMemoryUsageBytes, internalDocumentSourceGroupMaxMemoryBytes, and
// internalQueryCollectionMaxDataSizeBytesToChooseHashJoin for $lookup's HashJoin).
#pragma once

#include "query/pipeline/pipeline.h"
#include "server/server_state.h"

namespace cairn::server {

// Fills the memory fields of `options` for one aggregate; `allow_disk_use` is the command's
// allowDiskUse (true when absent, MongoDB's allowDiskUseByDefault).
void SetMemoryOptions(ServerState& state, bool allow_disk_use, query::PipelineOptions* options);

}  // namespace cairn::server
