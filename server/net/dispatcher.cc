// Request routing: OP_MSG and OP_QUERY to command handlers; replies and protocol errors.
#include "server/net/dispatcher.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_set>

#include "common/interrupt.h"
#include "common/logging.h"
#include "server/admin/fail_points.h"
#include "server/admin/profiler.h"
#include "server/admin/session_cache.h"
#include "server/commands/command_table.h"
#include "server/commands/read_concern.h"
#include "server/commands/reply.h"
#include "server/commands/retryable_write.h"
#include "server/commands/write_concern.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"

namespace cairn::server {

namespace {

std::atomic<int32_t> g_next_request_id{1};

constexpr std::string_view kLegacyOpcodeHelp =
    "The client driver may require an upgrade. For more details see "
    "https://dochub.mongodb.org/core/legacy-opcode-removal";

std::string ConnectionContext(const ConnectionInfo& connection) {
  return "conn" + std::to_string(connection.id);
}

void LogProtocolError(const ConnectionInfo& connection, const Status& status) {
  BsonDoc attr;
  AppendUtf8(attr.get(), "remote", connection.remote);
  AppendUtf8(attr.get(), "error", status.ToString());
  logging::Log(logging::Severity::kWarning, "NETWORK", 22988, ConnectionContext(connection),
               "Error receiving request from client. Ending connection from remote", attr.get());
}

bool IsHelloName(std::string_view name) {
  return name == "hello" || name == "isMaster" || name == "ismaster";
}

Continuation RunCommandHeldBy(ServerState& state, ConnectionInfo& connection,
                              const CommandRequest& request, wire::ReplyBuffer* out,
                              const std::shared_ptr<const BsonDoc>& held_by);

// Closes an OP_MSG reply built in `out` and writes its prefix (and checksum when asked), with
// moreToCome when `more_to_come`. Returns the reply's requestId.
int32_t FinishOpMsg(wire::ReplyBuffer* out, int32_t response_to, bool with_checksum,
                    bool more_to_come = false) {
  out->End();
  size_t total = out->size() + (with_checksum ? 4 : 0);
  const int32_t request_id = g_next_request_id++;
  uint32_t flags = with_checksum ? wire::kChecksumPresent : 0;
  if (more_to_come) flags |= wire::kMoreToCome;
  wire::WriteOpMsgPrefix(out->data(), static_cast<int32_t>(total), request_id, response_to, flags);
  if (with_checksum) {
    uint32_t crc = BSON_UINT32_TO_LE(wire::Crc32c(out->data(), out->size()));
    out->Append(&crc, sizeof crc);
  }
  return request_id;
}

// `held_by`: failCommand's data when the request was held (blockConnection) and now runs.
Dispatched HandleOpMsg(ServerState& state, ConnectionInfo& connection,
                       const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                       wire::ReplyBuffer* out, const std::shared_ptr<const BsonDoc>& held_by) {
  Result<wire::OpMsg> parsed = wire::ParseOpMsg(frame, size);
  if (!parsed.ok()) {
    LogProtocolError(connection, parsed.status());
    // Answer what can be answered (the client learns why), unless it asked for no reply.
    uint32_t flags = 0;
    if (size >= wire::kHeaderSize + 4) std::memcpy(&flags, frame + wire::kHeaderSize, 4);
    flags = BSON_UINT32_FROM_LE(flags);
    if (flags & wire::kMoreToCome) return {DispatchAction::kClose, {}};
    AppendErrorFields(out->Begin(wire::kOpMsgBodyOffset), parsed.status());
    FinishOpMsg(out, header.request_id, false);
    return {DispatchAction::kReply, {}};
  }
  const wire::OpMsg& msg = parsed.value();
  CommandRequest request;
  request.body = msg.body;
  request.sequences = &msg.sequences;
  request.exhaust_allowed = msg.exhaust_allowed();
  bson_t* reply = out->Begin(wire::kOpMsgBodyOffset);
  Continuation next;
  bson_iter_t it;
  if (!msg.body.Init(&it) || !bson_iter_next(&it)) {
    AppendErrorFields(reply, Status(ErrorCode::kFailedToParse, "Command document is empty"));
  } else {
    request.name = IterKey(&it);
    bson_iter_t db;
    if (!msg.body.Find("$db", &db) || !BSON_ITER_HOLDS_UTF8(&db)) {
      AppendErrorFields(
          reply, Status(ErrorCode::kLocation40571, "OP_MSG requests require a $db argument"));
    } else {
      request.db = IterUtf8(&db);
      next = RunCommandHeldBy(state, connection, request, out, held_by);
    }
  }
  // Held before it ran: nothing is built yet, and the loop's wait ends in Resume.
  if (next.kind == Continuation::Kind::kBlock || next.kind == Continuation::Kind::kAwaitUnlock) {
    return {DispatchAction::kClose, std::move(next)};
  }
  if (next.kind == Continuation::Kind::kCloseConnection || connection.end_session) {
    return {DispatchAction::kClose, {}};
  }
  if (msg.more_to_come()) {
    out->Reset(wire::kKeepReplyBytes);
    return {DispatchAction::kNoReply, {}};  // nothing is sent, so nothing follows a reply
  }
  const int32_t reply_id =
      FinishOpMsg(out, header.request_id, msg.checksum_present(), next.exhaust);
  return {DispatchAction::kReply, std::move(next), reply_id};
}

// Closes an OP_REPLY (one document) built in `out` and writes its prefix.
void FinishOpReply(wire::ReplyBuffer* out, int32_t response_to, int32_t response_flags) {
  out->End();
  wire::WriteOpReplyPrefix(out->data(), static_cast<int32_t>(out->size()), g_next_request_id++,
                           response_to, response_flags, 1);
}

Dispatched HandleOpQuery(ServerState& state, ConnectionInfo& connection,
                         const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                         wire::ReplyBuffer* out, const std::shared_ptr<const BsonDoc>& held_by) {
  Result<wire::OpQuery> parsed = wire::ParseOpQuery(frame, size);
  if (!parsed.ok()) {
    LogProtocolError(connection, parsed.status());
    return {DispatchAction::kClose, {}};
  }
  const wire::OpQuery& query = parsed.value();
  std::string_view ns = query.full_collection_name;
  size_t dot = ns.find('.');
  std::string_view db = dot == std::string_view::npos ? ns : ns.substr(0, dot);
  std::string_view collection = dot == std::string_view::npos ? "" : ns.substr(dot + 1);

  if (collection != "$cmd") {
    bson_t* err = out->Begin(wire::kOpReplyDocumentsOffset);
    AppendUtf8(err, "$err", "OP_QUERY is no longer supported. " + std::string(kLegacyOpcodeHelp));
    BSON_APPEND_INT32(err, "code", CodeNumber(ErrorCode::kLocation5739101));
    AppendUtf8(err, "codeName", CodeName(ErrorCode::kLocation5739101));
    BSON_APPEND_DOUBLE(err, "ok", 0.0);
    FinishOpReply(out, header.request_id, wire::kReplyQueryFailure);
    return {DispatchAction::kReply, {}};
  }

  // Drivers may wrap the command: {$query: {...}, $readPreference: ...}.
  BsonView command = query.query;
  bson_iter_t it;
  if (command.Init(&it) && bson_iter_next(&it) &&
      (IterKey(&it) == "$query" || IterKey(&it) == "query") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
    command = IterDocument(&it);
  }
  std::string_view name;
  if (command.Init(&it) && bson_iter_next(&it)) name = IterKey(&it);
  bson_t* reply = out->Begin(wire::kOpReplyDocumentsOffset);
  if (IsHelloName(name)) {
    CommandRequest request;
    request.name = name;
    request.db = db;
    request.body = command;
    request.from_op_query = true;
    // hello, the only command OP_QUERY still runs, asks for no continuation; failCommand may
    // hold it or close the connection.
    Continuation next = RunCommandHeldBy(state, connection, request, out, held_by);
    if (next.kind == Continuation::Kind::kBlock) return {DispatchAction::kClose, std::move(next)};
    if (connection.end_session) return {DispatchAction::kClose, {}};
  } else {
    AppendErrorFields(reply, Status(ErrorCode::kUnsupportedOpQueryCommand,
                                    "Unsupported OP_QUERY command: " + std::string(name) + ". " +
                                        std::string(kLegacyOpcodeHelp)));
  }
  FinishOpReply(out, header.request_id, wire::kReplyAwaitCapable);
  return {DispatchAction::kReply, {}};
}

// The generic fields RunCommand reads, found in its one pass over the body.
struct GenericFields {
  bson_iter_t write_concern, read_concern, lsid, max_time_ms, read_preference, cluster_time;
  bool has_write_concern = false, has_read_concern = false, has_lsid = false;
  bool has_max_time_ms = false;
  bool has_read_preference = false, has_cluster_time = false;
  bool has_txn_number = false, has_autocommit = false, has_start_transaction = false;
};

// Walks the body's fields once: refuses a repeated field as MongoDB's IDL parsers do (40413
// "BSON field 'insert.documents' is a duplicate field"; `$db` twice included) and records the
// generic fields. Commands have a few dozen fields: the first kInline names are compared
// linearly (cheaper than hashing them), and a body with more (only a hostile client sends
// millions) moves them all into a hash set, so the pass stays linear.
Status ScanGenericFields(const CommandRequest& request, GenericFields* out) {
  constexpr size_t kInline = 32;
  std::string_view inline_seen[kInline];
  std::unordered_set<std::string_view> many_seen;
  size_t count = 0;
  bson_iter_t it;
  if (!request.body.Init(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    bool repeated = false;
    if (count < kInline) {
      for (size_t i = 0; i < count && !repeated; ++i) repeated = inline_seen[i] == key;
      inline_seen[count] = key;
    } else {
      if (many_seen.empty()) many_seen.insert(inline_seen, inline_seen + kInline);
      repeated = !many_seen.insert(key).second;
    }
    if (repeated) {
      return Status(ErrorCode::kLocation40413, "BSON field '" + std::string(request.name) + "." +
                                                   std::string(key) + "' is a duplicate field");
    }
    ++count;
    if (key.size() < 4) continue;  // shorter than every generic field read below
    if (key == "writeConcern") {
      out->write_concern = it;
      out->has_write_concern = true;
    } else if (key == "readConcern") {
      out->read_concern = it;
      out->has_read_concern = true;
    } else if (key == "lsid") {
      out->lsid = it;
      out->has_lsid = true;
    } else if (key == "maxTimeMS") {
      out->max_time_ms = it;
      out->has_max_time_ms = true;
    } else if (key == "txnNumber") {
      out->has_txn_number = true;
    } else if (key == "$readPreference") {
      out->read_preference = it;
      out->has_read_preference = true;
    } else if (key == "$clusterTime") {
      out->cluster_time = it;
      out->has_cluster_time = true;
    } else if (key == "autocommit") {
      out->has_autocommit = true;
    } else if (key == "startTransaction") {
      out->has_start_transaction = true;
    }
  }
  return Status::OK();
}

// Whether a command runs as a retryable write when it carries a txnNumber (and no autocommit).
bool IsRetryableWriteCommand(std::string_view name) {
  return name == "insert" || name == "update" || name == "delete" || name == "findAndModify" ||
         name == "findandmodify";
}

// The session fields as mongod takes them (initializeOperationSessionInfo). A standalone refuses
// a txnNumber with IllegalOperation 20: transactions and retryable writes need a replica set. A
// primary runs a txnNumber without autocommit as a retryable write (retryable_write.h) on the
// commands that are retryable writes, and refuses it elsewhere (50768); with autocommit: false
// the command runs in a multi-document transaction (server/txn/transaction_scope.h). The other
// combinations answer with mongod's InvalidOptions reasons.
Status CheckSessionFields(const CommandDef& def, const GenericFields& generic, bool primary) {
  // A command a client may run before authenticating takes no transaction fields.
  if (!def.requires_auth) {
    if (generic.has_autocommit) {
      return Status(ErrorCode::kOperationNotSupportedInTransaction,
                    "This command is not supported in transactions");
    }
    if (generic.has_txn_number) {
      return Status(ErrorCode::kLocation50889,
                    "It is illegal to provide a txnNumber for this command");
    }
  }
  if (generic.has_txn_number) {
    if (!generic.has_lsid) {
      return Status(ErrorCode::kInvalidOptions,
                    "Transaction number requires a session ID to also be specified");
    }
    if (!primary) {
      return Status(ErrorCode::kIllegalOperation,
                    "Transaction numbers are only allowed on a replica set member or mongos");
    }
    if (generic.has_autocommit) return Status::OK();  // TransactionScope checks the rest
    if (!IsRetryableWriteCommand(def.name)) {
      return Status(ErrorCode::kLocation50768,
                    "txnNumber may only be provided for multi-document transactions and retryable "
                    "write commands. autocommit:false was not provided, and " +
                        std::string(def.name) + " is not a retryable write command.");
    }
    return Status::OK();
  }
  if (generic.has_autocommit) {
    return Status(ErrorCode::kInvalidOptions,
                  "'autocommit' field requires a transaction number to also be specified");
  }
  if (generic.has_start_transaction) {
    return Status(ErrorCode::kInvalidOptions,
                  "'startTransaction' field requires 'autocommit' field to also be specified");
  }
  return Status::OK();
}

// maxTimeMS as mongod 7.0's generic argument parser takes it: a number, integral, in
// [0, INT32_MAX]; 0 means no limit.
Result<int64_t> ParseMaxTimeMs(const bson_iter_t* it) {
  if (!IterIsNumber(it)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'maxTimeMS' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(it))) +
                                                "', expected types '[long, int, decimal, double]'");
  }
  double as_double = 0;
  IterAsDouble(it, &as_double);
  if (!BSON_ITER_HOLDS_INT32(it) && !BSON_ITER_HOLDS_INT64(it) &&
      as_double != std::trunc(as_double)) {
    return Status(ErrorCode::kBadValue, "maxTimeMS has non-integral value");
  }
  // The value as a long, saturating (BSONElement::safeNumberLong).
  int64_t value = 0;
  if (!IterAsInt64(it, &value)) {
    value = as_double >= 9.2233720368547758e18    ? INT64_MAX
            : as_double <= -9.2233720368547758e18 ? INT64_MIN
                                                  : static_cast<int64_t>(as_double);
  }
  if (value < 0) {
    return Status(ErrorCode::kLocation51024,
                  "BSON field 'maxTimeMS' value must be >= 0, actual "
                  "value '" +
                      std::to_string(value) + "'");
  }
  if (value > INT32_MAX) {
    return Status(ErrorCode::kBadValue,
                  std::to_string(value) + " value for maxTimeMS is out of range");
  }
  return value;
}

