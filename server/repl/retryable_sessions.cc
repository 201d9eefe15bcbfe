// RetryableSessions implementation (see retryable_sessions.h).
#include "server/repl/retryable_sessions.h"

#include "server/repl/replication_coordinator.h"
#include "server/txn/session_transaction.h"
#include "server/write/collection_writer.h"

namespace cairn::server {

RetryableSessions::Session::Session() = default;
RetryableSessions::Session::~Session() = default;

RetryableSessions::Checkout::~Checkout() NO_THREAD_SAFETY_ANALYSIS {
  if (session_) session_->checkout.Unlock();
}

std::shared_ptr<RetryableSessions::Session> RetryableSessions::Find(const SessionId& id) {
  MutexLock lock(&mu_);
  std::shared_ptr<Session>& session = sessions_[id];
  if (!session) session = std::make_shared<Session>();
  return session;
}

Status RetryableSessions::Load(storage::Prefix oplog) NO_THREAD_SAFETY_ANALYSIS {
  std::unique_ptr<storage::RecordCursor> cursor = writes_.engine().ScanRecords(oplog);
  while (cursor->Next()) {
    BsonView entry = cursor->value();
    bson_iter_t lsid, txn, stmt;
    if (!entry.Find("lsid", &lsid) || !entry.Find("txnNumber", &txn)) continue;
    std::optional<SessionId> id = ParseSessionId(&lsid);
    int64_t txn_number = 0, stmt_id = 0;
    if (!id || !IterAsInt64(&txn, &txn_number)) continue;
    // Without a stmtId: a committed transaction's applyOps entry.
    const bool transaction = !entry.Find("stmtId", &stmt);
    if (!transaction && !IterAsInt64(&stmt, &stmt_id)) continue;
    std::shared_ptr<Session> session = Find(*id);
    // Entries come in ts order: a newer txnNumber starts over.
    if (txn_number > session->txn_number) {
      session->txn_number = txn_number;
      session->executed.clear();
    }
    if (txn_number != session->txn_number) continue;
    if (transaction) {
      session->txn_state = TxnState::kCommitted;
      session->last_write_ts = static_cast<uint64_t>(cursor->id());
    } else {
      session->txn_state = TxnState::kRetryableWrite;
      session->executed[static_cast<int32_t>(stmt_id)] = static_cast<uint64_t>(cursor->id());
      session->last_write_ts = static_cast<uint64_t>(cursor->id());
    }
  }
  return cursor->status();
}

Result<RetryableSessions::Checkout> RetryableSessions::Begin(
    const SessionId& id, std::string_view id_text, int64_t txn_number) NO_THREAD_SAFETY_ANALYSIS {
  Checkout checkout;
  checkout.session_ = Find(id);
  Session& session = *checkout.session_;
  session.checkout.Lock();
  if (txn_number < session.txn_number) {
    const int64_t newer = session.txn_number;
    session.checkout.Unlock();
    checkout.session_.reset();
    return Status(ErrorCode::kTransactionTooOld,
                  "Retryable write with txnNumber " + std::to_string(txn_number) +
                      " is prohibited on session " + std::string(id_text) +
                      " because a newer retryable write with txnNumber " + std::to_string(newer) +
                      " has already started on this session.");
  }
  if (txn_number == session.txn_number && session.txn_state != TxnState::kNone &&
      session.txn_state != TxnState::kRetryableWrite) {
    session.checkout.Unlock();
    checkout.session_.reset();
    return Status(ErrorCode::kIncompleteTransactionHistory,
                  "Cannot retry a retryable write that has been converted into a transaction");
  }
  if (txn_number > session.txn_number) {
    session.txn_number = txn_number;
    session.executed.clear();
    session.txn.reset();  // a newer retryable write aborts an open transaction
  }
  session.txn_state = TxnState::kRetryableWrite;
  return checkout;
}

RetryableSessions::Checkout RetryableSessions::CheckOut(const SessionId& id)
    NO_THREAD_SAFETY_ANALYSIS {
  Checkout checkout;
  checkout.session_ = Find(id);
  checkout.session_->checkout.Lock();
  return checkout;
}

void RetryableSessions::AbortIf(Session& session,
                                const std::function<bool(SessionTransaction&)>& abort)
    NO_THREAD_SAFETY_ANALYSIS {
  if (session.txn_state == TxnState::kInProgress && session.txn && abort(*session.txn)) {
    session.txn.reset();
    session.txn_state = TxnState::kAborted;
  }
}

void RetryableSessions::AbortExpiredTransactions(std::chrono::steady_clock::time_point now)
    NO_THREAD_SAFETY_ANALYSIS {
  std::vector<std::shared_ptr<Session>> all;
  {
    MutexLock lock(&mu_);
    all.reserve(sessions_.size());
    for (const auto& entry : sessions_) all.push_back(entry.second);
  }
  for (const std::shared_ptr<Session>& session : all) {
    if (!session->checkout.TryLock()) continue;
    AbortIf(*session, [now](SessionTransaction& txn) { return txn.Expired(now); });
    session->checkout.Unlock();
  }
}

void RetryableSessions::AbortTransactionsOf(const std::vector<SessionId>& ids)
    NO_THREAD_SAFETY_ANALYSIS {
  for (const SessionId& id : ids) {
    std::shared_ptr<Session> session;
    {
      MutexLock lock(&mu_);
      auto it = sessions_.find(id);
      if (it == sessions_.end()) continue;
      session = it->second;
    }
    session->checkout.Lock();
    AbortIf(*session, [](SessionTransaction&) { return true; });
    session->checkout.Unlock();
  }
}

void RetryableSessions::RecordCommit(Checkout& checkout, const SessionId& id, uint64_t ts,
                                     int64_t term) NO_THREAD_SAFETY_ANALYSIS {
  Session& session = *checkout.session();
  session.last_write_ts = ts;
  NoteSummary(id, {session.txn_number, ts, /*committed_transaction=*/true}, term);
}

void RetryableSessions::Record(Checkout& checkout, const SessionId& id,
                               const std::vector<std::pair<int32_t, uint64_t>>& statements,
                               int64_t term) NO_THREAD_SAFETY_ANALYSIS {
  Session& session = *checkout.session();
  for (const auto& [stmt_id, ts] : statements) {
    session.executed[stmt_id] = ts;
    if (ts > session.last_write_ts) session.last_write_ts = ts;
  }
  NoteSummary(id, {session.txn_number, session.last_write_ts, false}, term);
}

void RetryableSessions::NoteSummary(const SessionId& id, const Summary& summary, int64_t term) {
  bool write_summary = false;
  {
    MutexLock lock(&mu_);
    dirty_[id] = summary;
    auto now = std::chrono::steady_clock::now();
    if (now - last_summary_ >= std::chrono::milliseconds(100)) {
      last_summary_ = now;
      write_summary = true;
    }
  }
  if (write_summary) WriteSummary(term);
}

void RetryableSessions::WriteSummary(int64_t term) {
  if (!summary_mu_.TryLock()) return;  // another command is writing it
  std::unordered_map<SessionId, Summary, SessionCache::Hash> dirty;
  {
    MutexLock lock(&mu_);
    dirty.swap(dirty_);
  }
  Result<std::unique_ptr<CollectionWriter>> writer =
      CollectionWriter::Open(writes_, "config.transactions", /*create_if_missing=*/true);
  if (writer.ok()) {
    CollectionWriter& w = **writer;
    const storage::Prefix prefix = w.collection()->prefix;
    // The session documents, keyed by _id: the old version of each changed one is replaced.
    std::unordered_map<SessionId, std::pair<storage::RecordId, BsonDoc>, SessionCache::Hash> old;
    std::unique_ptr<storage::RecordCursor> cursor = writes_.engine().ScanRecords(prefix);
    while (cursor->Next()) {
      bson_iter_t id_doc, id;
      if (!cursor->value().Find("_id", &id_doc) || !BSON_ITER_HOLDS_DOCUMENT(&id_doc)) continue;
      if (!IterDocument(&id_doc).Find("id", &id)) continue;
      std::optional<SessionId> session_id = ParseSessionId(&id_doc);
      if (session_id && dirty.count(*session_id)) {
        old.emplace(*session_id, std::pair{cursor->id(), BsonDoc(cursor->value())});
      }
    }
    cursor.reset();
    for (const auto& [id, state] : dirty) {
      BsonDoc doc;
      bson_t key, optime;
      BSON_APPEND_DOCUMENT_BEGIN(doc.get(), "_id", &key);
      BSON_APPEND_BINARY(&key, "id", BSON_SUBTYPE_UUID, id.data(), id.size());
      bson_append_document_end(doc.get(), &key);
      BSON_APPEND_INT64(doc.get(), "txnNum", state.txn_number);
      BSON_APPEND_DOCUMENT_BEGIN(doc.get(), "lastWriteOpTime", &optime);
      const Timestamp ts{state.last_write_ts};
      AppendTimestamp(&optime, "ts", ts);
      BSON_APPEND_INT64(&optime, "t", term);
      bson_append_document_end(doc.get(), &optime);
      BSON_APPEND_DATE_TIME(doc.get(), "lastWriteDate", static_cast<int64_t>(ts.seconds()) * 1000);
      if (state.committed_transaction) BSON_APPEND_UTF8(doc.get(), "state", "committed");
      auto found = old.find(id);
      Status status = found != old.end()
                          ? w.Replace(found->second.first, found->second.second.view(), doc.view())
                          : w.Insert(doc.view());
      status.IgnoreError();  // a summary: the oplog holds the durable record
    }
    w.Commit().IgnoreError();
  }
  summary_mu_.Unlock();
}

}  // namespace cairn::server
