// IdCache: the point-read cache. Two fixed-size, direct-mapped tables, allocated once:
//
// 1. (collection prefix, encoded _id key) → RecordId, so a read by _id can usually skip the _id
//    index lookup. A slot holds a 64-bit hash of the key and a RecordId, in two relaxed atomics:
//    no allocation, no lock. A slot may be stale, overwritten by a colliding key, or read torn
//    while a writer updates it — so a hit is only a candidate: the caller must check that the
//    record it names exists and carries the requested _id, and otherwise use the index.
//    RecordIds are never reused within a collection and a document's _id never changes, so that
//    check is exact.
//
// 2. (collection prefix, RecordId) → the document's bytes, for small documents (up to
//    kMaxCachedDocumentBytes), so a hot point read skips RocksDB altogether: a memtable Get was
//    ~13k instructions of a ~23k-instruction find by _id, and a random one in a large memtable
//    misses the CPU cache at every skiplist level. A record's slot is its RecordId plus a
//    per-collection offset, so a collection's consecutive RecordIds take consecutive slots: the
//    most recent 2^18 records of a collection never evict one another, and inserts (which fill
//    the table write-through) write it sequentially rather than at random. This table must never
//    serve a stale version, so it follows a protocol:
//    - a reader takes a ticket (the slot's sequence number) *before* reading the record from
//      storage, and fills the slot afterwards only if the sequence is unchanged;
//    - a writer, after committing an update or removal and before acknowledging it,
//      invalidates the record's slot, which advances the sequence (and so refuses any fill
//      that read the old version);
//    - readers copy a slot under a sequence lock (retrying nothing: a torn or busy slot is a
//      miss).
//    Inserts fill their new records' slots before committing (FillNewDocument); a record
//    inserted and then replaced or removed within one uncommitted write is invalidated at once.
//    Dropped collections' slots are never looked up again (prefixes are never reused).
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "storage/reader.h"

namespace cairn::server {

class IdCache {
 public:
  // Documents up to this size are cached (a slot is 256 bytes).
  static constexpr size_t kMaxCachedDocumentBytes = 232;

  // Default: 2^20 id slots (16 MiB) and 2^18 document slots (64 MiB, committed only as used).
  explicit IdCache(size_t slots_log2 = 20, size_t document_slots_log2 = 18);
  ~IdCache();
  IdCache(const IdCache&) = delete;
  IdCache& operator=(const IdCache&) = delete;

  // A candidate RecordId for the key, if its slot holds this key's hash.
  bool Lookup(storage::Prefix collection, std::string_view id_key, storage::RecordId* id) const;
  void Insert(storage::Prefix collection, std::string_view id_key, storage::RecordId id);

  // The cached document of the record, copied into *document; false on a miss.
  bool LookupDocument(storage::Prefix collection, storage::RecordId id,
                      std::string* document) const;
  // Taken before reading the record from storage; passed to FillDocument after.
  uint64_t DocumentTicket(storage::Prefix collection, storage::RecordId id) const;
  // Caches the document read from storage, unless a writer touched the slot since the ticket.
  void FillDocument(storage::Prefix collection, storage::RecordId id, uint64_t ticket,
                    BsonView document);
  // Write-through for an insert: caches a new record's document before the write that creates
  // it commits. Safe because no reader can name the record until that commit makes its index
  // entry visible, and RecordIds are never reused, so an insert that fails leaves only a slot
  // nobody looks up.
  void FillNewDocument(storage::Prefix collection, storage::RecordId id, BsonView document);
  // After a committed update or removal of the record.
  void InvalidateDocument(storage::Prefix collection, storage::RecordId id);

 private:
  struct Slot {
    std::atomic<uint64_t> hash{0};
    std::atomic<int64_t> record_id{0};
  };
  // 256 bytes: a sequence (odd while a writer holds the slot), the record it holds, and the
  // document's bytes as relaxed atomic words (a sequence lock over plain memory would be a
  // data race in C++'s model).
  struct DocumentSlot {
    static constexpr size_t kWords = kMaxCachedDocumentBytes / 8;
    std::atomic<uint64_t> sequence;
    std::atomic<uint64_t> owner;  // prefix << 32 | length; 0 when empty
    std::atomic<int64_t> record_id;
    std::atomic<uint64_t> words[kWords];
  };
  static_assert(sizeof(DocumentSlot) == 256);
  static uint64_t Hash(storage::Prefix collection, std::string_view id_key);
  DocumentSlot& DocumentSlotFor(storage::Prefix collection, storage::RecordId id) const;
  // Takes the slot for writing: its even sequence before (spins while another writer holds it).
  static uint64_t Acquire(DocumentSlot& slot);
  // Writes the document into a slot taken at even `sequence` and releases it.
  static void Store(DocumentSlot& slot, uint64_t sequence, storage::Prefix collection,
                    storage::RecordId id, BsonView document);

  size_t mask_;
  Slot* slots_;
  size_t document_mask_;
  DocumentSlot* document_slots_;
};

// Reads record `id` of `collection` into *document (*found false when it does not exist): from
// the cache when it holds the document, else from storage, offering what it read to the cache
// under the ticket protocol. A null cache reads storage only.
Status ReadRecordThroughCache(const storage::Reader& reader, storage::Prefix collection,
                              storage::RecordId id, IdCache* cache, std::string* document,
                              bool* found);

}  // namespace cairn::server