// Records the command's session in the SessionCache ($listLocalSessions): at most once a second
// for the same session on a connection, so the common case costs a comparison.
void RecordSession(ServerState& state, ConnectionInfo& connection, const SessionId& id) {
  auto now = std::chrono::steady_clock::now();
  if (id == connection.last_session &&
      now - connection.last_session_touch < std::chrono::seconds(1)) {
    return;
  }
  connection.last_session = id;
  connection.last_session_touch = now;
  state.sessions().Touch(id);
}

// mongod's OpMsgRequest turns every kind-1 document sequence into an array field of the body
// (wire/ has already refused a sequence that repeats a body field, 40433).
CommandRequest FoldSequences(const CommandRequest& request, BsonDoc* body) {
  bson_t* out = body->get();
  bson_iter_t it;
  if (request.body.Init(&it)) {
    while (bson_iter_next(&it)) bson_append_iter(out, nullptr, 0, &it);
  }
  for (const wire::DocumentSequence& sequence : *request.sequences) {
    bson_t array;
    bson_append_array_begin(out, sequence.identifier.data(),
                            static_cast<int>(sequence.identifier.size()), &array);
    char key_buffer[16];
    uint32_t index = 0;
    for (BsonView document : sequence.documents) {
      const char* key;
      size_t key_length = bson_uint32_to_string(index++, &key, key_buffer, sizeof key_buffer);
      bson_t view = document.AsBson();
      bson_append_document(&array, key, static_cast<int>(key_length), &view);
    }
    bson_append_array_end(out, &array);
  }
  CommandRequest folded = request;
  folded.body = body->view();
  folded.sequences = nullptr;
  return folded;
}

