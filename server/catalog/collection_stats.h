// Collection statistics as MongoDB 7.0 reports them, for the collStats command and the
// $collStats aggregation stage (its storageStats and count sections). One builder serves both.
// Sizes: `size` is the exact total of the documents' BSON bytes; storageSize and index sizes are
// RocksDB's approximations of the key ranges on disk and in memtables (MongoDB reports
// WiredTiger's file sizes); freeStorageSize is 0 and the per-engine "wiredTiger" section and
// indexDetails' contents are left out.
#pragma once

#include <bson/bson.h>

#include <string_view>

#include "common/bson_doc.h"
#include "query/pipeline/server_sources.h"
#include "storage/catalog.h"

namespace cairn::server {

class ServerState;

// Appends the storage statistics of `collection` (null: a collection that does not exist, all
// zeros) to `out`: size, count, avgObjSize, numOrphanDocs, storageSize, freeStorageSize, capped
// (with max and maxSize when capped), nindexes, indexDetails, indexBuilds, totalIndexSize,
// totalSize, indexSizes, scaleFactor. Sizes are divided by `scale` (>= 1).
void AppendStorageStats(ServerState& state, const storage::CollectionHandle& collection,
                        int64_t scale, bson_t* out);

// The one document $collStats outputs for the collection `ns` (one that does not exist reports
// as empty): ns, host, localTime, then the latencyStats (all zeros: Cairn keeps no latency
// histograms), storageStats and count sections `spec` asks for (queryExecStats adds nothing).
BsonDoc CollStatsDocument(ServerState& state, std::string_view ns,
                          const query::CollStatsSpec& spec);

}  // namespace cairn::server
