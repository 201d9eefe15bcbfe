// SessionTransaction: one multi-document transaction of a session, from its startTransaction to
// its commit or abort. It owns the storage transaction (a RocksDB snapshot with the
// transaction's writes over it: storage/transaction.h), the operations its applyOps entry will
// hold (server/repl/transaction_ops.h), and what its writers record for the commit
// (server/write/transaction_writes.h). Dropping it aborts it: nothing it wrote was ever visible;
// the cursors opened in it are killed then, committed or not.
//
// Owned by its session (server/repl/retryable_sessions.h), used by the one command that has the
// session checked out.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/admin/server_metrics.h"
#include "server/cursor/cursor_manager.h"
#include "server/repl/oplog.h"
#include "server/repl/transaction_ops.h"
#include "server/write/transaction_writes.h"
#include "server/write/write_context.h"
#include "storage/transaction.h"

namespace cairn::server {

class SessionTransaction {
 public:
  using Clock = std::chrono::steady_clock;

  // Begins transaction `txn_number`: its snapshot is taken now. It expires at `expires`
  // (transactionLifetimeLimitSeconds after it began). `metrics` counts it begun, open, and
  // committed or aborted when it goes.
  SessionTransaction(WriteContext& writes, Oplog& oplog, CursorManager& cursors,
                     TransactionMetrics& metrics, int64_t txn_number, Clock::time_point expires);
  // Kills the cursors opened in the transaction (they read its snapshot); counts it committed
  // when Commit succeeded, else aborted.
  ~SessionTransaction();
  SessionTransaction(const SessionTransaction&) = delete;
  SessionTransaction& operator=(const SessionTransaction&) = delete;

  int64_t txn_number() const { return txn_number_; }
  bool Expired(Clock::time_point now) const { return now >= expires_; }

  // What the transaction's commands read: its snapshot with its own writes.
  const storage::Reader& reader() const { return *storage_; }
  // What its writers write into (CollectionWriter::Open).
  TransactionWrites* writes() { return &writes_; }

  // Commits: while the written collections' writers are held off, checks that no key it wrote
  // changed since its snapshot (WriteConflict 112 otherwise), then writes its data and its one
  // applyOps oplog entry (with `lsid` and its txnNumber) in one atomic batch, and forgets the
  // cached copies of the documents it changed. Returns the entry's Timestamp; 0 when the
  // transaction wrote nothing (nothing is logged then, as in mongod).
  Result<uint64_t> Commit(BsonView lsid);

 private:
  // WriteConflict when a collection written was dropped, or its indexes changed, after the
  // transaction wrote to it (its writes would miss a new index). Under the collections' locks.
  Status CheckCatalogUnchanged() const;

  WriteContext& write_context_;
  Oplog& oplog_;
  CursorManager& cursors_;
  TransactionMetrics& metrics_;
  const Clock::time_point began_ = Clock::now();
  bool committed_ = false;
  const int64_t txn_number_;
  const Clock::time_point expires_;
  std::unique_ptr<storage::Transaction> storage_;
  TransactionOps ops_;
  TransactionWrites writes_;
};

}  // namespace cairn::server
