// Index builds: filling indexes just added to the catalog (state ready: false) from the
// collection's existing documents, then marking them ready with their multikey paths. The caller
// holds the collection lock for the whole build, so writers wait and every document is indexed
// exactly once; readers skip indexes that are not ready. A unique index meeting a duplicate (or a
// document whose keys cannot be generated) fails the build with MongoDB's error and every index
// of the build is dropped again, leaving nothing behind. Logs "Index build: starting", progress
// for large collections, and "Index build: done building" in mongod's shape.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/interrupt.h"
#include "common/status.h"
#include "server/write/write_context.h"

namespace cairn::server {

// Builds the indexes named `names` of `ns` (already in the catalog, not ready). On error they are
// dropped and the error returned with MongoDB's context ("Index build failed: <uuid>: Collection
// <ns> ( <uuid> ) :: caused by :: ..."). `log_context` names the connection in log lines. The
// scan stops at a kill or deadline of the operation in `interrupt` (null: never).
Status BuildIndexes(WriteContext& state, const std::string& ns,
                    const std::vector<std::string>& names, std::string_view log_context,
                    const InterruptSlot* interrupt);

// Drops indexes a crash left unfinished (state ready: false): at startup, before any connection.
Status DropUnfinishedIndexes(storage::Engine& engine);

// 8-4-4-4-12 hexadecimal, as MongoDB prints a UUID.
std::string UuidString(const uint8_t uuid[16]);

}  // namespace cairn::server
