// TransactionScope (see transaction_scope.h): mongod's rules and messages for a session's
// multi-document transaction (transaction_participant.cpp, transaction_validation.cpp).
#include "server/txn/transaction_scope.h"

#include "common/bson_element.h"
#include "server/server_state.h"
#include "server/txn/session_transaction.h"

namespace cairn::server {

namespace {

// The commands a transaction may run (mongod's allowedInTransactions).
bool AllowedInTransaction(std::string_view name) {
  static constexpr std::string_view kAllowed[] = {
      "abortTransaction", "aggregate",     "commitTransaction", "create",
      "createIndexes",    "delete",        "distinct",          "find",
      "findAndModify",    "findandmodify", "getMore",           "insert",
      "killCursors",      "update"};
  for (std::string_view allowed : kAllowed) {
    if (allowed == name) return true;
  }
  return false;
}

bool EndsTransaction(std::string_view name) {
  return name == "commitTransaction" || name == "abortTransaction";
}

std::string TxnNumberText(int64_t txn_number) {
  return "{ txnNumber: " + std::to_string(txn_number) + " }";
}

Status NotAllowed(std::string reason) {
  return Status(ErrorCode::kOperationNotSupportedInTransaction, std::move(reason));
}

}  // namespace

Result<TransactionScope::Fields> TransactionScope::Parse(const CommandRequest& request) {
  Fields fields;
  bson_iter_t it;
  if (!request.body.Find("lsid", &it) || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return Status(ErrorCode::kInvalidOptions,
                  "Transaction number requires a session ID to also be specified");
  }
  fields.lsid = IterDocument(&it);
  std::optional<SessionId> id = ParseSessionId(&it);
  if (!id) return Status(ErrorCode::kInvalidOptions, "lsid must be {id: UUID}");
  fields.id = *id;
  bson_iter_t id_field;
  if (fields.lsid.Find("id", &id_field)) fields.id_text = ValueToShellString(&id_field) + " - ";
  if (!request.body.Find("txnNumber", &it) || !BSON_ITER_HOLDS_INT64(&it)) {
    if (request.body.Find("txnNumber", &it) && !BSON_ITER_HOLDS_INT32(&it)) {
      return Status(ErrorCode::kTypeMismatch, "BSON field 'txnNumber' is the wrong type '" +
                                                  std::string(BsonTypeName(bson_iter_type(&it))) +
                                                  "', expected type 'long'");
    }
  }
  IterAsInt64(&it, &fields.txn_number);
  if (request.body.Find("autocommit", &it)) {
    if (!BSON_ITER_HOLDS_BOOL(&it)) {
      return Status(ErrorCode::kTypeMismatch, "BSON field 'autocommit' is the wrong type '" +
                                                  std::string(BsonTypeName(bson_iter_type(&it))) +
                                                  "', expected type 'bool'");
    }
    if (bson_iter_bool(&it)) {
      return Status(ErrorCode::kInvalidOptions, "Specifying autocommit=true is not allowed.");
    }
  }
  if (request.body.Find("startTransaction", &it)) {
    if (!BSON_ITER_HOLDS_BOOL(&it)) {
      return Status(ErrorCode::kTypeMismatch, "BSON field 'startTransaction' is the wrong type '" +
                                                  std::string(BsonTypeName(bson_iter_type(&it))) +
                                                  "', expected type 'bool'");
    }
    if (!bson_iter_bool(&it)) {
      return Status(ErrorCode::kInvalidOptions,
                    "Specifying startTransaction=false is not allowed.");
    }
    fields.start = true;
  }
  return fields;
}

Status TransactionScope::CheckCommand(const CommandRequest& request, const Fields& fields,
                                      bool has_read_concern, bool has_write_concern) {
  const std::string_view name = request.name;
  if (name == "count") {
    return NotAllowed(
        "Cannot run 'count' in a multi-document transaction. Please see "
        "http://dochub.mongodb.org/core/transaction-count for a recommended alternative.");
  }
  if (!AllowedInTransaction(name)) {
    return NotAllowed("Cannot run '" + std::string(name) + "' in a multi-document transaction.");
  }
  if (fields.start && name == "commitTransaction") {
    return NotAllowed("Cannot start a transaction with a commit");
  }
  if (fields.start && name == "abortTransaction") {
    return NotAllowed("Cannot start a transaction with an abort");
  }
  if (fields.start && name == "killCursors") {
    return NotAllowed(
        "Cannot run killCursors as the first operation in a multi-document transaction.");
  }
  if (request.db == "local") {
    return NotAllowed("Cannot run command against the 'local' database in a transaction.");
  }
  if (request.db == "config") {
    return NotAllowed("Cannot run command against the config database in a transaction.");
  }
  if (request.db == "admin" && !EndsTransaction(name)) {
    return NotAllowed("Cannot run command against the 'admin' database in a transaction.");
  }
  if (has_read_concern && !fields.start) {
    return Status(ErrorCode::kInvalidOptions,
                  "Only the first command in a transaction may specify a readConcern");
  }
  if (has_write_concern && !EndsTransaction(name)) {
    return Status(ErrorCode::kInvalidOptions,
                  "writeConcern is not allowed within a multi-document transaction");
  }
  return Status::OK();
}

TransactionScope::TransactionScope(ServerState& state, Fields fields,
                                   RetryableSessions::Checkout checkout)
    : state_(state), fields_(std::move(fields)), checkout_(std::move(checkout)) {
  state_.metrics().transactions.active.fetch_add(1, std::memory_order_relaxed);
}

TransactionScope::~TransactionScope() {
  state_.metrics().transactions.active.fetch_sub(1, std::memory_order_relaxed);
}

Result<std::unique_ptr<TransactionScope>> TransactionScope::Enter(
    ServerState& state, const Fields& fields, std::string_view command) NO_THREAD_SAFETY_ANALYSIS {
  RetryableSessions::Checkout checkout = state.repl().retryable().CheckOut(fields.id);
  RetryableSessions::Session& session = *checkout.session();
  const int64_t n = fields.txn_number;
  if (n < session.txn_number) {
    const bool newer_is_transaction = session.txn_state != TxnState::kRetryableWrite;
    return Status(
        ErrorCode::kTransactionTooOld,
        "Cannot start transaction " + TxnNumberText(n) + " on session " + fields.id_text +
            " because a newer " + (newer_is_transaction ? "transaction" : "retryable write") +
            " with txnNumberAndRetryCounter { txnNumber: " + std::to_string(session.txn_number) +
            ", txnRetryCounter: " + (newer_is_transaction ? "0" : "-1") +
            " } has already started on this session.");
  }
  if (session.txn_state == TxnState::kInProgress && session.txn &&
      session.txn->Expired(SessionTransaction::Clock::now())) {
    session.txn.reset();  // past transactionLifetimeLimitSeconds: aborted
    session.txn_state = TxnState::kAborted;
  }
  if (fields.start) {
    if (n == session.txn_number) {
      return Status(ErrorCode::kConflictingOperationInProgress,
                    "Only servers in a sharded cluster can start a new transaction at the active "
                    "transaction number");
    }
    session.txn.reset();  // a newer transaction aborts the open one
    session.txn_number = n;
    session.executed.clear();
    const auto lifetime = std::chrono::seconds(
        state.parameters().transaction_lifetime_limit_seconds.load(std::memory_order_relaxed));
    session.txn = std::make_unique<SessionTransaction>(
        state.writes(), state.repl().oplog(), state.cursors(), state.metrics().transactions, n,
        SessionTransaction::Clock::now() + lifetime);
    session.txn_state = TxnState::kInProgress;
  } else {
    if (n != session.txn_number || session.txn_state == TxnState::kNone ||
        session.txn_state == TxnState::kRetryableWrite) {
      return Status(ErrorCode::kNoSuchTransaction,
                    "Given transaction number " + std::to_string(n) + " on session " +
                        fields.id_text +
                        " using txnRetryCounter 0 does not match any in-progress transactions. "
                        "The active transaction number is " +
                        std::to_string(session.txn_number));
    }
    if (session.txn_state == TxnState::kAborted) {
      return Status(ErrorCode::kNoSuchTransaction,
                    "Transaction with " + TxnNumberText(n) + " has been aborted.");
    }
    if (session.txn_state == TxnState::kCommitted && command != "commitTransaction") {
      return Status(ErrorCode::kTransactionCommitted,
                    "Transaction with " + TxnNumberText(n) + " has been committed.");
    }
  }
  return std::unique_ptr<TransactionScope>(
      new TransactionScope(state, fields, std::move(checkout)));
}

SessionTransaction* TransactionScope::transaction() const NO_THREAD_SAFETY_ANALYSIS {
  return checkout_.session()->txn.get();
}

void TransactionScope::AbortOpen() NO_THREAD_SAFETY_ANALYSIS {
  RetryableSessions::Session& session = *checkout_.session();
  if (session.txn_state != TxnState::kInProgress) return;
  session.txn.reset();
  session.txn_state = TxnState::kAborted;
}

Status TransactionScope::Commit() NO_THREAD_SAFETY_ANALYSIS {
  RetryableSessions::Session& session = *checkout_.session();
  if (session.txn_state == TxnState::kCommitted) return Status::OK();  // a retried commit
  Result<uint64_t> ts = session.txn->Commit(fields_.lsid);
  if (!ts.ok()) {
    AbortOpen();
    return ts.status();
  }
  session.txn.reset();
  session.txn_state = TxnState::kCommitted;
  if (*ts != 0) {
    state_.repl().retryable().RecordCommit(checkout_, fields_.id, *ts,
                                           state_.repl().topology()->term);
  }
  return Status::OK();
}

Status TransactionScope::Abort() {
  AbortOpen();
  return Status::OK();
}

void TransactionScope::Leave(const Status& status, const bson_t* reply) {
  if (!status.ok() || (reply != nullptr && bson_has_field(reply, "writeErrors"))) AbortOpen();
}

const storage::Reader& ReaderFor(CommandContext& ctx) {
  SessionTransaction* txn = ctx.txn != nullptr ? ctx.txn->transaction() : nullptr;
  if (txn != nullptr) return txn->reader();
  return ctx.state.engine();
}

IdCache* IdCacheFor(CommandContext& ctx) {
  return ctx.txn != nullptr ? nullptr : &ctx.state.id_cache();
}

TransactionWrites* WritesFor(CommandContext& ctx) {
  SessionTransaction* txn = ctx.txn != nullptr ? ctx.txn->transaction() : nullptr;
  return txn != nullptr ? txn->writes() : nullptr;
}

Status TransientWriteError(CommandContext& ctx, const Status& first_error) {
  // (The command's name only matters for commit and abort, which are no write commands.)
  if (ctx.txn != nullptr && IsTransientTransactionError(first_error.code(), "insert")) {
    return first_error;
  }
  return Status::OK();
}

bool IsTransientTransactionError(ErrorCode code, std::string_view command) {
  switch (code) {
    case ErrorCode::kWriteConflict:
    case ErrorCode::kLockTimeout:
    case ErrorCode::kSnapshotTooOld:
    case ErrorCode::kNoSuchTransaction:
      return true;
    case ErrorCode::kNotWritablePrimary:
    case ErrorCode::kNotPrimaryNoSecondaryOk:
    case ErrorCode::kNotPrimaryOrSecondary:
    case ErrorCode::kInterruptedDueToReplStateChange:
    case ErrorCode::kShutdownInProgress:
      return !EndsTransaction(command);
    default:
      return false;
  }
}

}  // namespace cairn::server
