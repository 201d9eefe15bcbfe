// Engine: the RocksDB database under Cairn and the only code that touches RocksDB. It moves
// bytes — documents by (collection prefix, RecordId), index entries by (index prefix, opaque
// key bytes) — and knows nothing of query or index semantics. Column families by kind:
// "catalog", "documents", "index" (see storage/README.md for every key and value byte).
//
// Thread-safety: Engine, Catalog and their methods are safe to call from any thread. Cursors and
// WriteUnits belong to one thread at a time. An Engine outlives every cursor and WriteUnit made
// from it.
//
// Error vocabulary (all Status values this module returns): NoSuchKey (not found),
// NamespaceExists / NamespaceNotFound (catalog; Catalog::DropIndex also IndexNotFound and
// InvalidOptions, Catalog::UpdateIndex IndexNotFound), InternalError (I/O or corruption, with
// RocksDB's message).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "storage/catalog.h"
#include "storage/options.h"

namespace rocksdb {
class WriteBatch;  // storage-internal: only the catalog reaches a unit's batch
}  // namespace rocksdb

namespace cairn::storage {

struct CollectionState;  // engine_impl.h

// Positive, increasing per collection in insertion order; never reused within a collection.
using RecordId = int64_t;

class WriteUnit;

// Forward iteration over one collection's documents in RecordId (= insertion) order, or reverse.
// Holds a RocksDB iterator, so it reads one consistent snapshot taken when it was made.
class RecordCursor {
 public:
  virtual ~RecordCursor() = default;
  // Advances to the next record; false at the end (or on error: check status()).
  virtual bool Next() = 0;
  virtual RecordId id() const = 0;
  // A view of the current document; valid until the next call to Next() or destruction.
  virtual BsonView value() const = 0;
  virtual Status status() const = 0;
};

// Iteration over one index's entries in key byte order within [start, end) (or the reverse).
class IndexCursor {
 public:
  virtual ~IndexCursor() = default;
  virtual bool Next() = 0;
  // Repositions within the cursor's range: forward, at the first entry with key >= target;
  // reverse, at the last entry with key < target. The next Next() returns that entry (false when
  // there is none), so one cursor (one snapshot) can visit several key ranges in order.
  virtual void Seek(std::string_view target) = 0;
  // The entry's key without the index prefix, and its value; valid until Next().
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual Status status() const = 0;
};

class Engine {
 public:
  // Opens (creating if asked) the database at options.path with its column families, loads the
  // catalog, and recovers from the WAL. InternalError if RocksDB cannot open it (for example
  // another process holds its LOCK).
  static Result<std::unique_ptr<Engine>> Open(const StorageOptions& options);
  // Closes RocksDB cleanly (flushes the WAL). Every cursor must be gone.
  ~Engine();

  Catalog& catalog();
  const Catalog& catalog() const;

  // Reads one document. OK with *found=false when absent.
  Status GetRecord(Prefix collection, RecordId id, std::string* out, bool* found) const;
  // Reads one index entry's value by exact key (without prefix). OK with *found=false when absent.
  Status GetIndexEntry(Prefix index, std::string_view key, std::string* value, bool* found) const;

  // Which of `keys` (without prefix) have an entry in the index: one batched RocksDB MultiGet,
  // much cheaper than a Get per key (an insert batch probes its _id keys this way).
  Status IndexEntriesExist(Prefix index, const std::vector<std::string_view>& keys,
                           std::vector<bool>* exist) const;

  // The largest key (without prefix) of an index; *found false when the index is empty.
  Status LargestIndexKey(Prefix index, std::string* key, bool* found) const;

  // Scans a collection's records with id > after (forward) or id < before (reverse; 0 = from
  // the end).
  std::unique_ptr<RecordCursor> ScanRecords(Prefix collection, RecordId after = 0) const;
  std::unique_ptr<RecordCursor> ScanRecordsReverse(Prefix collection, RecordId before = 0) const;
  // Scans an index's entries with start <= key < end (keys without prefix; empty end = to the
  // end of the index).
  std::unique_ptr<IndexCursor> ScanIndex(Prefix index, std::string_view start,
                                         std::string_view end) const;
  // The same range from its last entry down to its first.
  std::unique_ptr<IndexCursor> ScanIndexReverse(Prefix index, std::string_view start,
                                                std::string_view end) const;

  // Allocates the next RecordId of a collection (thread-safe, monotonic; seeded from the largest
  // stored id the first time a collection is used after open). Returns 0 (never a valid id)
  // only if that first read fails with an I/O error.
  RecordId NextRecordId(Prefix collection);

  // Document count and total BSON bytes of a collection, kept in step with committed writes
  // (persisted in the same WriteBatch as the documents, so exact after a crash).
  int64_t RecordCount(Prefix collection) const;
  int64_t DataSize(Prefix collection) const;
  // Approximate bytes on disk (SST + memtable) of the given prefixes' ranges.
  uint64_t ApproximateSize(Prefix collection, const std::vector<Prefix>& indexes) const;

  // Starts an atomic write: everything added to the unit commits in one RocksDB WriteBatch.
  WriteUnit BeginWrite();

  // Flushes memtables (tests, shutdown).
  Status Flush();

  // Makes every write committed so far durable (fsync of the WAL): what a write concern with
  // j: true waits for. Commits themselves write the WAL without syncing.
  Status SyncWal();

 private:
  friend class WriteUnit;
  friend class Catalog;
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// One client write: documents, their index entries and count adjustments, committed together
// in one RocksDB WriteBatch (db->Write), or not at all. Move-only. Not thread-safe.
class WriteUnit {
 public:
  WriteUnit(WriteUnit&&) noexcept;
  WriteUnit& operator=(WriteUnit&&) noexcept;
  ~WriteUnit();  // an uncommitted unit is discarded

  void PutRecord(Prefix collection, RecordId id, BsonView document);
  void DeleteRecord(Prefix collection, RecordId id);
  void PutIndexEntry(Prefix index, std::string_view key, std::string_view value);
  void DeleteIndexEntry(Prefix index, std::string_view key);
  // Adjusts a collection's RecordCount/DataSize by these deltas when the unit commits.
  void AdjustCounts(Prefix collection, int64_t count_delta, int64_t size_delta);
  // The deltas adjusted so far for `collection` (0, 0 when none): what commit will add.
  void PendingCounts(Prefix collection, int64_t* count_delta, int64_t* size_delta) const;

  bool empty() const;
  size_t ApproximateBytes() const;

  // Writes everything atomically (WAL on). InternalError on failure; nothing is applied then.
  Status Commit();

 private:
  friend class Engine;
  friend class Catalog;  // a catalog change may commit in a unit (the oplog entry recording it)
  // For the catalog: the unit's batch (its index entries added), and its commit that also marks
  // `dropped` collections dropped, under the same lock as the catalog's own drops.
  rocksdb::WriteBatch* batch();
  Status CommitDropping(const std::vector<CollectionState*>& dropped);
  struct Impl;
  explicit WriteUnit(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Encodes a RecordId as 8 big-endian bytes (the _id index's entry value; order-preserving).
std::string EncodeRecordId(RecordId id);
RecordId DecodeRecordId(std::string_view bytes);

}  // namespace cairn::storage
