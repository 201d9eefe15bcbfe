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
#include <utility>
#include <vector>

#include "common/bson_doc.h"
#include "common/interrupt.h"
#include "common/status.h"
#include "server/exec/op_debug.h"
#include "wire/message.h"

namespace cairn::wire {
class ReplyBuffer;  // wire/reply_buffer.h
}  // namespace cairn::wire

namespace cairn::server {

class ServerState;
class TransactionScope;  // server/txn/transaction_scope.h
struct OpEntry;          // server/admin/op_registry.h
struct ExplainOptions;   // server/exec/explain.h

// One command as received: the OP_MSG body (or OP_QUERY query) plus kind-1 document sequences.
// Views into the request frame: valid for the duration of the handler call only.
struct CommandRequest {
  std::string_view name;  // the body's first field name
  std::string_view db;    // $db (OP_MSG) or the OP_QUERY namespace's database
  BsonView body;
  const std::vector<wire::DocumentSequence>* sequences = nullptr;
  bool from_op_query = false;
  bool exhaust_allowed = false;  // OP_MSG's exhaustAllowed flag: replies may stream (moreToCome)

  // The kind-1 sequence with this identifier, or null.
  const wire::DocumentSequence* Sequence(std::string_view identifier) const;
};

// Per-connection facts handlers may read or update.
struct ConnectionInfo {
  int64_t id = 0;
  // The connection's socket, which a running command polls to stop when the client has gone
  // (common/interrupt.h); -1 where there is no socket (tests, tools).
  int socket_fd = -1;
  std::string remote;          // "127.0.0.1:54321"
  bool from_loopback = false;  // the peer is this host (127.0.0.0/8, ::1, or v4-mapped 127.x)
  std::string local;           // "127.0.0.1:27017"
  BsonDoc client_metadata;     // from the first hello's "client" field
  bool saw_hello = false;
  // The session of this connection's last command and when it was recorded in the server's
  // SessionCache: the same session is recorded again at most once a second.
  std::array<uint8_t, 16> last_session{};
  std::chrono::steady_clock::time_point last_session_touch{};
  // This connection in the server's OpRegistry ($currentOp), set by its first command; the
  // registry forgets the connection when this goes.
  std::shared_ptr<OpEntry> op_entry;
  // The client said it is a member of the cluster (hello's internalClient): failCommand lets its
  // commands by (unless failInternalCommands), and its errors get no RetryableWriteError label.
  bool internal_client = false;
  // A test failpoint ended the client's session (failCommand's closeConnection,
  // onPrimaryTransactionalWrite): the connection closes after the command, with no reply.
  bool end_session = false;
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
  // Where the command's streams find the operation that may interrupt them (maxTimeMS, killOp,
  // the client's disconnect): the dispatcher points it at the command's Interruptible while the
  // handler runs. A query takes it (QueryRequest::interrupt), a cursor keeps it (Cursor). Never
  // null.
  std::shared_ptr<InterruptSlot> interrupt = std::make_shared<InterruptSlot>();
  // The multi-document transaction the command runs in (autocommit: false), its session checked
  // out; null outside one. Its reads and writes go through server/txn/transaction_scope.h's
  // ReaderFor, IdCacheFor and WritesFor.
  TransactionScope* txn = nullptr;
  // The command's session (lsid.id), when it names one: what killSessions finds its cursors by.
  std::array<uint8_t, 16> session{};
  bool has_session = false;
  // What the command did (keys and documents examined, returned, written; its plan's summary),
  // which the handlers that read or write fill in: the slow-query line, the profiler and
  // serverStatus's metrics read it once the command ends (admin/profiler.h).
  OpDebug debug;
};

class CommandOutcome;
struct CommandContext;

// What the connection loop does once a command has built its reply, as the handler returns it
// (CommandOutcome). MongoDB waits inside getMore, on the operation's own thread; Cairn never holds
// an I/O thread for a wait, so a handler hands the wait (or the read-ahead) back to the loop as a
// value, and the loop never runs a request twice (net/server.cc).
struct Continuation {
  enum class Kind {
    kNone,
    // Send the reply, then read the next batch of cursor `cursor_id` while it is on its way
    // (getMore: cursor/cursor_batch.h).
    kReadAhead,
    // An awaitData getMore found nothing new (cursor/tailable_cursor.h). The reply built is the
    // one to send if nothing comes. The loop waits, without holding its thread, until an insert
    // into `collection` commits (its insert version moves past `version`) or `deadline` passes,
    // then calls `resume`, whose reply replaces the one built.
    kAwaitInsert,
    // An awaitable hello whose client has seen the current topology (commands/hello.cc): the
    // loop waits, without holding its thread, until the topology counter moves past `version`
    // or `deadline` passes, then calls `resume`, whose reply replaces the one built.
    kAwaitTopology,
    // The command's success is the connection's end: no reply, the connection closes (shutdown,
    // whose client sees the connection close as with mongod).
    kCloseConnection,
    // failCommand's blockConnection (a test failpoint) held the command before it ran: the loop
    // waits until `deadline` without holding its thread, then Resume runs the request with the
    // failpoint's data in `held_by` (the hit's other effects follow; nothing is counted twice).
    kBlock,
    // A write found the server fsyncLocked (server/write/write_gate.h) before it ran: the loop
    // waits, without holding its thread, until fsyncUnlock opens the gate, then runs the request
    // again from its frame as after kBlock (`held_by`: failCommand's hit, already counted).
    kAwaitUnlock,
  };
  using Resume = CommandOutcome (*)(CommandContext& ctx, const Continuation& self, bson_t* reply);