// A replica set member's replies carry the cluster time ($clusterTime, unsigned: there are no
// keys without authentication, so the signature is zeros, as mongod sends it then) and the
// operationTime of the newest write the reply may reflect.
void AppendClusterTime(ServerState& state, bson_t* reply) {
  if (!state.repl().primary()) return;
  const Timestamp now = state.repl().clock().Now();
  bson_t cluster_time, signature;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "$clusterTime", &cluster_time);
  AppendTimestamp(&cluster_time, "clusterTime", now);
  BSON_APPEND_DOCUMENT_BEGIN(&cluster_time, "signature", &signature);
  static constexpr uint8_t kNoHash[20] = {};
  BSON_APPEND_BINARY(&signature, "hash", BSON_SUBTYPE_BINARY, kNoHash, sizeof kNoHash);
  BSON_APPEND_INT64(&signature, "keyId", 0);
  bson_append_document_end(&cluster_time, &signature);
  bson_append_document_end(reply, &cluster_time);
  AppendTimestamp(reply, "operationTime", state.repl().last_applied());
}

// A gossiped $clusterTime moves the clock forward (mongod without authentication takes it
// unsigned); a malformed one is ignored, as the signature it would carry cannot be checked.
void AdvanceClusterTime(ServerState& state, const bson_iter_t* field) {
  if (!state.repl().primary() || !BSON_ITER_HOLDS_DOCUMENT(field)) return;
  bson_iter_t time;
  if (!IterDocument(field).Find("clusterTime", &time) || !BSON_ITER_HOLDS_TIMESTAMP(&time)) return;
  state.repl().clock().AdvanceTo(IterTimestamp(&time));
}

