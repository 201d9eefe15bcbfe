// Query execution for find/count/distinct/update/delete/findAndModify: turns (collection,
// filter, sort, skip, limit) into a DocumentStream. A filter that pins _id becomes a point
// lookup on the _id index, never a scan; otherwise a collection scan in insertion order runs
// the matcher on views of RocksDB's buffers (no per-document copy). Sort materialises only what
// it must: with a limit it keeps the top skip+limit documents, not everything.
#pragma once

#include <memory>

#include "query/matcher/matcher.h"
#include "query/sort/sort_pattern.h"
#include "server/document_stream.h"
#include "server/id_cache.h"
#include "storage/engine.h"

namespace cairn::server {

struct QuerySpec {
  std::shared_ptr<const query::Matcher> matcher;  // required
  std::shared_ptr<const query::SortPattern> sort;  // null or empty = natural (insertion) order
  int64_t skip = 0;
  int64_t limit = 0;  // 0 = no limit
  bool reverse_natural = false;  // {$natural: -1}
};

// Blocking sorts hold at most this many bytes of documents (MongoDB's
// internalQueryMaxBlockingSortMemoryUsageBytes, 100 MB); beyond it the query fails with
// QueryExceededMemoryLimitNoDiskUseAllowed 292 until spilling exists (query issue).
inline constexpr int64_t kMaxBlockingSortBytes = 100 * 1024 * 1024;

// The stream over `collection` (null = a collection that does not exist: an empty stream).
// `id_cache` (optional) lets an _id point lookup skip the _id index.
std::unique_ptr<DocumentStream> BuildQueryStream(const storage::Engine& engine,
                                                 const storage::CollectionHandle& collection,
                                                 const QuerySpec& spec, IdCache* id_cache);

}  // namespace cairn::server