  Kind kind = Kind::kNone;
  int64_t cursor_id = 0;
  // kAwaitInsert and kAwaitTopology.
  uint32_t collection = 0;  // kAwaitInsert: the collection's prefix
  uint64_t version = 0;     // the insert version, or the topology counter, seen
  std::chrono::steady_clock::time_point deadline;
  std::string ns;          // the cursor's namespace, as the getMore named it (hello: its name)
  int64_t batch_size = 0;  // the getMore's batchSize (hello: 1 when it sent helloOk)
  Resume resume = nullptr;
  // Streaming hello (the request allowed exhaust): the reply goes out with moreToCome, and after
  // it the loop waits as for kAwaitTopology from `version` (the topology the reply showed) for
  // `await_ms`, then sends `resume`'s reply, again with moreToCome while it sets `exhaust`,
  // each answering the one before, until the client goes.
  bool exhaust = false;
  int64_t await_ms = 0;
  std::shared_ptr<const BsonDoc> held_by;  // kBlock, kAwaitUnlock

  static Continuation ReadAhead(int64_t cursor_id) {
    Continuation next;
    next.kind = Kind::kReadAhead;
    next.cursor_id = cursor_id;
    return next;
  }
};

// What a handler returns: its status (OK: the fields it appended to `reply` are the answer; an
// error: MongoDB's error reply replaces them) and what the connection loop does next. Made
// implicitly from a Status, so a handler that only answers returns its Status as before.
class [[nodiscard]] CommandOutcome {
 public:
  CommandOutcome(Status status) : status_(std::move(status)) {}  // NOLINT: implicit on purpose
  CommandOutcome(Continuation next) : next_(std::move(next)) {}  // NOLINT: implicit on purpose

  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }
  // The continuation of a successful command (kNone after an error).
  const Continuation& next() const { return next_; }

 private:
  Status status_;
  Continuation next_;
};

// A handler appends its reply fields (everything but "ok") to `reply`, or returns an error, and
// may ask the connection loop for a continuation.
using CommandHandler = CommandOutcome (*)(CommandContext& ctx, const CommandRequest& request,
                                          bson_t* reply);

// Where a command may run when this server is not a writable primary (an uninitiated --replSet
// member), as mongod's Command::secondaryAllowed: always (handshake, diagnostics), only when the
// client allows reads from a non-primary (reads: NotPrimaryNoSecondaryOk 13435 otherwise), or
// never (writes: NotWritablePrimary 10107). The local database is exempt.
enum class OnSecondary { kAlways, kOptIn, kNever };

struct CommandDef {
  std::string_view name;
  CommandHandler handler;
  bool admin_only;     // must run against the admin database (Unauthorized 13 otherwise)
  bool requires_auth;  // no authentication yet: recorded for when it exists
  std::string_view help;
  // Reads its kind-1 document sequences in place (the write commands: write_statements.h). Any
  // other command gets each sequence folded into its body as an array field, as mongod parses them.
  bool reads_sequences = false;
  OnSecondary on_secondary = OnSecondary::kAlways;
  // A test command (configureFailPoint): it exists only with --setParameter
  // enableTestCommands=1; without it the dispatcher and listCommands know no such command.
  bool test_only = false;
  // Writes data without being a write command (compact, validate): fsyncLock holds it as it holds
  // every OnSecondary::kNever command.
  bool writes_data = false;
};

}  // namespace cairn::server
