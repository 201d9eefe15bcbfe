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
#include "storage/reader.h"

namespace rocksdb {
class WriteBatch;  // storage-internal: only the catalog reaches a unit's batch
}  // namespace rocksdb

namespace cairn::storage {

struct CollectionState;  // engine_impl.h

class WriteUnit;
class Transaction;  // storage/transaction.h

class Engine final : public Reader {
 public:
  // Opens (creating if asked) the database at options.path with its column families, loads the
  // catalog, and recovers from the WAL. InternalError if RocksDB cannot open it (for example
  // another process holds its LOCK).
  static Result<std::unique_ptr<Engine>> Open(const StorageOptions& options);
  // Closes RocksDB cleanly (flushes the WAL). Every cursor must be gone.
  ~Engine();

  Catalog& catalog();
  const Catalog& catalog() const override;

  // Reader: the latest committed state. IndexEntriesExist is one batched RocksDB MultiGet, much
  // cheaper than a Get per key (an insert batch probes its _id keys this way).
  Status GetRecord(Prefix collection, RecordId id, std::string* out, bool* found) const override;
  Status GetIndexEntry(Prefix index, std::string_view key, std::string* value,
                       bool* found) const override;
  Status IndexEntriesExist(Prefix index, const std::vector<std::string_view>& keys,
                           std::vector<bool>* exist) const override;

  // The largest key (without prefix) of an index; *found false when the index is empty.
  Status LargestIndexKey(Prefix index, std::string* key, bool* found) const;

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

  // Starts a multi-document transaction: reads at a snapshot taken now, with its own writes
  // (storage/transaction.h).
  std::unique_ptr<Transaction> BeginTransaction();

  // Flushes memtables (tests, shutdown).
  Status Flush();

  // Makes every write committed so far durable (fsync of the WAL): what a write concern with
  // j: true waits for. Commits themselves write the WAL without syncing.
  Status SyncWal();

  // compact: rewrites the files holding a collection's documents and these indexes' entries
  // down to the last level, dropping deleted and overwritten versions. Returns the bytes of
  // files this freed (negative when they grew, as when writes came meanwhile).
  Result<int64_t> CompactPrefixes(Prefix collection, const std::vector<Prefix>& indexes);

  // fsyncLock: once the caller has stopped writers, flushes every memtable to files, syncs the
  // WAL and pauses background flushes and compactions, so the files on disk are a consistent
  // copy that stays as it is (a file-copy backup) until EndBackup. Closing the engine resumes.
  Status BeginBackup();
  Status EndBackup();

 protected:
  std::unique_ptr<RecordCursor> NewRecordCursor(Prefix collection, RecordId from,
                                                bool reverse) const override;
  std::unique_ptr<IndexCursor> NewIndexCursor(Prefix index, std::string_view start,
                                              std::string_view end, bool reverse) const override;

 public:
  struct Impl;  // storage-internal (engine_impl.h); named by storage's own files only

 private:
  friend class WriteUnit;
  friend class Catalog;
  friend class Transaction;
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
  friend class Catalog;      // a catalog change may commit in a unit (the oplog entry recording it)
  friend class Transaction;  // takes a statement's writes
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
