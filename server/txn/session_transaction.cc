// SessionTransaction (see session_transaction.h).
#include "server/txn/session_transaction.h"

#include <vector>

#include "common/mutex.h"

namespace cairn::server {

SessionTransaction::SessionTransaction(WriteContext& writes, Oplog& oplog, CursorManager& cursors,
                                       TransactionMetrics& metrics, int64_t txn_number,
                                       Clock::time_point expires)
    : write_context_(writes),
      oplog_(oplog),
      cursors_(cursors),
      metrics_(metrics),
      txn_number_(txn_number),
      expires_(expires),
      storage_(writes.engine().BeginTransaction()),
      ops_(oplog) {
  writes_.storage = storage_.get();
  writes_.ops = &ops_;
  metrics_.started.fetch_add(1, std::memory_order_relaxed);
  metrics_.open.fetch_add(1, std::memory_order_relaxed);
}

SessionTransaction::~SessionTransaction() {
  cursors_.KillTransactionCursors(this);
  metrics_.open.fetch_sub(1, std::memory_order_relaxed);
  (committed_ ? metrics_.committed : metrics_.aborted).fetch_add(1, std::memory_order_relaxed);
  metrics_.latency.Add(
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - began_).count());
}

Status SessionTransaction::CheckCatalogUnchanged() const {
  const storage::Catalog& catalog = write_context_.engine().catalog();
  for (const auto& [prefix, written] : writes_.collections) {
    storage::CollectionHandle now = catalog.Find(written.ns);
    bool same = now && now->prefix == prefix && now->indexes.size() == written.indexes.size();
    for (size_t i = 0; same && i < written.indexes.size(); ++i) {
      same = now->indexes[i].prefix == written.indexes[i];
    }
    if (!same) {
      return Status(ErrorCode::kWriteConflict,
                    "WriteConflict error: collection " + written.ns +
                        " was dropped or its indexes changed during the transaction. Please "
                        "retry your operation or multi-document transaction.");
    }
  }
  return Status::OK();
}

Result<uint64_t> SessionTransaction::Commit(BsonView lsid) NO_THREAD_SAFETY_ANALYSIS {
  if (storage_->empty()) {
    committed_ = true;
    return uint64_t{0};
  }
  // The collections' write locks, in prefix order (std::set's): a writer outside the transaction
  // holds one from its reads to its commit, so none commits a key of this transaction between
  // the validation and the write. (Other transactions cannot: this one holds its keys.)
  std::vector<Mutex*> held;
  for (const auto& [prefix, written] : writes_.collections) {
    Mutex* lock = &write_context_.CollectionLock(prefix);
    lock->Lock();
    held.push_back(lock);
  }
  Status status = CheckCatalogUnchanged();
  if (status.ok()) status = storage_->Validate();
  uint64_t ts = 0;
  if (status.ok()) {
    storage::WriteUnit unit = storage_->TakeWrites();
    OplogUnit pending;
    status = oplog_.LogTransaction(unit, pending, ops_.ops(), lsid, txn_number_);
    ts = pending.last_ts;
    if (status.ok()) {
      oplog_.Flush(unit, pending);
      status = unit.Commit();
    }
    oplog_.UnitDone(pending, status.ok());
  }
  if (status.ok()) {
    // The _id keys committed may lie above a collection's known bound: it is read again when
    // next needed (write_context.h).
    for (const auto& [prefix, written] : writes_.collections) {
      CollectionWriteState& state = write_context_.CollectionWrite(prefix);
      state.lock.AssertHeld();
      state.id_bound.reset();
    }
  }
  for (auto it = held.rbegin(); it != held.rend(); ++it) (*it)->Unlock();
  // Before the commit is acknowledged, no cached copy of a changed document may survive.
  IdCache& cache = write_context_.id_cache();
  for (const auto& [prefix, id] : writes_.changed) cache.InvalidateDocument(prefix, id);
  if (!status.ok()) return status;
  committed_ = true;
  return ts;
}

}  // namespace cairn::server