// Closes a command's reply body: ok: 1 after the handler's fields, or MongoDB's error reply in
// place of a partial one (and then no continuation).
Continuation FinishReply(ServerState& state, const Status& status, Continuation next,
                         wire::ReplyBuffer* out) {
  if (!status.ok()) {
    bson_t* reply = out->Restart();  // a partial reply is discarded
    state.metrics().user_asserts.fetch_add(1, std::memory_order_relaxed);
    AppendErrorFields(reply, status);
    AppendClusterTime(state, reply);
    return {};
  }
  if (!out->complete()) {  // an adopted reply has its fields
    BSON_APPEND_DOUBLE(out->body(), "ok", 1.0);
    AppendClusterTime(state, out->body());
  }
  return next;
}

// Whether the client lets a read run on a member that is not primary: a $readPreference other
// than primary (drivers send primaryPreferred on a direct connection).
bool SecondaryOk(const GenericFields& generic) {
  if (!generic.has_read_preference || !BSON_ITER_HOLDS_DOCUMENT(&generic.read_preference)) {
    return false;
  }
  bson_iter_t mode;
  return IterDocument(&generic.read_preference).Find("mode", &mode) &&
         BSON_ITER_HOLDS_UTF8(&mode) && IterUtf8(&mode) != "primary";
}

// mongod's NotPrimaryError category.
bool IsNotPrimaryError(ErrorCode code) {
  return code == ErrorCode::kNotWritablePrimary || code == ErrorCode::kNotPrimaryNoSecondaryOk ||
         code == ErrorCode::kNotPrimaryOrSecondary || code == ErrorCode::kPrimarySteppedDown ||
         code == ErrorCode::kInterruptedDueToReplStateChange;
}

bool IsCommitOrAbort(std::string_view name) {
  return name == "commitTransaction" || name == "abortTransaction";
}

// The errorLabels of a reply with an error or a writeConcernError, as mongod's ErrorLabelBuilder
// gives them: TransientTransactionError for a transaction's transient error, else
// RetryableWriteError when a retryable write (or a transaction's commit or abort) answers a
// retriable error or write concern error, except to a cluster member. failCommand's errorLabels,
// when it gave them (`given`), replace these: an empty array means none.
void AppendErrorLabels(bson_t* reply, const CommandDef& def, const GenericFields& generic,
                       const ConnectionInfo& connection, std::optional<ErrorCode> code,
                       std::optional<ErrorCode> wc_code, const std::optional<BsonView>& given) {
  if (!code && !wc_code) return;
  if (given) {
    if (!given->empty()) {
      bson_t labels = given->AsBson();
      BSON_APPEND_ARRAY(reply, "errorLabels", &labels);
    }
    return;
  }
  std::string_view label;
  if (code && generic.has_autocommit && IsTransientTransactionError(*code, def.name)) {
    label = "TransientTransactionError";
  } else if (!connection.internal_client && generic.has_txn_number &&
             (!generic.has_autocommit || IsCommitOrAbort(def.name)) &&
             ((code && IsRetriableErrorCode(*code)) ||
              (wc_code && IsRetriableErrorCode(*wc_code)))) {
    label = "RetryableWriteError";
  }
  if (label.empty()) return;
  bson_t labels;
  BSON_APPEND_ARRAY_BEGIN(reply, "errorLabels", &labels);
  AppendUtf8(&labels, "0", label);
  bson_append_array_end(reply, &labels);
}

