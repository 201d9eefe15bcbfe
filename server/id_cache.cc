// IdCache: direct-mapped (collection, _id) → candidate RecordId table.
#include "server/id_cache.h"

namespace cairn::server {

IdCache::IdCache(size_t slots_log2)
    : mask_((size_t{1} << slots_log2) - 1), slots_(new Slot[size_t{1} << slots_log2]) {}

uint64_t IdCache::Hash(storage::Prefix collection, std::string_view id_key) {
  // FNV-1a over the prefix and key bytes, then a final mix; 0 is reserved for "empty".
  uint64_t h = 0xcbf29ce484222325ULL ^ collection;
  h *= 0x100000001b3ULL;
  for (unsigned char c : id_key) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h == 0 ? 1 : h;
}

bool IdCache::Lookup(storage::Prefix collection, std::string_view id_key,
                     storage::RecordId* id) const {
  uint64_t h = Hash(collection, id_key);
  const Slot& slot = slots_[h & mask_];
  if (slot.hash.load(std::memory_order_relaxed) != h) return false;
  *id = slot.record_id.load(std::memory_order_relaxed);
  return *id > 0;
}

void IdCache::Insert(storage::Prefix collection, std::string_view id_key, storage::RecordId id) {
  uint64_t h = Hash(collection, id_key);
  Slot& slot = slots_[h & mask_];
  slot.record_id.store(id, std::memory_order_relaxed);
  slot.hash.store(h, std::memory_order_relaxed);
}

}  // namespace cairn::server
