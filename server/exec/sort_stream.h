// SortStream: the blocking sort of a find (and of updates/deletes that sort). Drains its
// child and yields its documents in sort order: a top-k heap when only the first `keep` are
// wanted, else a full sort. Documents are held as plain bytes, at most 100 MB of them
// (MongoDB's internalQueryMaxBlockingSortMemoryUsageBytes). Beyond that, as in MongoDB 7.0
// (allowDiskUseByDefault), the sorted rows are written to a run file under the spill
// directory and merged back at the end; without a spill directory (allowDiskUse: false) the
// query fails with QueryExceededMemoryLimitNoDiskUseAllowed 292.
#pragma once

#include <memory>
#include <string>

#include "common/limits.h"
#include "query/sort/sort_pattern.h"
#include "server/exec/document_stream.h"

namespace cairn::server {

// Blocking sorts hold at most this many bytes of documents in memory.
inline constexpr int64_t kMaxBlockingSortBytes = kDefaultStageMemoryBytes;

// `keep` > 0: only the first `keep` documents are wanted (skip + limit). `spill_dir` empty: no
// disk use. `memory_limit`: internalQueryMaxBlockingSortMemoryUsageBytes (QuerySpec's
// max_sort_memory_bytes). `keep_index_keys`: each row keeps the index entry it was read through
// (returnKey). The full sort and its runs are query::ExternalSorter's.
std::unique_ptr<DocumentStream> MakeSortStream(std::unique_ptr<DocumentStream> child,
                                               std::shared_ptr<const query::SortPattern> sort,
                                               int64_t keep, std::string spill_dir,
                                               int64_t memory_limit = kMaxBlockingSortBytes,
                                               bool keep_index_keys = false);

// The spill directory under a --dbpath (mongod's _tmp).
inline std::string SpillDirectory(const std::string& dbpath) { return dbpath + "/_tmp"; }

// Removes run files a previous process left in `spill_dir` (at startup).
void RemoveStaleSpillFiles(const std::string& spill_dir);

}  // namespace cairn::server