// failCommand's blockConnection: the command is held `ms` on its connection's loop, which keeps
// serving its other connections, and then runs (Resume) with the hit's other effects.
Continuation HoldCommand(const FailCommandHit& hit, int64_t ms) {
  Continuation next;
  next.kind = Continuation::Kind::kBlock;
  next.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  next.held_by = hit.data;
  return next;
}

// The code of failCommand's writeConcernError, when it has a numeric one.
std::optional<ErrorCode> WriteConcernErrorCode(const bson_iter_t* error) {
  bson_iter_t code;
  if (!BSON_ITER_HOLDS_DOCUMENT(error) || !IterDocument(error).Find("code", &code) ||
      !IterIsNumber(&code)) {
    return std::nullopt;
  }
  return static_cast<ErrorCode>(bson_iter_as_int64(&code));
}

// mongod's not-primary errors carry the topologyVersion they were raised in, so a driver can tell
// them from stale ones and keep the server it monitors (SDAM "stale errors").
void AppendTopologyVersion(ServerState& state, bson_t* reply) {
  bson_t version;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "topologyVersion", &version);
  BSON_APPEND_OID(&version, "processId", &state.repl().process_id());
  BSON_APPEND_INT64(&version, "counter", state.repl().topology()->counter);
  bson_append_document_end(reply, &version);
}

// An uninitiated --replSet member refuses writes and reads outside the local database, as mongod
// does until it has a configuration (its STARTUP state is neither primary nor secondary).
Status CheckMemberState(ServerState& state, const CommandDef& def, const CommandRequest& request,
                        const GenericFields& generic) {
  if (def.on_secondary == OnSecondary::kAlways || request.db == "local") return Status::OK();
  if (state.repl().topology()->state != MemberState::kUninitiated) return Status::OK();
  if (def.on_secondary == OnSecondary::kNever) {
    return Status(ErrorCode::kNotWritablePrimary, "not primary");
  }
  if (!SecondaryOk(generic)) {
    return Status(ErrorCode::kNotPrimaryNoSecondaryOk, "not primary and secondaryOk=false");
  }
  return Status(ErrorCode::kNotPrimaryOrSecondary, "node is not in primary or recovering state");
}

// A write concern this one-member set cannot satisfy ({w: 2} and more: there are no other
// data-bearing members to wait for, so mongod answers at once, whatever wtimeout says), reported
// after the write as mongod reports it: writeConcernError beside ok: 1.
void AppendWriteConcernError(const WriteConcern& concern, bson_t* reply) {
  bson_t error, info, given;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "writeConcernError", &error);
  BSON_APPEND_INT32(&error, "code", CodeNumber(ErrorCode::kUnsatisfiableWriteConcern));
  AppendUtf8(&error, "codeName", CodeName(ErrorCode::kUnsatisfiableWriteConcern));
  AppendUtf8(&error, "errmsg", "Not enough data-bearing nodes");
  BSON_APPEND_DOCUMENT_BEGIN(&error, "errInfo", &info);
  BSON_APPEND_DOCUMENT_BEGIN(&info, "writeConcern", &given);
  BSON_APPEND_INT32(&given, "w", concern.w_nodes);
  BSON_APPEND_INT64(&given, "wtimeout", concern.wtimeout_ms);
  AppendUtf8(&given, "provenance", concern.provenance);
  bson_append_document_end(&info, &given);
  bson_append_document_end(&error, &info);
  bson_append_document_end(reply, &error);
}

// A command with autocommit: false: the transaction's rules checked before the session is checked
// out (their failures leave the transaction as it is), the transaction's read concern (its first
// command's) satisfied, then the session checked out and the transaction begun or continued.
Status EnterTransaction(ServerState& state, const CommandRequest& request, const CommandDef& def,
                        const GenericFields& generic,
                        const std::optional<ReadConcern>& read_concern, Interruptible& interrupt,
                        std::unique_ptr<TransactionScope>* txn) {
  CAIRN_ASSIGN_OR_RETURN(TransactionScope::Fields fields, TransactionScope::Parse(request));
  const bool has_read_concern = read_concern && !read_concern->empty();
  CAIRN_RETURN_IF_ERROR(
      TransactionScope::CheckCommand(request, fields, has_read_concern, generic.has_write_concern));
  if (fields.start && has_read_concern) {
    if (read_concern->level != ReadConcernLevel::kLocal &&
        read_concern->level != ReadConcernLevel::kMajority &&
        read_concern->level != ReadConcernLevel::kSnapshot) {
      return Status(ErrorCode::kInvalidOptions,
                    "The readConcern level must be either 'local' (default), 'majority' or "
                    "'snapshot' in order to run in a transaction");
    }
    if (read_concern->has_after_op_time) {
      return Status(ErrorCode::kInvalidOptions,
                    "The readConcern cannot specify 'afterOpTime' in a transaction");
    }
    CAIRN_RETURN_IF_ERROR(SatisfyReadConcern(state.repl(), *read_concern, interrupt));
  }
  CAIRN_ASSIGN_OR_RETURN(*txn, TransactionScope::Enter(state, fields, def.name));
  return Status::OK();
}

