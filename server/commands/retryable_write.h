// RetryableWrite: a write command's retryable-write state (lsid + txnNumber, and a stmtId per
// statement), as mongod runs insert, update, delete and findAndModify sent by a driver with
// retryWrites: the session is checked out for the command (server/repl/retryable_sessions.h),
// each statement's oplog entries carry its lsid/txnNumber/stmtId, and a statement that executed
// already is not run again: its result is rebuilt from its oplog entry.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/command.h"
#include "server/commands/command_args.h"
#include "server/repl/retryable_sessions.h"
#include "server/write/collection_writer.h"
#include "server/write/oplog_sink.h"

namespace cairn::server {

class RetryableWrite;

// Whether `code` is in mongod's RetriableError category: the errors (or write concern errors) a
// retryable write, or a transaction's commit or abort, answers with the RetryableWriteError label.
bool IsRetriableErrorCode(ErrorCode code);

// Commits `writer`'s unit and, with `retry`, records statement `index` as executed at the unit's
// newest oplog entry (the statement's last): what each retryable statement does at its end.
Status CommitStatement(CollectionWriter& writer, RetryableWrite* retry, size_t index);

class RetryableWrite {
 public:
  // Null when the command carries no txnNumber (the dispatcher has already refused one where a
  // retryable write cannot run). TransactionTooOld 225 for an older txnNumber.
  static Result<std::unique_ptr<RetryableWrite>> Begin(CommandContext& ctx,
                                                       const CommandRequest& request,
                                                       const CommandArgs& args);

  // The stmtId of statement `i`: stmtIds[i], else stmtId + i, else i.
  int32_t StmtId(size_t i) const;
  // When statement `i` executed already: its oplog entry.
  std::optional<BsonDoc> ExecutedEntry(size_t i) const;
  bool Executed(size_t i) const;
  // What statement `i`'s oplog entries carry (valid until the next call).
  const StatementContext* Statement(size_t i);
  // Statement `i` wrote its (last) entry at `ts` (0: it wrote nothing, and is not recorded).
  void Note(size_t i, uint64_t ts);
  // After the noted statements committed: records them in the session.
  void Committed();
  // Before a statement that wrote commits: the onPrimaryTransactionalWrite test failpoint, as
  // mongod evaluates it when a retryable write registers its commit. Its closeConnection (true
  // unless given false) ends the client's session, so the driver sees a network error after the
  // write and retries it; failBeforeCommitExceptionCode fails the statement, which then commits
  // nothing.
  Status OnPrimaryWrite();
  // Whether statements were noted since the last Committed (they have written).
  bool has_noted() const { return !noted_.empty(); }

 private:
  RetryableWrite() = default;

  CommandContext* ctx_ = nullptr;
  BsonView lsid_;
  SessionId session_id_{};
  int64_t txn_number_ = 0;
  std::vector<int32_t> stmt_ids_;  // from stmtIds (empty: first_stmt_id_ + i)
  int32_t first_stmt_id_ = 0;
  RetryableSessions::Checkout checkout_;
  StatementContext statement_;
  std::vector<std::pair<int32_t, uint64_t>> noted_;
};

}  // namespace cairn::server
