// RetryableWrite implementation (see retryable_write.h).
#include "server/commands/retryable_write.h"

#include "server/server_state.h"

namespace cairn::server {

Result<std::unique_ptr<RetryableWrite>> RetryableWrite::Begin(CommandContext& ctx,
                                                              const CommandRequest& request,
                                                              const CommandArgs& args) {
  bson_iter_t txn, lsid;
  if (!request.body.Find("txnNumber", &txn) || !request.body.Find("lsid", &lsid)) {
    return std::unique_ptr<RetryableWrite>();
  }
  // In a multi-document transaction the statements are the transaction's (server/txn/).
  if (ctx.txn != nullptr) return std::unique_ptr<RetryableWrite>();
  if (!ctx.state.repl().primary())
    return std::unique_ptr<RetryableWrite>();  // refused on a standalone
  std::unique_ptr<RetryableWrite> write(new RetryableWrite());
  write->ctx_ = &ctx;
  if (!IterAsInt64(&txn, &write->txn_number_) || !BSON_ITER_HOLDS_DOCUMENT(&lsid)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'txnNumber' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&txn))) +
                                                "', expected type 'long'");
  }
  std::optional<SessionId> id = ParseSessionId(&lsid);
  if (!id) return Status(ErrorCode::kInvalidOptions, "lsid must be {id: UUID}");
  write->session_id_ = *id;
  write->lsid_ = IterDocument(&lsid);
  bson_iter_t ids;
  if (args.Get("stmtIds", &ids)) {
    bson_iter_t each;
    bson_iter_recurse(&ids, &each);
    while (bson_iter_next(&each)) {
      int64_t stmt = 0;
      IterAsInt64(&each, &stmt);
      write->stmt_ids_.push_back(static_cast<int32_t>(stmt));
    }
  } else {
    write->first_stmt_id_ = static_cast<int32_t>(args.GetInt("stmtId", 0));
  }
  bson_iter_t id_field;
  std::string id_text;
  if (write->lsid_.Find("id", &id_field)) id_text = ValueToShellString(&id_field);
  CAIRN_ASSIGN_OR_RETURN(write->checkout_, ctx.state.repl().retryable().Begin(*id, id_text + " - ",
                                                                              write->txn_number_));
  return write;
}

bool IsRetriableErrorCode(ErrorCode code) {
  switch (code) {
    case ErrorCode::kHostUnreachable:
    case ErrorCode::kHostNotFound:
    case ErrorCode::kNetworkTimeout:
    case ErrorCode::kShutdownInProgress:
    case ErrorCode::kReadConcernMajorityNotAvailableYet:
    case ErrorCode::kPrimarySteppedDown:
    case ErrorCode::kExceededTimeLimit:
    case ErrorCode::kConnectionPoolExpired:
    case ErrorCode::kInternalTransactionNotSupported:
    case ErrorCode::kSocketException:
    case ErrorCode::kNotWritablePrimary:
    case ErrorCode::kInterruptedAtShutdown:
    case ErrorCode::kInterruptedDueToReplStateChange:
    case ErrorCode::kNotPrimaryNoSecondaryOk:
    case ErrorCode::kNotPrimaryOrSecondary:
    case ErrorCode::kBackupCursorOpenConflictWithCheckpoint:
      return true;
    default:
      return false;
  }
}

Status CommitStatement(CollectionWriter& writer, RetryableWrite* retry, size_t index) {
  const uint64_t ts = writer.last_oplog_ts();
  if (retry != nullptr && ts != 0) CAIRN_RETURN_IF_ERROR(retry->OnPrimaryWrite());
  CAIRN_RETURN_IF_ERROR(writer.Commit());
  if (retry != nullptr) {
    retry->Note(index, ts);
    retry->Committed();
  }
  return Status::OK();
}

int32_t RetryableWrite::StmtId(size_t i) const {
  if (!stmt_ids_.empty()) return i < stmt_ids_.size() ? stmt_ids_[i] : stmt_ids_.back();
  return first_stmt_id_ + static_cast<int32_t>(i);
}

bool RetryableWrite::Executed(size_t i) const NO_THREAD_SAFETY_ANALYSIS {
  const RetryableSessions::Session& session = *checkout_.session();
  return session.executed.count(StmtId(i)) > 0;
}

std::optional<BsonDoc> RetryableWrite::ExecutedEntry(size_t i) const NO_THREAD_SAFETY_ANALYSIS {
  const RetryableSessions::Session& session = *checkout_.session();
  auto found = session.executed.find(StmtId(i));
  if (found == session.executed.end()) return std::nullopt;
  std::string bytes;
  bool exists = false;
  Status status = ctx_->state.engine().GetRecord(ctx_->state.repl().oplog().prefix(),
                                                 static_cast<storage::RecordId>(found->second),
                                                 &bytes, &exists);
  if (!status.ok() || !exists) return BsonDoc();  // truncated since: executed, result unknown
  return BsonDoc(BsonView(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

const StatementContext* RetryableWrite::Statement(size_t i) {
  statement_.lsid = lsid_;
  statement_.txn_number = txn_number_;
  statement_.stmt_id = StmtId(i);
  return &statement_;
}

void RetryableWrite::Note(size_t i, uint64_t ts) {
  if (ts != 0) noted_.emplace_back(StmtId(i), ts);
}

Status RetryableWrite::OnPrimaryWrite() {
  std::shared_ptr<const BsonDoc> data =
      ctx_->state.fail_points().on_primary_transactional_write.Evaluate();
  if (data == nullptr) return Status::OK();
  bson_iter_t it;
  if (!data->view().Find("closeConnection", &it) || bson_iter_as_bool(&it)) {
    ctx_->connection.end_session = true;
  }
  if (data->view().Find("failBeforeCommitExceptionCode", &it) && IterIsNumber(&it)) {
    return Status(static_cast<ErrorCode>(bson_iter_as_int64(&it)),
                  "Failing write for " + std::to_string(txn_number_) +
                      " due to failpoint. The write must not be reflected.");
  }
  return Status::OK();
}

void RetryableWrite::Committed() {
  if (noted_.empty()) return;
  ctx_->state.repl().retryable().Record(checkout_, session_id_, noted_,
                                        ctx_->state.repl().topology()->term);
  noted_.clear();
}

}  // namespace cairn::server
