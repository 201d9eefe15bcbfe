// Request routing: OP_MSG and OP_QUERY to command handlers; replies and protocol errors.
#include "server/dispatcher.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>

#include "common/logging.h"
#include "server/commands/command_table.h"
#include "server/reply.h"
#include "server/server_state.h"
#include "server/session_cache.h"
#include "server/write_concern.h"

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

// Closes an OP_MSG reply built in `out` and writes its prefix (and checksum when asked).
void FinishOpMsg(ReplyBuffer* out, int32_t response_to, bool with_checksum) {
  out->End();
  size_t total = out->size() + (with_checksum ? 4 : 0);
  wire::WriteOpMsgPrefix(out->data(), static_cast<int32_t>(total), g_next_request_id++,
                         response_to, with_checksum ? wire::kChecksumPresent : 0);
  if (with_checksum) {
    uint32_t crc = BSON_UINT32_TO_LE(wire::Crc32c(out->data(), out->size()));
    out->Append(&crc, sizeof crc);
  }
}

DispatchAction HandleOpMsg(ServerState& state, ConnectionInfo& connection,
                           const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                           ReplyBuffer* out) {
  Result<wire::OpMsg> parsed = wire::ParseOpMsg(frame, size);
  if (!parsed.ok()) {
    LogProtocolError(connection, parsed.status());
    // Answer what can be answered (the client learns why), unless it asked for no reply.
    uint32_t flags = 0;
    if (size >= wire::kHeaderSize + 4) std::memcpy(&flags, frame + wire::kHeaderSize, 4);
    flags = BSON_UINT32_FROM_LE(flags);
    if (flags & wire::kMoreToCome) return DispatchAction::kClose;
    AppendErrorFields(out->Begin(wire::kOpMsgBodyOffset), parsed.status());
    FinishOpMsg(out, header.request_id, false);
    return DispatchAction::kReply;
  }
  const wire::OpMsg& msg = parsed.value();
  CommandRequest request;
  request.body = msg.body;
  request.sequences = &msg.sequences;
  bson_t* reply = out->Begin(wire::kOpMsgBodyOffset);
  bson_iter_t it;
  if (!msg.body.Init(&it) || !bson_iter_next(&it)) {
    AppendErrorFields(reply, Status(ErrorCode::kFailedToParse, "Command document is empty"));
  } else {
    request.name = IterKey(&it);
    bson_iter_t db;
    if (!msg.body.Find("$db", &db) || !BSON_ITER_HOLDS_UTF8(&db)) {
      AppendErrorFields(reply, Status(ErrorCode::kLocation40571,
                                      "OP_MSG requests require a $db argument"));
    } else {
      request.db = IterUtf8(&db);
      RunCommand(state, connection, request, out);
    }
  }
  if (msg.more_to_come()) {
    out->Reset(kKeepReplyBytes);
    return DispatchAction::kNoReply;
  }
  FinishOpMsg(out, header.request_id, msg.checksum_present());
  return DispatchAction::kReply;
}

// Closes an OP_REPLY (one document) built in `out` and writes its prefix.
void FinishOpReply(ReplyBuffer* out, int32_t response_to, int32_t response_flags) {
  out->End();
  wire::WriteOpReplyPrefix(out->data(), static_cast<int32_t>(out->size()), g_next_request_id++,
                           response_to, response_flags, 1);
}

DispatchAction HandleOpQuery(ServerState& state, ConnectionInfo& connection,
                             const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                             ReplyBuffer* out) {
  Result<wire::OpQuery> parsed = wire::ParseOpQuery(frame, size);
  if (!parsed.ok()) {
    LogProtocolError(connection, parsed.status());
    return DispatchAction::kClose;
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
    return DispatchAction::kReply;
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
    RunCommand(state, connection, request, out);
  } else {
    AppendErrorFields(reply, Status(ErrorCode::kUnsupportedOpQueryCommand,
                                    "Unsupported OP_QUERY command: " + std::string(name) + ". " +
                                        std::string(kLegacyOpcodeHelp)));
  }
  FinishOpReply(out, header.request_id, wire::kReplyAwaitCapable);
  return DispatchAction::kReply;
}

}  // namespace

// Records the command's session in the SessionCache ($listLocalSessions): at most once a second
// for the same session on a connection, so the common case costs a comparison.
static void RecordSession(ServerState& state, ConnectionInfo& connection,
                          const bson_iter_t* lsid) {
  std::optional<SessionId> id = ParseSessionId(lsid);
  if (!id) return;
  auto now = std::chrono::steady_clock::now();
  if (*id == connection.last_session &&
      now - connection.last_session_touch < std::chrono::seconds(1)) {
    return;
  }
  connection.last_session = *id;
  connection.last_session_touch = now;
  state.sessions().Touch(*id);
}

void RunCommand(ServerState& state, ConnectionInfo& connection, const CommandRequest& request,
                ReplyBuffer* out) {
  const CommandDef* def = FindCommand(request.name);
  if (def == nullptr) {
    state.opcounters().command++;
    AppendErrorFields(out->body(), Status(ErrorCode::kCommandNotFound,
                                          "no such command: '" + std::string(request.name) + "'"));
    return;
  }
  if (def->admin_only && request.db != "admin") {
    state.opcounters().command++;
    AppendErrorFields(out->body(),
                      Status(ErrorCode::kUnauthorized, std::string(def->name) +
                                                           " may only be run against the admin database."));
    return;
  }
  CommandContext ctx{state, connection, nullptr, out};
  // One pass over the generic fields the dispatcher reads: the write concern and the session.
  bson_iter_t it, write_concern, lsid;
  bool has_write_concern = false, has_lsid = false;
  if (request.body.Init(&it)) {
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (key == "writeConcern") {
        write_concern = it;
        has_write_concern = true;
      } else if (key == "lsid") {
        lsid = it;
        has_lsid = true;
      }
    }
  }
  if (has_lsid) RecordSession(state, connection, &lsid);
  // A bad write concern fails the command before it runs, as in mongod.
  Result<WriteConcern> concern = ParseWriteConcern(has_write_concern ? &write_concern : nullptr);
  Status status = concern.status();
  if (concern.ok()) {
    OpScope op(state.ops(), connection, request);  // what $currentOp reports as running
    status = def->handler(ctx, request, out->body());
  }
  if (status.ok() && concern->sync) status = state.engine().SyncWal();
  if (!status.ok()) {
    AppendErrorFields(out->Restart(), status);  // a partial reply is discarded
    return;
  }
  if (!out->complete()) BSON_APPEND_DOUBLE(out->body(), "ok", 1.0);  // an adopted reply has it
}

DispatchAction Dispatch(ServerState& state, ConnectionInfo& connection,
                        const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                        ReplyBuffer* out) {
  switch (static_cast<wire::OpCode>(header.op_code)) {
    case wire::OpCode::kMsg:
      return HandleOpMsg(state, connection, header, frame, size, out);
    case wire::OpCode::kQuery:
      return HandleOpQuery(state, connection, header, frame, size, out);
    default: {
      BsonDoc attr;
      BSON_APPEND_INT32(attr.get(), "opCode", header.op_code);
      AppendUtf8(attr.get(), "remote", connection.remote);
      logging::Log(logging::Severity::kWarning, "NETWORK", 22989, ConnectionContext(connection),
                   "Unsupported opcode: ending connection", attr.get());
      return DispatchAction::kClose;
    }
  }
}

}  // namespace cairn::server
