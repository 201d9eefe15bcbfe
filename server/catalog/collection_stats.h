// Collection statistics as MongoDB 7.0 reports them, for the collStats command and the
// $collStats aggregation stage (its storageStats and count sections). One builder serves both.
// Sizes: `size` is the exact total of the documents' BSON bytes; storageSize and index sizes are
// RocksDB's approximations of the key ranges on disk and in memtables (MongoDB reports
// WiredTiger's file sizes); freeStorageSize is 0 and the per-engine "wiredTiger" section and
// indexDetails' contents are left out.
#pragma once

#include <bson/bson.h>

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/exec/document_stream.h"
#include "storage/catalog.h"

namespace cairn::server {

class ServerState;

// Appends the storage statistics of `collection` (null: a collection that does not exist, all
// zeros) to `out`: size, count, avgObjSize, numOrphanDocs, storageSize, freeStorageSize, capped
// (with max and maxSize when capped), nindexes, indexDetails, indexBuilds, totalIndexSize,
// totalSize, indexSizes, scaleFactor. Sizes are divided by `scale` (>= 1).
void AppendStorageStats(ServerState& state, const storage::CollectionHandle& collection,
                        int64_t scale, bson_t* out);

// A pipeline that starts with $collStats, split: the one document the stage outputs for `ns`
// and the rest of the pipeline (a new array), to run over that document. nullopt when the
// pipeline does not start with $collStats. Errors: the stage's spec must be a document
// (BadValue 2), its storageStats / count / latencyStats / queryExecStats documents
// (TypeMismatch 14), storageStats.scale a positive number (BadValue 2).
struct CollStatsSource {
  BsonDoc document;
  BsonDoc rest;  // the remaining stages, as a BSON array
};
Result<std::optional<CollStatsSource>> TakeLeadingCollStats(ServerState& state, std::string_view ns,
                                                            BsonView pipeline);

// A stream yielding one document once (the $collStats output).
std::unique_ptr<DocumentStream> MakeSingleDocumentStream(BsonDoc document);
// A stream yielding `documents` in order (the $listLocalSessions output).
std::unique_ptr<DocumentStream> MakeDocumentsStream(std::vector<BsonDoc> documents);

}  // namespace cairn::server
