// TransactionScope: a command's place in its session's multi-document transaction, as mongod's
// session checkout runs a command that carries autocommit: false (beginOrContinue). The
// dispatcher makes one around such a command:
// - CheckCommand, before the session is checked out: what may run in a transaction at all
//   (OperationNotSupportedInTransaction 263), readConcern only on the first statement and
//   writeConcern only on commit and abort (InvalidOptions 72). These failures leave the
//   transaction as it is.
// - Enter checks the session out (held until the scope ends) and begins the transaction
//   (startTransaction; a newer txnNumber aborts the open one) or continues it: TransactionTooOld
//   225, ConflictingOperationInProgress 117, NoSuchTransaction 251, TransactionCommitted 256 with
//   mongod's messages.
// - Leave, after the handler: any failure, or write errors in the reply, aborts the transaction.
// commitTransaction and abortTransaction act through Commit and Abort.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/admin/session_cache.h"
#include "server/command.h"
#include "server/exec/id_cache.h"
#include "server/repl/retryable_sessions.h"
#include "server/write/transaction_writes.h"
#include "storage/reader.h"

namespace cairn::server {

class SessionTransaction;

class TransactionScope {
 public:
  // The transaction fields of a command that carries autocommit.
  struct Fields {
    BsonView lsid;
    SessionId id{};
    std::string id_text;  // lsid.id as the shell prints it, for messages
    int64_t txn_number = 0;
    bool start = false;  // startTransaction: true
  };
  static Result<Fields> Parse(const CommandRequest& request);

  // Checks made before the session is checked out (see above).
  static Status CheckCommand(const CommandRequest& request, const Fields& fields,
                             bool has_read_concern, bool has_write_concern);

  // Checks the session out and begins or continues its transaction.
  static Result<std::unique_ptr<TransactionScope>> Enter(ServerState& state, const Fields& fields,
                                                         std::string_view command);
  ~TransactionScope();

  // The open transaction; null when the command retries the commit of a committed one.
  SessionTransaction* transaction() const;
  bool starting() const { return fields_.start; }
  int64_t txn_number() const { return fields_.txn_number; }

  // commitTransaction: commits the open transaction (a failure aborts it), or answers OK again
  // for a committed one.
  Status Commit();
  // abortTransaction: aborts the open transaction.
  Status Abort();

  // After the command ran: a failure or write errors in its reply abort the transaction.
  void Leave(const Status& status, const bson_t* reply);

 private:
  TransactionScope(ServerState& state, Fields fields, RetryableSessions::Checkout checkout);
  void AbortOpen();

  ServerState& state_;
  Fields fields_;
  RetryableSessions::Checkout checkout_;
};

// What a command reads through: its transaction's snapshot with the transaction's writes, or the
// latest committed state.
const storage::Reader& ReaderFor(CommandContext& ctx);
// The point-read cache a command may use: none in a transaction (the cache holds the latest
// committed versions, which a transaction's snapshot may not see).
IdCache* IdCacheFor(CommandContext& ctx);
// What a command's writers write into: its transaction (null outside one).
TransactionWrites* WritesFor(CommandContext& ctx);

// In a transaction, a write command's first write error when it is a transient one (WriteConflict
// and the like): mongod answers it as the command's error, with TransientTransactionError, so
// the driver retries the whole transaction. OK otherwise (the errors stay writeErrors).
Status TransientWriteError(CommandContext& ctx, const Status& first_error);

// Whether an error of a transaction's command carries the TransientTransactionError label (the
// whole transaction may be retried), as mongod's isTransientTransactionError: WriteConflict,
// LockTimeout, SnapshotTooOld, and NoSuchTransaction (also on commit and abort) or a not-primary
// error on the other commands.
bool IsTransientTransactionError(ErrorCode code, std::string_view command);

}  // namespace cairn::server
