// IdCache: the direct-mapped (collection, _id) → RecordId table and the small-document table
// with its ticket/invalidate protocol (see id_cache.h).
#include "server/exec/id_cache.h"

#include <sys/mman.h>

#include <cstring>
#include <new>
#include <thread>

namespace cairn::server {

namespace {

// Zeroed pages straight from the kernel: untouched slots cost no memory, and all-zero bytes
// are the tables' empty state.
void* MapZeroed(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

IdCache::IdCache(size_t slots_log2, size_t document_slots_log2)
    : mask_((size_t{1} << slots_log2) - 1),
      slots_(static_cast<Slot*>(MapZeroed(sizeof(Slot) << slots_log2))),
      document_mask_((size_t{1} << document_slots_log2) - 1),
      document_slots_(
          static_cast<DocumentSlot*>(MapZeroed(sizeof(DocumentSlot) << document_slots_log2))) {}

IdCache::~IdCache() {
  munmap(slots_, sizeof(Slot) * (mask_ + 1));
  munmap(document_slots_, sizeof(DocumentSlot) * (document_mask_ + 1));
}

uint64_t IdCache::Hash(storage::Prefix collection, std::string_view id_key) {
  // FNV-1a over the prefix and key bytes, then a final mix; 0 is reserved for "empty".
  uint64_t h = 0xcbf29ce484222325ULL ^ collection;
  h *= 0x100000001b3ULL;
  for (unsigned char c : id_key) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h = Mix(h);
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

IdCache::DocumentSlot& IdCache::DocumentSlotFor(storage::Prefix collection,
                                                storage::RecordId id) const {
  // Consecutive RecordIds of a collection in consecutive slots, from an offset that spreads
  // collections apart.
  uint64_t offset = Mix((static_cast<uint64_t>(collection) + 1) * 0x9e3779b97f4a7c15ULL);
  return document_slots_[(offset + static_cast<uint64_t>(id)) & document_mask_];
}

bool IdCache::LookupDocument(storage::Prefix collection, storage::RecordId id,
                             std::string* document) const {
  const DocumentSlot& slot = DocumentSlotFor(collection, id);
  uint64_t before = slot.sequence.load(std::memory_order_acquire);
  if (before & 1) return false;
  uint64_t owner = slot.owner.load(std::memory_order_relaxed);
  if (owner == 0 || (owner >> 32) != collection ||
      slot.record_id.load(std::memory_order_relaxed) != id) {
    return false;
  }
  size_t length = owner & 0xffffffffu;
  if (length > kMaxCachedDocumentBytes) return false;
  uint64_t words[DocumentSlot::kWords];
  size_t count = (length + 7) / 8;
  for (size_t i = 0; i < count; ++i) words[i] = slot.words[i].load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (slot.sequence.load(std::memory_order_relaxed) != before) return false;
  document->assign(reinterpret_cast<const char*>(words), length);
  return true;
}

uint64_t IdCache::DocumentTicket(storage::Prefix collection, storage::RecordId id) const {
  return DocumentSlotFor(collection, id).sequence.load(std::memory_order_acquire);
}

uint64_t IdCache::Acquire(DocumentSlot& slot) {
  // The first attempt guesses an untouched slot (sequence 0) instead of loading first: a
  // compare-exchange is a write, so on a page never touched it takes one page fault, where a
  // load would map the shared zero page and the write would then fault again to copy it.
  uint64_t sequence = 0;
  for (;;) {
    if (!(sequence & 1) &&
        slot.sequence.compare_exchange_weak(sequence, sequence + 1, std::memory_order_acquire)) {
      return sequence;
    }
    if (sequence & 1) {
      std::this_thread::yield();
      sequence = slot.sequence.load(std::memory_order_relaxed);
    }
  }
}

void IdCache::FillDocument(storage::Prefix collection, storage::RecordId id, uint64_t ticket,
                           BsonView document) {
  if ((ticket & 1) || document.size() > kMaxCachedDocumentBytes) return;
  DocumentSlot& slot = DocumentSlotFor(collection, id);
  // Only from the ticket's state: a changed sequence means a writer (or another fill) came
  // between, and this document may be older than what is committed.
  uint64_t expected = ticket;
  if (!slot.sequence.compare_exchange_strong(expected, ticket + 1, std::memory_order_acquire)) {
    return;
  }
  Store(slot, ticket, collection, id, document);
}

void IdCache::Store(DocumentSlot& slot, uint64_t sequence, storage::Prefix collection,
                    storage::RecordId id, BsonView document) {
  uint64_t words[DocumentSlot::kWords] = {};
  std::memcpy(words, document.data(), document.size());
  size_t count = (document.size() + 7) / 8;
  for (size_t i = 0; i < count; ++i) slot.words[i].store(words[i], std::memory_order_relaxed);
  slot.record_id.store(id, std::memory_order_relaxed);
  slot.owner.store(static_cast<uint64_t>(collection) << 32 | document.size(),
                   std::memory_order_relaxed);
  slot.sequence.store(sequence + 2, std::memory_order_release);
}

void IdCache::FillNewDocument(storage::Prefix collection, storage::RecordId id, BsonView document) {
  if (id <= 0 || document.size() > kMaxCachedDocumentBytes) return;
  // No reader can hold a ticket for this record yet, so the slot is taken as a writer takes it:
  // unconditionally, refusing any fill of the slot's previous occupant in flight.
  DocumentSlot& slot = DocumentSlotFor(collection, id);
  Store(slot, Acquire(slot), collection, id, document);
}

void IdCache::InvalidateDocument(storage::Prefix collection, storage::RecordId id) {
  DocumentSlot& slot = DocumentSlotFor(collection, id);
  uint64_t sequence = Acquire(slot);
  if (slot.record_id.load(std::memory_order_relaxed) == id) {
    slot.owner.store(0, std::memory_order_relaxed);
  }
  slot.sequence.store(sequence + 2, std::memory_order_release);
}

// Reads record `id` into *document: from the cache's small-document table when it holds it, else
// from storage (then offered to the cache, under the ticket taken before the read).
Status ReadRecordThroughCache(const storage::Reader& reader, storage::Prefix collection,
                              storage::RecordId id, IdCache* cache, std::string* document,
                              bool* found) {
  if (cache == nullptr) return reader.GetRecord(collection, id, document, found);
  if (cache->LookupDocument(collection, id, document)) {
    *found = true;
    return Status::OK();
  }
  uint64_t ticket = cache->DocumentTicket(collection, id);
  Status status = reader.GetRecord(collection, id, document, found);
  if (status.ok() && *found) {
    cache->FillDocument(
        collection, id, ticket,
        BsonView(reinterpret_cast<const uint8_t*>(document->data()), document->size()));
  }
  return status;
}

}  // namespace cairn::server