// Whether a command takes the cluster-wide default read concern (mongod's
// defaultReadConcernPermit): the read commands that take every level a default may have.
bool PermitsDefaultReadConcern(std::string_view name) {
  return name == "find" || name == "aggregate" || name == "count" || name == "distinct";
}

// The cluster-wide defaults (setDefaultRWConcern; only ever set on a replica set member), applied
// as mongod applies them. The default write concern goes to a command that takes a write concern
// and gave none, or {} (whole), or only j, fsync or wtimeout (its w, and its j when the command
// gave neither j nor fsync); in a transaction only to the commit or abort. The default read
// concern goes to a read command that gave none (or {}), in a transaction only to its first
// command. Either, once applied, has provenance "customDefault".
void ApplyRwConcernDefaults(const RwConcernDefaultValues& defaults, const CommandDef& def,
                            const GenericFields& generic, WriteConcern* write_concern,
                            std::optional<ReadConcern>* read_concern) {
  bson_iter_t field;
  if (def.on_secondary == OnSecondary::kNever && !write_concern->w_given &&
      (!generic.has_autocommit || IsCommitOrAbort(def.name)) && defaults.FindWriteConcern(&field)) {
    Result<WriteConcern> fallback = ParseWriteConcern(&field, /*replica_set=*/true);
    if (fallback.ok()) {
      if (write_concern->default_constructed()) {
        *write_concern = *fallback;
      } else {
        write_concern->w_nodes = fallback->w_nodes;
        if (!write_concern->j_given && !write_concern->fsync_given) {
          write_concern->sync = fallback->sync;
        }
      }
      write_concern->provenance = "customDefault";
    }
  }
  if ((!*read_concern || (*read_concern)->empty()) && PermitsDefaultReadConcern(def.name) &&
      (!generic.has_autocommit || generic.has_start_transaction) &&
      defaults.FindReadConcern(&field)) {
    Result<ReadConcern> fallback = ParseReadConcern(&field);
    if (fallback.ok()) {
      *read_concern = std::move(fallback).value();
      (*read_concern)->provenance = "customDefault";
    }
  }
}

