// CollectionWriter: the one write path into a collection. It holds the collection's write lock
// for its lifetime, keeps every index exact — the _id index and every secondary index, with only
// the keys that changed rewritten on replace — and gathers documents and index entries into one
// storage WriteUnit, committed as one atomic RocksDB WriteBatch. A document that would break a
// unique index (or whose keys cannot be generated: parallel arrays) writes nothing. Paths found
// to be multikey are recorded in the catalog before the batch that holds them commits. Used by
// insert, update, delete and findAndModify. Not thread-safe: one writer per command, one thread.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "index/key_generator.h"
#include "query/matcher/document_validator.h"
#include "server/capped/capped_eviction.h"
#include "server/catalog/collection_indexes.h"
#include "server/write/transaction_writes.h"
#include "server/write/write_context.h"
#include "storage/engine.h"

namespace cairn::server {

// Checks and shapes a client document for insertion, as MongoDB's fixDocumentForInsert:
// larger than 16 MiB → BadValue "object to insert too large. size in bytes: N, max size:
// 16777216"; nested deeper than MaxStorageDepth() → Overflow (common/bson_validate.h); _id an
// array/regex/undefined → BadValue "can't use an array for _id"; _id missing → an ObjectId is
// generated; _id not first → moved first. Returns `doc` itself when it is already in shape (no
// copy, no allocation), else a view of the rewritten copy placed in *storage.
Result<BsonView> PrepareForInsert(BsonView doc, std::optional<BsonDoc>* storage);

class CollectionWriter final : private EvictingWriter {
 public:
  // Opens a writer on `ns` and takes its write lock. With create_if_missing a missing collection
  // is created (implicit creation, as on MongoDB's first insert); otherwise collection() is null
  // when it does not exist. The namespace must already be validated.
  // With `txn` the writer works in that multi-document transaction (transaction_writes.h):
  // a capped collection is refused (OperationNotSupportedInTransaction 263), and a collection
  // created implicitly is created at once, outside the transaction.
  static Result<std::unique_ptr<CollectionWriter>> Open(WriteContext& state, std::string_view ns,
                                                        bool create_if_missing,
                                                        TransactionWrites* txn = nullptr);
  ~CollectionWriter();

  const storage::CollectionHandle& collection() const { return collection_; }

  // The retryable-write statement the next changes belong to (null: none), for their oplog
  // entries. The caller keeps it alive while it is set.
  void set_statement(const StatementContext* statement) { statement_ = statement; }

  // bypassDocumentValidation: Insert and Replace skip the collection's validator.
  void set_bypass_document_validation(bool bypass) { bypass_validation_ = bypass; }

  // Prepared documents' encoded _id keys and whether each is taken in storage, from one batched
  // read. The answers stay true until this writer's next Commit (it holds the collection lock
  // meanwhile), so they may be passed to the Insert calls that follow to spare a read and the
  // key's encoding each.
  struct IdProbes {
    std::vector<std::string> keys;
    std::vector<bool> taken;
  };
  Result<IdProbes> ProbeIds(const std::vector<BsonView>& docs);

  // Adds a prepared document (PrepareForInsert) with its index entries. DuplicateKey 11000 with
  // MongoDB's message and keyPattern/keyValue when its _id or a unique index key is taken
  // (committed or pending); CannotIndexParallelArrays 171. Nothing is added on error.
  Status Insert(BsonView doc);
  // The same, for document `i` of the documents `probes` was taken for.
  Status Insert(BsonView doc, const IdProbes& probes, size_t i);
  // Replaces the document stored at `id` (same _id) with `new_doc`, rewriting only the index keys
  // that differ. DuplicateKey / CannotIndexParallelArrays as Insert, Overflow when `new_doc` is
  // nested deeper than MaxStorageDepth(); nothing changes on error.
  // `replacement`: the new document replaced the old one whole (a replacement-style update),
  // which the oplog logs whole instead of as a diff.
  Status Replace(storage::RecordId id, BsonView old_doc, BsonView new_doc,
                 bool replacement = false);
  // Deletes the document at `id` and its index entries.
  Status Remove(storage::RecordId id, BsonView doc);

  // Logs a no-op entry {o, o2} of this collection with the current statement, in this unit
  // (nothing when the collection's changes are not logged).
  Status LogNoop(BsonView o, BsonView o2) {
    if (oplog_ == nullptr) return Status::OK();
    return oplog_->LogNoop(unit_, oplog_unit_, *collection_, o, o2, statement_);
  }

