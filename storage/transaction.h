// Transaction: a multi-document transaction's storage. It reads at the RocksDB snapshot taken
// when it began, with its own writes laid over it (read-your-own-writes), and holds its writes
// in memory until the commit writes them in one WriteBatch, so nothing of it is visible to other
// readers before the commit and all of it is at once after.
//
// Why not RocksDB's own transactions: a WriteBatchWithIndex's iterators see the batch live (a
// cursor opened before a later statement of the transaction would see that statement's writes,
// and a multi-update would meet its own writes while it scans), and TransactionDB or
// OptimisticTransactionDB would put every write of the server, transactional or not, through
// their locking or validation. Here the snapshot is RocksDB's; the writes are a sorted overlay
// (storage/overlay_iterator.h) of which each cursor takes the part in its range when it is made,
// so a cursor reads one fixed state, as every other cursor does.
//
// Write conflicts, first writer wins: a key a transaction writes is held by it until it ends; a
// second transaction writing the same key gets WriteConflict, as does a transaction writing a key
// that changed after its snapshot. Writers outside transactions do not take keys; Validate,
// which the commit asks while those writers are held off, catches them.
//
// Not thread-safe: one command at a time runs in a transaction.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/reader.h"

namespace cairn::storage {

class Transaction final : public Reader {
 public:
  ~Transaction() override;  // releases the snapshot and the keys held

  // Reader: the snapshot with this transaction's writes over it.
  const Catalog& catalog() const override;
  Status GetRecord(Prefix collection, RecordId id, std::string* out, bool* found) const override;
  Status GetIndexEntry(Prefix index, std::string_view key, std::string* value,
                       bool* found) const override;
  Status IndexEntriesExist(Prefix index, const std::vector<std::string_view>& keys,
                           std::vector<bool>* exist) const override;

  // Takes a statement's writes (documents, index entries, count adjustments) from `unit`, which
  // is left empty. WriteConflict 112 when a key is held by another transaction or changed since
  // the snapshot; the transaction must then be abandoned (part of the unit may have been taken).
  Status Apply(WriteUnit& unit);

  // WriteConflict unless every key written still holds what the snapshot saw. The commit asks it
  // while no other writer of these keys can commit.
  Status Validate() const;

  // Everything written, as one unit to commit (its count adjustments included). The keys stay
  // held until the transaction is destroyed, after that commit.
  WriteUnit TakeWrites() const;

  bool empty() const;
  // The bytes of the writes held.
  size_t ApproximateBytes() const;

 protected:
  std::unique_ptr<RecordCursor> NewRecordCursor(Prefix collection, RecordId from,
                                                bool reverse) const override;
  std::unique_ptr<IndexCursor> NewIndexCursor(Prefix index, std::string_view start,
                                              std::string_view end, bool reverse) const override;

 private:
  friend class Engine;
  struct Impl;
  explicit Transaction(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn::storage