// Runs a command found in the table; returns its continuation. `held_by`: failCommand's data
// when failCommand held this command (blockConnection) and it runs now.
Continuation RunKnownCommand(ServerState& state, ConnectionInfo& connection, const CommandDef* def,
                             const CommandRequest& request, wire::ReplyBuffer* out,
                             const std::shared_ptr<const BsonDoc>& held_by) {
  CommandContext ctx{state, connection, nullptr, out};
  // One pass over the body: duplicate fields, and the generic fields the dispatcher reads (the
  // write concern, the session and its transaction fields).
  GenericFields generic;
  Status status = ScanGenericFields(request, &generic);
  if (status.ok()) status = CheckSessionFields(*def, generic, state.repl().primary());
  // failCommand (a test failpoint), where mongod evaluates it: after the session fields, before
  // the member state, maxTimeMS and the read concern. A hit may hold the command (the loop
  // waits, then runs it again from here with `held_by`), close the connection or fail it.
  const FailCommandTarget target{def, &request, &connection, FindCommand};
  FailCommandHit hit;
  if (status.ok()) {
    hit = held_by ? FailCommandHit::FromData(held_by)
                  : EvaluateFailCommand(state.fail_points().fail_command, target);
    if (hit && hit.block_connection && !held_by) {
      Result<int64_t> block_ms = hit.BlockTimeMs();
      if (block_ms.ok()) return HoldCommand(hit, *block_ms);
      status = block_ms.status();
    }
    if (hit && status.ok()) status = hit.Outcome(&connection);
  }
  std::optional<BsonView> given_labels;  // failCommand's errorLabels, replacing the server's
  if (hit) given_labels = FailCommandErrorLabels(*hit.data);
  if (status.ok()) status = CheckMemberState(state, *def, request, generic);
  if (generic.has_cluster_time) AdvanceClusterTime(state, &generic.cluster_time);
  if (!status.ok()) {
    state.opcounters().command++;
    state.metrics().user_asserts.fetch_add(1, std::memory_order_relaxed);
    AppendErrorFields(out->body(), status);
    AppendErrorLabels(out->body(), *def, generic, connection, status.code(), std::nullopt,
                      given_labels);
    if (state.repl().enabled() && IsNotPrimaryError(status.code())) {
      AppendTopologyVersion(state, out->body());
    }
    AppendClusterTime(state, out->body());
    return {};
  }
  // While the server is fsyncLocked a command that writes waits, off its thread, for the
  // unlock, before anything of it happens (mongod's writers queue for the global lock).
  WriteGate::Entered write_passage;
  if (def->on_secondary == OnSecondary::kNever || def->writes_data) {
    write_passage = WriteGate::Entered(state.writes().gate());
    if (!write_passage) {
      Continuation wait;
      wait.kind = Continuation::Kind::kAwaitUnlock;
      wait.held_by = hit.data;
      return wait;
    }
  }
  if (generic.has_lsid) {
    if (std::optional<SessionId> id = ParseSessionId(&generic.lsid)) {
      RecordSession(state, connection, *id);
      ctx.session = *id;
      ctx.has_session = true;
    }
  }
  // A bad write concern fails the command before it runs, as in mongod.
  Result<WriteConcern> concern = ParseWriteConcern(
      generic.has_write_concern ? &generic.write_concern : nullptr, state.repl().enabled());
  status = concern.status();
  // What can stop the command at its safe points: maxTimeMS, killOp, shutdown, the client's
  // disconnect. (getMore takes its deadline from its cursor: get_more.cc.)
  Interruptible interrupt;
  interrupt.set_client_socket(connection.socket_fd);
  if (status.ok() && generic.has_max_time_ms && request.name != "getMore") {
    Result<int64_t> max_time_ms = ParseMaxTimeMs(&generic.max_time_ms);
    status = max_time_ms.status();
    if (status.ok() && *max_time_ms > 0) {
      interrupt.set_deadline(std::chrono::steady_clock::now() +
                             std::chrono::milliseconds(*max_time_ms));
      // maxTimeAlwaysTimeOut (a test failpoint): a command with a deadline has run out of time
      // at its first check.
      if (state.fail_points().max_time_always_time_out.Evaluate()) {
        status = Status(ErrorCode::kMaxTimeMSExpired, "operation exceeded time limit");
      }
    }
  }
  // The read concern: parsed, checked against the command, then satisfied (causal consistency
  // may wait for writes still committing) before the command reads. In a transaction it is the
  // transaction's, given by its first command only, and satisfied before its snapshot is taken.
  std::optional<ReadConcern> read_concern;
  if (status.ok() && generic.has_read_concern) {
    Result<ReadConcern> parsed = ParseReadConcern(&generic.read_concern);
    status = parsed.status();
    if (status.ok()) read_concern = *parsed;
  }
  // The cluster-wide default read and write concerns: one atomic load while none is set.
  if (status.ok() && state.repl().rw_concern_defaults().any_set()) {
    ApplyRwConcernDefaults(*state.repl().rw_concern_defaults().current(), *def, generic, &*concern,
                           &read_concern);
  }
  std::unique_ptr<TransactionScope> txn;
  if (status.ok() && generic.has_autocommit) {
    status = EnterTransaction(state, request, *def, generic, read_concern, interrupt, &txn);
    ctx.txn = txn.get();
  } else if (status.ok() && read_concern) {
    status = CheckCommandSupports(def->name, request.body, *read_concern);
    if (status.ok()) status = SatisfyReadConcern(state.repl(), *read_concern, interrupt);
  }
  Continuation next;
  if (status.ok()) {
    ScopedInterrupt current(ctx.interrupt.get(), &interrupt);
    OpScope op(state.ops(), connection, request, &interrupt);  // what $currentOp reports
    ctx.debug.started = std::chrono::steady_clock::now();
    ctx.debug.slow_ms = state.ops().slow_ms();
    // The plan summary is built only for commands that will be logged or profiled anyway, or
    // once a command has run past slowms (OpDebug::details_wanted).
    const ProfileSettings::Settings profiling = state.ops().profile().For(request.db);
    ctx.debug.always_detail =
        profiling.level == 2 || profiling.filter != nullptr || logging::DebugEnabled(1, "command");
    CommandOutcome outcome = def->handler(ctx, request, out->body());
    status = outcome.status();
    next = outcome.next();
    // Metrics, the slow-query line and the profiler's entry (admin/profiler.h).
    // (A getMore that sent its read-ahead reply has no open body: the adopted reply is whole.)
    const size_t reply_length = out->complete() ? out->size() : out->body()->len;
    FinishOperation(ctx, request, status, reply_length, profiling);
  }
  if (txn) {
    txn->Leave(status, out->body());
    // A transaction's cursor is read only by its commands, with the session checked out.
    if (next.kind == Continuation::Kind::kReadAhead) next = Continuation();
  }
  if (status.ok() && concern->sync) status = state.engine().SyncWal();
  // failCommand's writeConcernError stands for the write concern's outcome of a command that
  // takes one, after it ran (also beside its error, as mongod reports it).
  std::shared_ptr<const BsonDoc> injected;
  bson_iter_t injected_error;
  if (concern.ok() && def->on_secondary == OnSecondary::kNever) {
    injected = EvaluateFailCommandWriteConcernError(state.fail_points().fail_command, target);
  }
  std::optional<ErrorCode> wc_code;
  if (injected != nullptr && injected->view().Find("writeConcernError", &injected_error)) {
    wc_code = WriteConcernErrorCode(&injected_error);
    if (std::optional<BsonView> labels = FailCommandErrorLabels(*injected)) given_labels = labels;
    if (status.ok()) AppendIter(out->body(), "writeConcernError", &injected_error);
  } else if (status.ok() && concern->w_nodes > 1 && def->on_secondary == OnSecondary::kNever) {
    AppendWriteConcernError(*concern, out->body());
    wc_code = ErrorCode::kUnsatisfiableWriteConcern;
  }
  next = FinishReply(state, status, std::move(next), out);
  if (injected != nullptr && !status.ok()) {
    AppendIter(out->body(), "writeConcernError", &injected_error);
  }
  const std::optional<ErrorCode> code =
      status.ok() ? std::nullopt : std::optional<ErrorCode>(status.code());
  AppendErrorLabels(out->body(), *def, generic, connection, code, wc_code, given_labels);
  if (state.repl().enabled() &&
      ((code && IsNotPrimaryError(*code)) || (wc_code && IsNotPrimaryError(*wc_code)))) {
    AppendTopologyVersion(state, out->body());
  }
  return next;
}

