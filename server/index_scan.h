// IndexScanStream: the IXSCAN + FETCH of a plan — visits the key ranges of an index's bounds in
// order (forward or backward, one RocksDB iterator and snapshot, a seek per range), checks the
// fields the ranges leave open, drops RecordIds already returned when the index is multikey,
// fetches each document and keeps those the matcher accepts (bounds only narrow the candidates;
// the whole filter always decides). A unique index whose bounds pin every field is read by point
// lookups instead of an iterator.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>

#include "index/index_bounds.h"
#include "query/matcher/matcher.h"
#include "server/document_stream.h"
#include "storage/engine.h"

namespace cairn::server {

// What an index scan counted (explain's IXSCAN and FETCH fields).
struct IndexScanCounters {
  int64_t keys_examined = 0;
  int64_t docs_examined = 0;
  int64_t seeks = 0;
  int64_t dups_tested = 0;
  int64_t dups_dropped = 0;
  int64_t keys_returned = 0;  // keys passed on to FETCH (IXSCAN's nReturned)
};

struct IndexScanSpec {
  storage::Prefix collection = 0;
  storage::Prefix index = 0;
  bool unique = false;   // entry layout (collection_indexes.h)
  bool reverse = false;  // visit keys in descending byte order
  bool dedup = false;    // the index is multikey
  index::IndexScanRanges ranges;
  std::shared_ptr<const query::Matcher> matcher;
  IndexScanCounters* counters = nullptr;  // optional (explain)
};

// Positions the iterator (and pins its snapshot) at construction.
std::unique_ptr<DocumentStream> MakeIndexScanStream(const storage::Engine& engine,
                                                    IndexScanSpec spec);

}  // namespace cairn::server