  // Commits everything added so far in one atomic write; the writer can go on afterwards. In a
  // transaction, hands it to the transaction instead (WriteConflict 112 when another transaction
  // holds a key, or one changed since the transaction's snapshot).
  Status Commit();
  size_t pending_bytes() const { return unit_.ApproximateBytes(); }
  // The Timestamp of the newest oplog entry of the uncommitted unit (0: none, or not logged).
  uint64_t last_oplog_ts() const { return oplog_unit_.last_ts; }

 private:
  // EvictingWriter: how the capped evictor removes and counts through this writer.
  // (A capped collection's evictions are not logged: each member caps its own copy, as in mongod.)
  Status RemoveForEviction(storage::RecordId id, BsonView doc) override {
    evicting_ = true;
    Status status = Remove(id, doc);
    evicting_ = false;
    return status;
  }
  void PendingCounts(storage::Prefix collection, int64_t* count_delta,
                     int64_t* size_delta) const override;

  // Index keys added and removed in the uncommitted unit, per unique secondary index: a key's
  // owner is decided by these before storage is asked.
  struct PendingKeys {
    std::unordered_map<std::string, storage::RecordId> added;
    std::unordered_set<std::string> removed;
  };

  CollectionWriter(WriteContext& state, storage::CollectionHandle collection,
                   TransactionWrites* txn);
  // What the writer reads: the transaction's snapshot with its writes, or the latest state.
  const storage::Reader& reader() const;
  Result<std::string> IdKey(BsonView doc, bson_iter_t* id) const;
  // Insert, given the document's _id key and (when known) whether storage holds it.
  Status InsertWithKey(BsonView doc, std::string key, std::optional<bool> taken_in_storage);
  // After the lock is held: the newest catalog handle of this collection (an index created
  // before the lock was taken must be maintained) and its compiled secondary indexes.
  Status LoadIndexes();
  // Every secondary index's keys of `doc` into keys[i], recording new multikey paths.
  Status SecondaryKeys(BsonView doc, std::vector<index::KeySet>* keys);
  // Whether `key` of unique index `i` belongs to a record other than `self`.
  Result<bool> UniqueKeyTaken(size_t i, const std::string& key, storage::RecordId self);
  // Writes the new multikey paths to the catalog (before the unit that needs them commits).
  Status PublishMultikeyPaths();
  // Commit in a transaction: the unit's writes go to it.
  Status HandToTransaction();
  // After a unit is committed or handed on: the keys it added and removed are storage's now.
  void ForgetPendingKeys();
  // Records a replaced or removed record for invalidation in the IdCache.
  void NoteChanged(storage::RecordId id);
  // Reads the _id key bound (CollectionWriteState) from storage if no writer has.
  Status KnowIdBound();
  // Whether `key` sorts above every _id key in storage (the bound must be known).
  bool AboveIdBound(std::string_view key) const;

  WriteContext& state_;
  TransactionWrites* txn_ = nullptr;
  storage::CollectionHandle collection_;
  // The collection's shared write state; its lock is held for the writer's life.
  CollectionWriteState* shared_ = nullptr;
  // Releases shared_'s lock when the writer goes, after the members below are destroyed.
  struct HeldLock {
    Mutex* mu = nullptr;
    ~HeldLock();
  } lock_;
  // The collection's validator (server/catalog/collection_validator.h); null when none applies.
  std::shared_ptr<const query::DocumentValidator> validator_;
  bool bypass_validation_ = false;
  storage::WriteUnit unit_;
  // _id keys added (with their RecordIds) and removed in the uncommitted unit; published to
  // the IdCache once the unit commits.
  std::unordered_map<std::string, storage::RecordId> inserted_ids_;
  // Records replaced or removed since the last Commit: their cached copies are invalidated
  // once it commits (IdCache's document table).
  std::vector<storage::RecordId> changed_records_;
  // The first RecordId this unit inserted (0: none). RecordIds grow and the writer holds the
  // collection's lock, so every id from it on was inserted by this unit.
  storage::RecordId first_unit_insert_ = 0;
  std::unordered_set<std::string> removed_ids_;

  // Secondary index maintenance: null when the collection has only its _id index.
  std::shared_ptr<const CollectionIndexes> indexes_;
  std::vector<PendingKeys> pending_keys_;       // per index position (unique ones used)
  std::vector<index::MultikeyPaths> multikey_;  // per index: known multikey paths
  bool multikey_changed_ = false;
  std::vector<index::KeySet> new_keys_, old_keys_;  // per index, reused between documents
  // Capped collections only: evicts the oldest documents as inserts overflow the cap.
  std::unique_ptr<CappedEvictor> capped_;
  // The replica set's oplog when this collection's changes are logged (null otherwise), and the
  // uncommitted unit's entries.
  OplogSink* oplog_ = nullptr;
  OplogUnit oplog_unit_;
  const StatementContext* statement_ = nullptr;
  bool evicting_ = false;
};

}  // namespace cairn::server
