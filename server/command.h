// The contract between the dispatcher and command handlers: what a handler receives (the parsed
// request and the connection/server context) and how it answers (fields appended to a reply
// document; a non-OK Status becomes MongoDB's error reply). One handler per file under
// server/commands/, registered in commands/command_table.cc.
#pragma once

#include <array>

#include <bson/bson.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "wire/message.h"

namespace cairn::wire {
class ReplyBuffer;  // wire/reply_buffer.h
}  // namespace cairn::wire

namespace cairn::server {

class ServerState;
struct OpEntry;         // server/admin/op_registry.h
struct ExplainOptions;  // server/exec/explain.h

// One command as received: the OP_MSG body (or OP_QUERY query) plus kind-1 document sequences.
// Views into the request frame: valid for the duration of the handler call only.
struct CommandRequest {
  std::string_view name;  // the body's first field name
  std::string_view db;    // $db (OP_MSG) or the OP_QUERY namespace's database
  BsonView body;
  const std::vector<wire::DocumentSequence>* sequences = nullptr;
  bool from_op_query = false;

  // The kind-1 sequence with this identifier, or null.
  const wire::DocumentSequence* Sequence(std::string_view identifier) const;
};

// Per-connection facts handlers may read or update.
struct ConnectionInfo {
  int64_t id = 0;
  // The connection's socket, which a running command polls to stop when the client has gone
  // (common/interrupt.h); -1 where there is no socket (tests, tools).
  int socket_fd = -1;
  std::string remote;       // "127.0.0.1:54321"
  std::string local;        // "127.0.0.1:27017"
  BsonDoc client_metadata;  // from the first hello's "client" field
  bool saw_hello = false;
  // A cursor whose next batch the connection reads ahead once the current reply is sent (set by
  // getMore; 0 for none).
  int64_t read_ahead_cursor = 0;
  // An awaitData getMore that found nothing new asks the server to wait, without holding its
  // I/O thread, until an insert into `collection` commits (its insert version moves past
  // `version`) or `deadline` passes, and then to run the same request again with `retry` set
  // (server.cc; tailable_cursor.h).
  struct AwaitData {
    bool active = false;
    bool retry = false;
    uint32_t collection = 0;
    uint64_t version = 0;
    std::chrono::steady_clock::time_point deadline;
  } await_data;
  // The session of this connection's last command and when it was recorded in the server's
  // SessionCache: the same session is recorded again at most once a second.
  std::array<uint8_t, 16> last_session{};
  std::chrono::steady_clock::time_point last_session_touch{};
  // This connection in the server's OpRegistry ($currentOp), set by its first command; the
  // registry forgets the connection when this goes.
  std::shared_ptr<OpEntry> op_entry;
};

struct CommandContext {
  ServerState& state;
  ConnectionInfo& connection;
  // Set when the explain command runs this handler: the handler parses its arguments as usual,
  // then answers with RunExplain (server/exec/explain.h) instead of executing.
  const ExplainOptions* explain = nullptr;
  // The reply being built (its body is the handler's `reply`), for a handler that sends a reply
  // prepared earlier instead (getMore: wire::ReplyBuffer::Adopt). Null where there is none.
  wire::ReplyBuffer* out = nullptr;
};

// A handler appends its reply fields (everything but "ok") to `reply`, or returns an error.
using CommandHandler = Status (*)(CommandContext& ctx, const CommandRequest& request,
                                  bson_t* reply);

struct CommandDef {
  std::string_view name;
  CommandHandler handler;
  bool admin_only;     // must run against the admin database (Unauthorized 13 otherwise)
  bool requires_auth;  // no authentication yet: recorded for when it exists
  std::string_view help;
  // Reads its kind-1 document sequences in place (the write commands: write_statements.h). Any
  // other command gets each sequence folded into its body as an array field, as mongod parses them.
  bool reads_sequences = false;
};

}  // namespace cairn::server
