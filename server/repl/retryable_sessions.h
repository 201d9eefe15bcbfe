// RetryableSessions: which statements of each session's newest retryable write have executed
// (MongoDB's session catalog for retryable writes: lsid + txnNumber + stmtId). A retried
// statement is answered from its record and never runs again.
//
// The durable record is the oplog: each statement's entry carries lsid, txnNumber and stmtId and
// commits with the change, so Load() rebuilds the table from it after a restart (a kill -9
// included). config.transactions ({_id: {id}, txnNum, lastWriteOpTime, lastWriteDate}, MongoDB's
// shape) is refreshed from the table after the writes, at most every 100 ms, as a readable
// summary; Cairn never reads it back.
//
// Thread-safety: the table has its own mutex; a Session is checked out by one command at a time
// (its mutex, held for the command: a retry that arrives while the first attempt still runs
// waits for it, as mongod's session checkout does).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

#include "common/mutex.h"
#include "common/status.h"
#include "server/admin/session_cache.h"
#include "server/write/write_context.h"

namespace cairn::server {

class SessionTransaction;  // server/txn/session_transaction.h

// What the session's txnNumber names: nothing yet, a retryable write, or a multi-document
// transaction in one of its states.
enum class TxnState { kNone, kRetryableWrite, kInProgress, kCommitted, kAborted };

class RetryableSessions {
 public:
  struct Session {
    Session();
    ~Session();
    Mutex checkout;
    int64_t txn_number GUARDED_BY(checkout) = -1;
    TxnState txn_state GUARDED_BY(checkout) = TxnState::kNone;
    // The open multi-document transaction (kInProgress only).
    std::unique_ptr<SessionTransaction> txn GUARDED_BY(checkout);
    // stmtId → the Timestamp of the oplog entry that statement wrote.
    std::unordered_map<int32_t, uint64_t> executed GUARDED_BY(checkout);
    uint64_t last_write_ts GUARDED_BY(checkout) = 0;
  };

  // A command's hold on its session; released when it goes.
  class Checkout {
   public:
    Checkout() = default;
    Checkout(Checkout&&) = default;
    Checkout& operator=(Checkout&&) = default;
    ~Checkout();
    Session* session() const { return session_.get(); }

   private:
    friend class RetryableSessions;
    std::shared_ptr<Session> session_;
  };

  explicit RetryableSessions(WriteContext& writes) : writes_(writes) {}

  // Rebuilds the table from the oplog's entries that carry a session.
  Status Load(storage::Prefix oplog);

  // Checks the session out for a retryable write with `txn_number`: a newer number starts a new
  // write (the old one's records are dropped, an open transaction aborted), the same one
  // continues it (its retried statements are found), an older one is TransactionTooOld 225, and
  // the number of a transaction IncompleteTransactionHistory 217.
  Result<Checkout> Begin(const SessionId& id, std::string_view id_text, int64_t txn_number);

  // Checks the session out as it is (a multi-document transaction's command: server/txn/).
  Checkout CheckOut(const SessionId& id);

  // Aborts the open transactions past their lifetime limit (the reaper); a session busy with a
  // command is skipped (the command finds the expiry itself).
  void AbortExpiredTransactions(std::chrono::steady_clock::time_point now);
  // Aborts the open transactions of these sessions (endSessions), waiting for a command of one
  // of them to finish.
  void AbortTransactionsOf(const std::vector<SessionId>& ids);

  // After the checked-out command committed: these statements executed, logged at these
  // Timestamps. Refreshes config.transactions when it was last written over 100 ms ago.
  void Record(Checkout& checkout, const SessionId& id,
              const std::vector<std::pair<int32_t, uint64_t>>& statements, int64_t term);
  // After the checked-out session's transaction committed with its entry at `ts`.
  void RecordCommit(Checkout& checkout, const SessionId& id, uint64_t ts, int64_t term);

 private:
  std::shared_ptr<Session> Find(const SessionId& id);
  // Aborts `session`'s open transaction if `abort` says so (the session checked out).
  static void AbortIf(Session& session, const std::function<bool(SessionTransaction&)>& abort);
  void WriteSummary(int64_t term);

  WriteContext& writes_;
  Mutex mu_;
  std::unordered_map<SessionId, std::shared_ptr<Session>, SessionCache::Hash> sessions_
      GUARDED_BY(mu_);
  // A session's config.transactions document.
  struct Summary {
    int64_t txn_number = 0;
    uint64_t last_write_ts = 0;
    bool committed_transaction = false;  // state: "committed"
  };
  // Marks a session's summary to be written, and writes the changed ones when the last write
  // was over 100 ms ago.
  void NoteSummary(const SessionId& id, const Summary& summary, int64_t term);
  // Sessions changed since config.transactions was last written.
  std::unordered_map<SessionId, Summary, SessionCache::Hash> dirty_ GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point last_summary_ GUARDED_BY(mu_);
  Mutex summary_mu_;  // one writer of config.transactions at a time
};

}  // namespace cairn::server
