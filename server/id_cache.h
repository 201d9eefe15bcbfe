// IdCache: a fixed-size, direct-mapped table from (collection prefix, encoded _id key) to
// RecordId, so a read by _id can usually skip the _id index lookup (half of a point read's
// storage work). Writers publish inserts after they commit; readers fill it on a miss.
//
// A slot holds a 64-bit hash of the key and a RecordId, in two relaxed atomics: no allocation,
// no lock. A slot may be stale, overwritten by a colliding key, or read torn while a writer
// updates it — so a hit is only a candidate: the caller must check that the record it names
// exists and carries the requested _id, and otherwise use the index. RecordIds are never
// reused within a collection and a document's _id never changes, so that check is exact.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "storage/engine.h"

namespace cairn::server {

class IdCache {
 public:
  // Default: 2^20 slots (16 MiB).
  explicit IdCache(size_t slots_log2 = 20);

  // A candidate RecordId for the key, if its slot holds this key's hash.
  bool Lookup(storage::Prefix collection, std::string_view id_key, storage::RecordId* id) const;
  void Insert(storage::Prefix collection, std::string_view id_key, storage::RecordId id);

 private:
  struct Slot {
    std::atomic<uint64_t> hash{0};
    std::atomic<int64_t> record_id{0};
  };
  static uint64_t Hash(storage::Prefix collection, std::string_view id_key);

  size_t mask_;
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace cairn::server