Continuation RunCommandHeldBy(ServerState& state, ConnectionInfo& connection,
                              const CommandRequest& request, wire::ReplyBuffer* out,
                              const std::shared_ptr<const BsonDoc>& held_by) {
  const CommandDef* def = FindCommand(request.name);
  // Test commands exist only with enableTestCommands; otherwise mongod knows no such command.
  if (def != nullptr && def->test_only && !state.parameters().enable_test_commands.load()) {
    def = nullptr;
  }
  if (def == nullptr) {
    state.opcounters().command++;
    state.metrics().user_asserts.fetch_add(1, std::memory_order_relaxed);
    AppendErrorFields(out->body(), Status(ErrorCode::kCommandNotFound,
                                          "no such command: '" + std::string(request.name) + "'"));
    return {};
  }
  if (def->admin_only && request.db != "admin") {
    state.opcounters().command++;
    state.metrics().user_asserts.fetch_add(1, std::memory_order_relaxed);
    AppendErrorFields(out->body(), Status(ErrorCode::kUnauthorized,
                                          std::string(def->name) +
                                              " may only be run against the admin database."));
    return {};
  }
  // serverStatus's opLatencies: the command's time on the server, waits handed back excluded.
  const auto started = std::chrono::steady_clock::now();
  Continuation next;
  if (!def->reads_sequences && request.sequences != nullptr && !request.sequences->empty()) {
    BsonDoc folded_body;
    next =
        RunKnownCommand(state, connection, def, FoldSequences(request, &folded_body), out, held_by);
  } else {
    next = RunKnownCommand(state, connection, def, request, out, held_by);
  }
  state.metrics().LatencyFor(def->name).Add(std::chrono::duration_cast<std::chrono::microseconds>(
                                                std::chrono::steady_clock::now() - started)
                                                .count());
  return next;
}

// Routes one request frame by its opcode (Dispatch; Resume after a kBlock wait).
Dispatched DispatchFrame(ServerState& state, ConnectionInfo& connection,
                         const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                         wire::ReplyBuffer* out, const std::shared_ptr<const BsonDoc>& held_by) {
  switch (static_cast<wire::OpCode>(header.op_code)) {
    case wire::OpCode::kMsg:
      return HandleOpMsg(state, connection, header, frame, size, out, held_by);
    case wire::OpCode::kQuery:
      return HandleOpQuery(state, connection, header, frame, size, out, held_by);
    default: {
      BsonDoc attr;
      BSON_APPEND_INT32(attr.get(), "opCode", header.op_code);
      AppendUtf8(attr.get(), "remote", connection.remote);
      logging::Log(logging::Severity::kWarning, "NETWORK", 22989, ConnectionContext(connection),
                   "Unsupported opcode: ending connection", attr.get());
      return {DispatchAction::kClose, {}};
    }
  }
}

}  // namespace

Continuation RunCommand(ServerState& state, ConnectionInfo& connection,
                        const CommandRequest& request, wire::ReplyBuffer* out) {
  return RunCommandHeldBy(state, connection, request, out, nullptr);
}

Dispatched Resume(ServerState& state, ConnectionInfo& connection, const uint8_t* frame,
                  int32_t response_to, const Continuation& next, wire::ReplyBuffer* out) {
  if (next.kind == Continuation::Kind::kBlock || next.kind == Continuation::Kind::kAwaitUnlock) {
    // failCommand or the fsync lock held the request before it ran: it runs now, from its
    // frame.
    Result<wire::MessageHeader> header = wire::ParseHeader(frame, wire::kHeaderSize);
    if (!header.ok()) return {DispatchAction::kClose, {}};
    out->Reset(wire::kKeepReplyBytes);
    return DispatchFrame(state, connection, *header, frame,
                         static_cast<size_t>(header->message_length), out, next.held_by);
  }
  // Only OP_MSG commands return continuations (OP_QUERY runs hello alone); its flags say whether
  // the reply carries a checksum, as the first reply did.
  uint32_t flags = 0;
  std::memcpy(&flags, frame + wire::kHeaderSize, sizeof flags);
  flags = BSON_UINT32_FROM_LE(flags);
  out->Reset(wire::kKeepReplyBytes);
  out->Begin(wire::kOpMsgBodyOffset);
  CommandContext ctx{state, connection, nullptr, out};
  Interruptible interrupt;
  interrupt.set_client_socket(connection.socket_fd);
  Status status;
  Continuation again;
  {
    ScopedInterrupt current(ctx.interrupt.get(), &interrupt);
    CommandOutcome outcome = next.resume(ctx, next, out->body());
    status = outcome.status();
    again = outcome.next();
  }
  again = FinishReply(state, status, std::move(again), out);
  const int32_t reply_id =
      FinishOpMsg(out, response_to, (flags & wire::kChecksumPresent) != 0, again.exhaust);
  return {DispatchAction::kReply, std::move(again), reply_id};
}

Dispatched Dispatch(ServerState& state, ConnectionInfo& connection,
                    const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                    wire::ReplyBuffer* out) {
  return DispatchFrame(state, connection, header, frame, size, out, nullptr);
}

}  // namespace cairn::server
