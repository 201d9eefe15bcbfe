// Request routing: OP_MSG and OP_QUERY to command handlers; replies and protocol errors.
#include "server/dispatcher.h"

#include <atomic>
#include <cstring>

#include "common/logging.h"
#include "server/commands/command_table.h"
#include "server/reply.h"

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

DispatchAction HandleOpMsg(ServerState& state, ConnectionInfo& connection,
                           const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                           std::string* out) {
  Result<wire::OpMsg> parsed = wire::ParseOpMsg(frame, size);
  if (!parsed.ok()) {
    LogProtocolError(connection, parsed.status());
    // Answer what can be answered (the client learns why), unless it asked for no reply.
    uint32_t flags = 0;
    if (size >= wire::kHeaderSize + 4) std::memcpy(&flags, frame + wire::kHeaderSize, 4);
    flags = BSON_UINT32_FROM_LE(flags);
    if (flags & wire::kMoreToCome) return DispatchAction::kClose;
    BsonDoc reply = ErrorReply(parsed.status());
    wire::AppendOpMsg(*out, g_next_request_id++, header.request_id, 0, reply.view(), false);
    return DispatchAction::kReply;
  }
  const wire::OpMsg& msg = parsed.value();
  CommandRequest request;
  request.body = msg.body;
  request.sequences = &msg.sequences;
  bson_iter_t it;
  BsonDoc reply;
  if (!msg.body.Init(&it) || !bson_iter_next(&it)) {
    reply = ErrorReply(Status(ErrorCode::kFailedToParse, "Command document is empty"));
  } else {
    request.name = IterKey(&it);
    bson_iter_t db;
    if (!msg.body.Find("$db", &db) || !BSON_ITER_HOLDS_UTF8(&db)) {
      reply = ErrorReply(Status(ErrorCode::kLocation40571, "OP_MSG requests require a $db argument"));
    } else {
      request.db = IterUtf8(&db);
      reply = RunCommand(state, connection, request);
    }
  }
  if (msg.more_to_come()) return DispatchAction::kNoReply;
  wire::AppendOpMsg(*out, g_next_request_id++, header.request_id, 0, reply.view(),
                    msg.checksum_present());
  return DispatchAction::kReply;
}

DispatchAction HandleOpQuery(ServerState& state, ConnectionInfo& connection,
                             const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                             std::string* out) {
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
    BsonDoc err;
    AppendUtf8(err.get(), "$err", "OP_QUERY is no longer supported. " + std::string(kLegacyOpcodeHelp));
    BSON_APPEND_INT32(err.get(), "code", CodeNumber(ErrorCode::kLocation5739101));
    AppendUtf8(err.get(), "codeName", CodeName(ErrorCode::kLocation5739101));
    BSON_APPEND_DOUBLE(err.get(), "ok", 0.0);
    wire::AppendOpReply(*out, g_next_request_id++, header.request_id, wire::kReplyQueryFailure,
                        {err.view()});
    return DispatchAction::kReply;
  }

  // Drivers may wrap the command: {$query: {...}, $readPreference: ...}.
  BsonView command = query.query;
  bson_iter_t it;
  if (command.Init(&it) && bson_iter_next(&it) &&
      (IterKey(&it) == "$query" || IterKey(&it) == "query") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
    command = IterDocument(&it);
  }
  BsonDoc reply;
  std::string_view name;
  if (command.Init(&it) && bson_iter_next(&it)) name = IterKey(&it);
  if (IsHelloName(name)) {
    CommandRequest request;
    request.name = name;
    request.db = db;
    request.body = command;
    request.from_op_query = true;
    reply = RunCommand(state, connection, request);
  } else {
    reply = ErrorReply(Status(ErrorCode::kUnsupportedOpQueryCommand,
                              "Unsupported OP_QUERY command: " + std::string(name) + ". " +
                                  std::string(kLegacyOpcodeHelp)));
  }
  wire::AppendOpReply(*out, g_next_request_id++, header.request_id, wire::kReplyAwaitCapable,
                      {reply.view()});
  return DispatchAction::kReply;
}

}  // namespace

BsonDoc RunCommand(ServerState& state, ConnectionInfo& connection, const CommandRequest& request) {
  const CommandDef* def = FindCommand(request.name);
  if (def == nullptr) {
    state.opcounters().command++;
    return ErrorReply(Status(ErrorCode::kCommandNotFound,
                             "no such command: '" + std::string(request.name) + "'"));
  }
  if (def->admin_only && request.db != "admin") {
    state.opcounters().command++;
    return ErrorReply(Status(ErrorCode::kUnauthorized,
                             std::string(def->name) + " may only be run against the admin database."));
  }
  CommandContext ctx{state, connection};
  BsonDoc reply;
  Status status = def->handler(ctx, request, reply.get());
  if (!status.ok()) return ErrorReply(status);
  BSON_APPEND_DOUBLE(reply.get(), "ok", 1.0);
  return reply;
}

DispatchAction Dispatch(ServerState& state, ConnectionInfo& connection,
                        const wire::MessageHeader& header, const uint8_t* frame, size_t size,
                        std::string* out) {
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
