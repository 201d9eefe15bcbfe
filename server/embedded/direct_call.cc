// DirectCaller: a command from the C API becomes an OP_MSG frame in memory and goes through
// server::Dispatch, as a request read from a socket does. Building a CommandRequest and calling
// RunCommand would skip what Dispatch does first (parsing and validating the body, the document
// size limit, $db, document sequences folded in, the protocol's own error replies); the frame
// costs one copy of the command, small against running it (tools/bench/embedded_latency.cc
// measures the whole call).
//
// Continuations have no I/O loop here. A read-ahead is an optimisation: skipped. A reply that
// would wait (awaitData getMore, awaitable hello) answers at once with the reply built for "no
// news", which is what the loop sends when its wait expires. A request held before it ran
// (failCommand's blockConnection, a write under fsyncLock) waits on the caller's own thread,
// which is the caller's to spend, and then runs as the loop would run it. A command that ends
// its connection (shutdown, failCommand's closeConnection) answers HostUnreachable, where a
// driver would see the connection close.
#include "server/embedded/direct_call.h"

#include <bson/bson.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "common/bson_doc.h"
#include "server/commands/reply.h"
#include "server/net/dispatcher.h"
#include "wire/message.h"
#include "wire/reply_buffer.h"

namespace cairn::embedded {

namespace {

// At most this many idle connection records are kept between calls (one per concurrent caller).
constexpr size_t kMaxIdleConnections = 16;

uint32_t ReadLe32(const uint8_t* p) {
  uint32_t value;
  std::memcpy(&value, p, sizeof value);
  return BSON_UINT32_FROM_LE(value);
}

// Whether `command` is framed as one BSON document (length prefix and terminator agree). A
// document that is not is passed on unchanged, for the dispatcher to reject as it would on the
// wire.
bool Framed(const uint8_t* command, size_t size) {
  return size >= 5 && ReadLe32(command) == size && command[size - 1] == 0;
}

bool HasDb(const uint8_t* command, size_t size) {
  bson_iter_t it;
  return bson_iter_init_from_data(&it, command, size) && bson_iter_find(&it, "$db");
}

// The OP_MSG request: header, flagBits 0, one kind-0 section: the command, with "$db": `db`
// appended (by libbson, on a copy) when given and the document has none.
std::string RequestFrame(std::string_view db, const uint8_t* command, size_t size) {
  // The header and flagBits (Call writes them once the length is known), section kind 0.
  std::string frame(wire::kOpMsgBodyOffset, '\0');
  bson_t given;
  if (!db.empty() && Framed(command, size) && !HasDb(command, size) &&
      bson_init_static(&given, command, size)) {
    BsonDoc with_db{BsonView(&given)};
    AppendUtf8(with_db.get(), "$db", db);
    frame.append(reinterpret_cast<const char*>(bson_get_data(with_db.get())), with_db.get()->len);
  } else {
    frame.append(reinterpret_cast<const char*>(command), size);
  }
  return frame;
}

// The reply frame's body: the document at kOpMsgBodyOffset.
std::string ReplyBody(const wire::ReplyBuffer& out) {
  if (out.size() < wire::kOpMsgBodyOffset + 5) {
    return ErrorReply(Status(ErrorCode::kInternalError, "the dispatcher built no reply"));
  }
  const uint8_t* body = out.data() + wire::kOpMsgBodyOffset;
  const size_t length = ReadLe32(body);
  if (length > out.size() - wire::kOpMsgBodyOffset) {
    return ErrorReply(Status(ErrorCode::kInternalError, "the dispatcher built a truncated reply"));
  }
  return std::string(reinterpret_cast<const char*>(body), length);
}

// Blocks the calling thread until fsyncUnlock opens the write gate (or an hour passes, after
// which the request runs again and waits anew, as on a connection).
void AwaitUnlock(server::ServerState& state) {
  struct Wake {
    Mutex mu;
    CondVar cv{&mu};
    bool woken GUARDED_BY(mu) = false;
  };
  auto wake = std::make_shared<Wake>();
  server::WriteGate::WaiterHandle handle;
  const bool registered = state.writes().gate().Register(
      [wake] {
        MutexLock lock(&wake->mu);
        wake->woken = true;
        wake->cv.SignalAll();
      },
      &handle);
  if (!registered) return;  // opened already
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  {
    MutexLock lock(&wake->mu);
    while (!wake->woken && wake->cv.WaitUntil(deadline)) {
    }
  }
  state.writes().gate().Unregister(handle);
}

}  // namespace

std::string ErrorReply(const Status& status) {
  BsonDoc reply;
  server::AppendErrorFields(reply.get(), status);
  return std::string(reinterpret_cast<const char*>(bson_get_data(reply.get())), reply.get()->len);
}

DirectCaller::~DirectCaller() = default;

std::unique_ptr<server::ConnectionInfo> DirectCaller::Checkout() {
  {
    MutexLock lock(&mu_);
    if (!idle_.empty()) {
      std::unique_ptr<server::ConnectionInfo> connection = std::move(idle_.back());
      idle_.pop_back();
      return connection;
    }
  }
  auto connection = std::make_unique<server::ConnectionInfo>();
  connection->id = state_.NextConnectionId();
  // In the application's own process: as local as a client can be (the shutdown command and
  // the other localhost-only commands are allowed, as from a loopback connection).
  connection->remote = "embedded";
  connection->local = "embedded";
  connection->from_loopback = true;
  return connection;
}

void DirectCaller::Return(std::unique_ptr<server::ConnectionInfo> connection) {
  MutexLock lock(&mu_);
  if (idle_.size() < kMaxIdleConnections) idle_.push_back(std::move(connection));
}

std::string DirectCaller::Call(std::string_view db, const uint8_t* command, size_t size) {
  std::string frame = RequestFrame(db, command, size);
  if (frame.size() > static_cast<size_t>(INT32_MAX)) {
    return ErrorReply(Status(ErrorCode::kBSONObjectTooLarge, "the command is too large"));
  }
  auto* bytes = reinterpret_cast<uint8_t*>(frame.data());
  // flagBits 0: no checksum, no moreToCome, no exhaust.
  wire::WriteOpMsgPrefix(bytes, static_cast<int32_t>(frame.size()), 1, 0, 0);
  // The length limit a wire request meets (48,000,000 bytes), checked as the socket reader does.
  Result<wire::MessageHeader> header = wire::ParseHeader(bytes, frame.size());
  if (!header.ok()) return ErrorReply(header.status());

  std::unique_ptr<server::ConnectionInfo> connection = Checkout();
  wire::ReplyBuffer out;
  server::Dispatched dispatched =
      server::Dispatch(state_, *connection, *header, bytes, frame.size(), &out);
  // Held before it ran: wait here, then run it as the loop's Resume does.
  while (dispatched.action == server::DispatchAction::kClose &&
         (dispatched.next.kind == server::Continuation::Kind::kBlock ||
          dispatched.next.kind == server::Continuation::Kind::kAwaitUnlock)) {
    if (dispatched.next.kind == server::Continuation::Kind::kBlock) {
      std::this_thread::sleep_until(dispatched.next.deadline);
    } else {
      AwaitUnlock(state_);
    }
    dispatched =
        server::Resume(state_, *connection, bytes, header->request_id, dispatched.next, &out);
  }
  if (dispatched.action != server::DispatchAction::kReply) {
    // The command ended its connection: the record goes with it, as a socket's would.
    return ErrorReply(
        Status(ErrorCode::kHostUnreachable, "the command ended its connection without a reply"));
  }
  Return(std::move(connection));
  return ReplyBody(out);
}

}  // namespace cairn::embedded
