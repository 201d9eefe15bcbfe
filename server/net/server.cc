// Server: the listener, the I/O loops and their runner threads, connection coroutines, the
// cursor reaper, signals and shutdown.
//
// Threading:
// - The listener thread (the one calling Run) accepts connections, handles signals, reaps idle
//   cursors and watches the I/O loops. Accepting never waits on a command.
// - Each I/O loop is an io_context served by one runner thread at a time. A connection is placed
//   on one loop (round robin) and lives there, on its own strand. A request never hops threads
//   while it runs, and short commands run inline on the runner, with no hand-off (one shared
//   io_context run by two threads spent most of its time waking threads: measured with perf
//   under 8 connections).
// - A command that holds its runner for more than kStallThreshold is long-running: the watchdog
//   retires that runner and starts a new one for the loop, so the other connections of the loop
//   go on at once; the retired thread finishes its command off the loop and then exits. Commands
//   therefore never stall one another for more than a few milliseconds, whatever they do, and
//   the number of threads running long commands follows the number of long commands, as with
//   mongod's thread per connection.
#include "server/net/server.h"

#include <boost/asio.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/logging.h"
#include "common/mutex.h"
#include "server/cursor/cursor_batch.h"
#include "server/net/dispatcher.h"
#include "server/server_state.h"

namespace cairn::server {

namespace asio = boost::asio;
using asio::ip::tcp;
// Connections arrive over TCP and over unix domain sockets; one generic stream socket type
// serves both.
using Stream = asio::generic::stream_protocol;
using StreamAcceptor = asio::basic_socket_acceptor<Stream>;

namespace {

// A generic endpoint of an IPv4 or IPv6 socket as a TCP endpoint (same sockaddr bytes).
tcp::endpoint ToTcp(const Stream::endpoint& endpoint) {
  tcp::endpoint out;
  if (endpoint.size() <= out.capacity()) {
    std::memcpy(out.data(), endpoint.data(), endpoint.size());
    out.resize(endpoint.size());
  }
  return out;
}

std::string ToString(const tcp::endpoint& endpoint) {
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

std::string UnixSocketPath(const Stream::endpoint& endpoint) {
  asio::local::stream_protocol::endpoint local;
  if (endpoint.size() <= local.capacity()) {
    std::memcpy(local.data(), endpoint.data(), endpoint.size());
    local.resize(endpoint.size());
  }
  return local.path();
}

// A request's bytes are read as they arrive: the buffer starts at this size past the header
// and doubles with what came, so a header announcing 48 MB costs nothing until 48 MB arrive.
constexpr size_t kFirstReadChunk = 64u << 10;
// What all connections together may keep between requests in receive and reply buffers (so
// that a scan's getMores do not regrow and page-fault their buffer each time). A connection
// whose buffers do not fit releases them: 2,000 idle connections hold next to nothing.
constexpr size_t kKeptMemoryBudget = 256u << 20;
// A receive buffer larger than this is never kept.
constexpr size_t kKeepReceiveBytes = 1u << 20;

// How long a command may hold its loop's runner before the loop gets a new one, and how often
// the watchdog looks.
constexpr auto kStallThreshold = std::chrono::milliseconds(10);
constexpr auto kWatchdogTick = std::chrono::milliseconds(5);

// Accept errors that mean "out of descriptors or memory for now": back off and retry.
constexpr auto kFirstAcceptBackoff = std::chrono::milliseconds(10);
constexpr auto kMaxAcceptBackoff = std::chrono::milliseconds(1000);

// async_write's completion condition: hand the kernel everything left in one send. Asio's
// default (transfer_all) sends at most 64 KiB per call, so a 4 MiB reply took 64 sends, each
// followed by a trip through the event loop (seen with strace on a scan).
size_t WholeBufferWrites(const boost::system::error_code& ec, size_t /*transferred*/) {
  return ec ? 0 : std::numeric_limits<size_t>::max();
}

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One thread serving an I/O loop. `busy_since` is when the command it runs began (steady clock,
// ns; 0 when it runs none): the watchdog reads it.
struct Runner {
  std::atomic<int64_t> busy_since{0};
  std::atomic<bool> retired{false};  // the loop has a new runner: exit after the current handler
  std::atomic<bool> exited{false};
  std::thread thread;
};

thread_local Runner* t_runner = nullptr;

// Marks the calling runner busy with a command for the scope's life.
class BusyMark {
 public:
  BusyMark() : runner_(t_runner) {
    if (runner_ != nullptr) runner_->busy_since.store(NowNanos(), std::memory_order_relaxed);
  }
  ~BusyMark() {
    if (runner_ != nullptr) runner_->busy_since.store(0, std::memory_order_relaxed);
  }
  BusyMark(const BusyMark&) = delete;
  BusyMark& operator=(const BusyMark&) = delete;

 private:
  Runner* runner_;
};

// A receive buffer that grows without zero-filling (bytes are written by the socket before
// they are read).
class FrameBuffer {
 public:
  FrameBuffer() = default;
  FrameBuffer(const FrameBuffer&) = delete;
  FrameBuffer& operator=(const FrameBuffer&) = delete;
  ~FrameBuffer() { std::free(data_); }

  uint8_t* data() { return data_; }
  size_t capacity() const { return capacity_; }
  // Makes room for `bytes` in all, keeping the first `keep` bytes.
  bool Reserve(size_t bytes) {
    if (bytes <= capacity_) return true;
    void* grown = std::realloc(data_, bytes);
    if (grown == nullptr) return false;
    data_ = static_cast<uint8_t*>(grown);
    capacity_ = bytes;
    return true;
  }
  void Release() {
    std::free(data_);
    data_ = nullptr;
    capacity_ = 0;
  }

 private:
  uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
};

// Whether an accept error is a lack of resources that a retry later may not meet.
bool IsResourceExhaustion(const boost::system::error_code& ec) {
  return ec == asio::error::no_descriptors || ec.value() == ENFILE || ec.value() == ENOBUFS ||
         ec.value() == ENOMEM;
}

}  // namespace

struct Server::Impl {
  // One I/O loop: its context and the runner currently serving it.
  struct IoLoop {
    asio::io_context context;
    std::atomic<Runner*> runner{nullptr};
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
  };

  // One live connection: its socket (on the connection's strand), for shutdown. `busy` and
  // `closing` are read and written on the strand only.
  struct Session {
    Stream::socket socket;
    size_t loop;  // index into `loops`
    bool busy = false;
    bool closing = false;
    // The timer of an awaitData getMore waiting for an insert (shutdown ends the wait early).
    std::shared_ptr<asio::steady_timer> await_timer;
    Session(Stream::socket s, size_t l) : socket(std::move(s)), loop(l) {}
  };

  Impl(ServerOptions options, std::unique_ptr<storage::Engine> engine)
      : state(std::move(options), std::move(engine)),
        signals(listener),  // SIGINT and SIGTERM added by Run when the server owns the process
        reaper(listener),
        transaction_reaper(listener),
        watchdog(listener) {
    const int n = std::max(1, state.options().io_threads);
    for (int i = 0; i < n; ++i) loops.push_back(std::make_unique<IoLoop>());
    state.set_shutdown_hook([this] { asio::post(listener, [this] { BeginShutdown(); }); });
  }

  asio::io_context listener;  // acceptors, signals, the reaper, the watchdog: the Run thread
  std::vector<std::unique_ptr<IoLoop>> loops;
  std::atomic<size_t> next_loop{0};
  ServerState state;
  asio::signal_set signals;
  asio::steady_timer reaper;
  asio::steady_timer transaction_reaper;
  asio::steady_timer watchdog;
  std::vector<std::unique_ptr<StreamAcceptor>> acceptors;
  std::vector<std::string> unix_socket_paths;  // removed when the server stops, as mongod does
  Mutex sessions_mu;
  std::unordered_map<int64_t, std::shared_ptr<Session>> sessions GUARDED_BY(sessions_mu);
  std::atomic<bool> stopping{false};
  int64_t max_connections = 0;
  int bound_port = 0;  // the TCP port, known once bound (--port 0 picks one)
  // Set once the listener's loop has returned: a Listen posted later would never run.
  Mutex listen_mu;
  bool listener_done GUARDED_BY(listen_mu) = false;
  // Every runner thread started, current and retired; reaped once exited.
  Mutex runners_mu;
  std::vector<std::unique_ptr<Runner>> runners GUARDED_BY(runners_mu);
  // Bytes the connections keep between requests (kKeptMemoryBudget).
  std::atomic<size_t> kept_bytes{0};

  // A cursor's next batch being read ahead on another loop while its connection sends; `done`
  // (on the connection's strand) is cancelled when it has finished.
  struct ReadAheadJob {
    ReadAheadJob(asio::any_io_executor executor, CursorPin c)
        : cursor(std::move(c)), done(executor, std::chrono::steady_clock::time_point::max()) {}
    CursorPin cursor;
    asio::steady_timer done;
    bool finished = false;  // read and written on the connection's strand only
  };
  // Another loop's context than the connection's own; null with a single loop.
  asio::io_context* HelperContext(size_t own) {
    if (loops.size() < 2) return nullptr;
    return &loops[(own + 1) % loops.size()]->context;
  }

  void StartRunner(IoLoop& loop);
  void ReapRunners(bool all);
  asio::awaitable<void> Accept(StreamAcceptor& acceptor);
  asio::awaitable<void> Serve(std::shared_ptr<Session> session, int64_t id);
  // Suspends the connection until an insert into the awaited capped collection commits or the
  // await deadline passes (tailable awaitData getMore; tailable_cursor.h).
  asio::awaitable<void> AwaitInsert(Session& session, const Continuation& await);
  asio::awaitable<void> AwaitTopology(Session& session, const Continuation& await);
  // Suspends the connection until `deadline` (failCommand's blockConnection): its loop serves
  // the other connections meanwhile; shutdown ends the wait early.
  asio::awaitable<void> AwaitDeadline(Session& session,
                                      std::chrono::steady_clock::time_point deadline);
  // Suspends the connection until fsyncUnlock opens the write gate (a write held by fsyncLock).
  asio::awaitable<void> AwaitUnlock(Session& session);
  // Keeps or releases a connection's buffers after a request, within kKeptMemoryBudget.
  void KeepOrRelease(size_t* kept, FrameBuffer& frame, wire::ReplyBuffer& out);
  // Opens, binds and listens `acceptor` on `endpoint` (`v6`: an IPv6 address, bound v6-only).
  boost::system::error_code OpenAcceptor(StreamAcceptor& acceptor, const Stream::endpoint& endpoint,
                                         bool v6);
  // Listens on the TCP `address`:`port` (0: an ephemeral port, stored in *bound).
  Status ListenTcp(const std::string& address, int port, int* bound);
  // Listens on the unix socket `path`, replacing a stale socket file; the file goes at shutdown.
  Status ListenUnix(const std::string& path);
  void ScheduleReaper();
  void ScheduleTransactionReaper();
  void ScheduleWatchdog();
  void CheckStalls();
  void BeginShutdown();
};

void Server::Impl::StartRunner(IoLoop& loop) {
  auto runner = std::make_unique<Runner>();
  Runner* self = runner.get();
  loop.runner.store(self);
  self->thread = std::thread([self, &loop] {
    t_runner = self;
    while (!self->retired.load(std::memory_order_acquire)) {
      if (loop.context.run_one() == 0) break;  // out of work: the server is stopping
    }
    self->exited.store(true, std::memory_order_release);
  });
  MutexLock lock(&runners_mu);
  runners.push_back(std::move(runner));
}

void Server::Impl::ReapRunners(bool all) {
  std::vector<std::unique_ptr<Runner>> done;
  {
    MutexLock lock(&runners_mu);
    auto keep = std::partition(runners.begin(), runners.end(), [all](const auto& r) {
      return !(all || r->exited.load(std::memory_order_acquire));
    });
    for (auto it = keep; it != runners.end(); ++it) done.push_back(std::move(*it));
    runners.erase(keep, runners.end());
  }
  for (auto& runner : done) runner->thread.join();
}

void Server::Impl::CheckStalls() {
  const int64_t now = NowNanos();
  const int64_t threshold =
      std::chrono::duration_cast<std::chrono::nanoseconds>(kStallThreshold).count();
  for (auto& loop : loops) {
    Runner* runner = loop->runner.load();
    if (runner == nullptr || runner->retired.load(std::memory_order_relaxed)) continue;
    const int64_t since = runner->busy_since.load(std::memory_order_relaxed);
    if (since == 0 || now - since < threshold) continue;
    // The command goes on on its thread, which leaves the loop once it is done; the loop's other
    // connections get a fresh runner now.
    runner->retired.store(true, std::memory_order_release);
    StartRunner(*loop);
  }
  ReapRunners(/*all=*/false);
}

void Server::Impl::ScheduleWatchdog() {
  watchdog.expires_after(kWatchdogTick);
  watchdog.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    CheckStalls();
    if (stopping) {
      MutexLock lock(&sessions_mu);
      if (sessions.empty()) return;  // every connection has ended: nothing left to rescue
    }
    ScheduleWatchdog();
  });
}

asio::awaitable<void> Server::Impl::Accept(StreamAcceptor& acceptor) {
  auto backoff = kFirstAcceptBackoff;
  std::chrono::steady_clock::time_point last_error_log{};
  for (;;) {
    // The connection lives on one loop, on its own strand.
    const size_t loop = next_loop++ % loops.size();
    Stream::socket socket(asio::make_strand(loops[loop]->context));
    boost::system::error_code ec;
    co_await acceptor.async_accept(socket, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (stopping || ec == asio::error::operation_aborted) co_return;
      if (!IsResourceExhaustion(ec)) continue;  // the peer went away before accept: next one
      // Out of descriptors (or memory): mongod logs and waits rather than spinning.
      auto now = std::chrono::steady_clock::now();
      if (now - last_error_log >= std::chrono::seconds(1)) {
        last_error_log = now;
        BsonDoc attr;
        AppendUtf8(attr.get(), "error", ec.message());
        BSON_APPEND_INT64(attr.get(), "backoffMillis",
                          std::chrono::duration_cast<std::chrono::milliseconds>(backoff).count());
        logging::Log(logging::Severity::kWarning, "NETWORK", 23022, "listener",
                     "Error accepting new connection", attr.get());
      }
      asio::steady_timer pause(listener, backoff);
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      backoff = std::min(backoff * 2, kMaxAcceptBackoff);
      continue;
    }
    backoff = kFirstAcceptBackoff;
    if (state.current_connections.load() >= max_connections) {
      if (!logging::Quiet()) {
        BsonDoc attr;
        BSON_APPEND_INT64(attr.get(), "connectionCount", state.current_connections.load());
        logging::Log(logging::Severity::kInfo, "NETWORK", 22942, "listener",
                     "Connection refused because there are too many open connections", attr.get());
      }
      socket.close(ec);
      continue;
    }
    if (socket.local_endpoint(ec).protocol().family() != AF_UNIX) {
      socket.set_option(tcp::no_delay(true), ec);
    }
    int64_t id = state.NextConnectionId();
    ++state.current_connections;
    ++state.total_connections;
    auto session = std::make_shared<Session>(std::move(socket), loop);
    {
      MutexLock lock(&sessions_mu);
      sessions.emplace(id, session);
    }
    auto executor = session->socket.get_executor();
    asio::co_spawn(executor, Serve(std::move(session), id), asio::detached);
  }
}

void Server::Impl::KeepOrRelease(size_t* kept, FrameBuffer& frame, wire::ReplyBuffer& out) {
  if (frame.capacity() > kKeepReceiveBytes) frame.Release();
  if (out.capacity() > wire::kKeepReplyBytes) out.Reset(0);
  const size_t want = frame.capacity() + out.capacity();
  if (want > *kept) {
    const size_t more = want - *kept;
    if (kept_bytes.fetch_add(more) + more > kKeptMemoryBudget) {
      kept_bytes.fetch_sub(more);
      // Over the budget: this connection keeps nothing.
      frame.Release();
      out.Reset(0);
      kept_bytes.fetch_sub(*kept);
      *kept = 0;
      return;
    }
  } else {
    kept_bytes.fetch_sub(*kept - want);
  }
  *kept = want;
}

asio::awaitable<void> Server::Impl::Serve(std::shared_ptr<Session> session, int64_t id) {
  ConnectionInfo info;
  info.id = id;
  info.socket_fd = session->socket.native_handle();
  boost::system::error_code ec;
  const Stream::endpoint local = session->socket.local_endpoint(ec);
  if (!ec && local.protocol().family() == AF_UNIX) {
    // As mongod names a unix socket's peer; it is on this machine.
    info.remote = "anonymous unix socket:" + std::to_string(bound_port);
    info.local = UnixSocketPath(local);
    info.from_loopback = true;
  } else if (!ec) {
    info.local = ToString(ToTcp(local));
    const tcp::endpoint remote = ToTcp(session->socket.remote_endpoint(ec));
    if (!ec) {
      info.remote = ToString(remote);
      const asio::ip::address peer = remote.address();
      info.from_loopback =
          peer.is_loopback() ||
          (peer.is_v6() && peer.to_v6().is_v4_mapped() &&
           asio::ip::make_address_v4(asio::ip::v4_mapped, peer.to_v6()).is_loopback());
    }
  }
  int64_t count = state.current_connections.load();
  // The loop that reads ahead for this connection's cursors. The guard keeps it running while
  // the connection lives: at shutdown a loop whose own connections have ended would otherwise
  // stop and leave a read-ahead posted to it undone, and this connection waiting.
  asio::io_context* helper = HelperContext(session->loop);
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> helper_running;
  if (helper != nullptr) helper_running.emplace(helper->get_executor());
  std::string ctx = "conn" + std::to_string(id);
  if (!logging::Quiet()) {
    BsonDoc attr;
    AppendUtf8(attr.get(), "remote", info.remote);
    BSON_APPEND_INT64(attr.get(), "connectionId", id);
    BSON_APPEND_INT64(attr.get(), "connectionCount", count);
    logging::Log(logging::Severity::kInfo, "NETWORK", 22943, "listener", "Connection accepted",
                 attr.get());
  }

  FrameBuffer frame;
  wire::ReplyBuffer out;
  size_t kept = 0;  // bytes of `frame` and `out` counted in kept_bytes
  uint8_t header_bytes[wire::kHeaderSize];
  for (;;) {
    if (session->closing) break;
    co_await asio::async_read(session->socket, asio::buffer(header_bytes),
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    Result<wire::MessageHeader> header = wire::ParseHeader(header_bytes, sizeof header_bytes);
    if (!header.ok()) {
      BsonDoc attr;
      AppendUtf8(attr.get(), "remote", info.remote);
      AppendUtf8(attr.get(), "error", header.status().ToString());
      logging::Log(logging::Severity::kWarning, "NETWORK", 22988, ctx,
                   "Error receiving request from client. Ending connection from remote",
                   attr.get());
      break;
    }
    // The body is read as it arrives, the buffer growing with the bytes received.
    const size_t length = static_cast<size_t>(header->message_length);
    size_t have = wire::kHeaderSize;
    if (!frame.Reserve(std::min(length, have + kFirstReadChunk))) break;
    std::memcpy(frame.data(), header_bytes, wire::kHeaderSize);
    while (have < length) {
      if (frame.capacity() == have && !frame.Reserve(std::min(length, have * 2))) break;
      size_t got = co_await session->socket.async_read_some(
          asio::buffer(frame.data() + have, std::min(length, frame.capacity()) - have),
          asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
      have += got;
    }
    if (ec || have < length) break;
    state.metrics().bytes_in.fetch_add(static_cast<int64_t>(length), std::memory_order_relaxed);
    state.metrics().requests.fetch_add(1, std::memory_order_relaxed);
    session->busy = true;
    Dispatched dispatched;
    {
      BusyMark busy;
      dispatched = Dispatch(state, info, header.value(), frame.data(), length, &out);
    }
    while ((dispatched.next.kind == Continuation::Kind::kAwaitInsert ||
            dispatched.next.kind == Continuation::Kind::kAwaitTopology ||
            dispatched.next.kind == Continuation::Kind::kBlock ||
            dispatched.next.kind == Continuation::Kind::kAwaitUnlock) &&
           !session->closing) {
      // Nothing new for an awaitData cursor: wait for an insert, then read its batch again. An
      // awaitable hello: wait for the topology to change, then answer as of then. A command
      // failCommand holds: wait out its time, then run it.
      if (dispatched.next.kind == Continuation::Kind::kAwaitInsert) {
        co_await AwaitInsert(*session, dispatched.next);
      } else if (dispatched.next.kind == Continuation::Kind::kAwaitTopology) {
        co_await AwaitTopology(*session, dispatched.next);
      } else if (dispatched.next.kind == Continuation::Kind::kAwaitUnlock) {
        co_await AwaitUnlock(*session);
      } else {
        co_await AwaitDeadline(*session, dispatched.next.deadline);
      }
      BusyMark busy;
      dispatched = Resume(state, info, frame.data(), header->request_id, dispatched.next, &out);
    }
    const DispatchAction action = dispatched.action;
    if (action == DispatchAction::kClose) break;
    // The next batch of a cursor is read ahead while the reply is sent: on another loop when
    // there is one, so the send (for a 1 MiB batch, ~20% of a scan's server time: the copy and
    // the loopback TCP path) and the reading overlap; otherwise after the send.
    CursorPin read_ahead;               // read on this loop, after the send
    std::shared_ptr<ReadAheadJob> job;  // read on the helper loop, during the send
    if (dispatched.next.kind == Continuation::Kind::kReadAhead) {
      const int64_t cursor_id = dispatched.next.cursor_id;
      // Only when no request is already waiting (a read-ahead must never delay one), and while
      // idle cursors hold less than their memory budget.
      boost::system::error_code pending_error;
      if (session->socket.available(pending_error) == 0 && !pending_error &&
          state.cursors().idle_bytes() < CursorManager::kIdleBytesBudget) {
        CursorPin cursor = state.cursors().TryPin(cursor_id);
        if (cursor && helper != nullptr && action == DispatchAction::kReply) {
          job = std::make_shared<ReadAheadJob>(session->socket.get_executor(), std::move(cursor));
        } else {
          read_ahead = std::move(cursor);
        }
      }
    }
    if (job) {
      asio::post(*helper, [job] {
        {
          BusyMark busy;
          ReadAhead(*job->cursor);
        }
        // Back on the connection's strand, which alone reads `finished`.
        asio::post(job->done.get_executor(), [job] {
          job->finished = true;
          job->done.cancel();
        });
      });
    }
    if (action == DispatchAction::kReply) {
      state.metrics().bytes_out.fetch_add(static_cast<int64_t>(out.size()),
                                          std::memory_order_relaxed);
      co_await asio::async_write(session->socket, asio::buffer(out.data(), out.size()),
                                 WholeBufferWrites, asio::redirect_error(asio::use_awaitable, ec));
    }
    if (job) {
      if (!job->finished) {
        boost::system::error_code ignored;
        co_await job->done.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      }
      read_ahead = std::move(job->cursor);
    } else if (read_ahead && !ec) {
      BusyMark busy;
      ReadAhead(*read_ahead);
    }
    read_ahead.CheckIn();
    // A streaming hello: reply after reply, each answering the one before, when the topology
    // changes or the client's maxAwaitTimeMS passes. The stream ends when the client closes the
    // connection or sends anything (read as the next request), which also ends a wait.
    while (!ec && dispatched.next.exhaust && !session->closing) {
      Continuation next = std::move(dispatched.next);
      next.kind = Continuation::Kind::kAwaitTopology;
      next.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(next.await_ms);
      auto readable = std::make_shared<bool>(false);
      session->socket.async_wait(Stream::socket::wait_read,
                                 [session, readable](const boost::system::error_code& wait_ec) {
                                   if (wait_ec) return;  // cancelled: the wait ended first
                                   *readable = true;
                                   if (session->await_timer) session->await_timer->cancel();
                                 });
      co_await AwaitTopology(*session, next);
      if (!*readable) {
        boost::system::error_code ignored;
        session->socket.cancel(ignored);
      }
      if (*readable || session->closing) break;
      {
        BusyMark busy;
        dispatched = Resume(state, info, frame.data(), dispatched.reply_id, next, &out);
      }
      state.metrics().bytes_out.fetch_add(static_cast<int64_t>(out.size()),
                                          std::memory_order_relaxed);
      co_await asio::async_write(session->socket, asio::buffer(out.data(), out.size()),
                                 WholeBufferWrites, asio::redirect_error(asio::use_awaitable, ec));
    }
    if (ec) break;
    out.Reset(wire::kKeepReplyBytes);
    session->busy = false;
    KeepOrRelease(&kept, frame, out);
  }
  kept_bytes.fetch_sub(kept);
  session->socket.close(ec);
  {
    MutexLock lock(&sessions_mu);
    sessions.erase(id);
  }
  count = --state.current_connections;
  if (!logging::Quiet()) {
    BsonDoc attr;
    AppendUtf8(attr.get(), "remote", info.remote);
    BSON_APPEND_INT64(attr.get(), "connectionId", id);
    BSON_APPEND_INT64(attr.get(), "connectionCount", count);
    logging::Log(logging::Severity::kInfo, "NETWORK", 22944, ctx, "Connection ended", attr.get());
  }
}

// Suspends the connection's coroutine until `deadline`, or until what `subscribe` registers for
// wakes it first (the waking thread only posts the cancel to this connection's own strand).
// `subscribe(wake)` returns false, registering nothing, when the event already happened; then
// `unsubscribe` runs after the wait.
template <typename SessionT, typename Subscribe, typename Unsubscribe>
asio::awaitable<void> AwaitWake(SessionT& session, std::chrono::steady_clock::time_point deadline,
                                Subscribe subscribe, Unsubscribe unsubscribe) {
  auto timer = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor);
  timer->expires_at(deadline);
  if (!subscribe([timer] { asio::post(timer->get_executor(), [timer] { timer->cancel(); }); })) {
    co_return;
  }
  boost::system::error_code ec;
  session.await_timer = timer;
  co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  session.await_timer.reset();
  unsubscribe();
}

asio::awaitable<void> Server::Impl::AwaitInsert(Session& session, const Continuation& await) {
  CappedRegistry::WaiterHandle waiter;
  // Nothing to wait for when an insert committed since the getMore looked.
  co_await AwaitWake(
      session, await.deadline,
      [&](std::function<void()> wake) {
        return state.capped().Register(await.collection, await.version, std::move(wake), &waiter);
      },
      [&] { state.capped().Unregister(waiter); });
}

asio::awaitable<void> Server::Impl::AwaitTopology(Session& session, const Continuation& await) {
  ReplicationCoordinator::WaiterHandle waiter;
  // Nothing to wait for when the topology changed since the hello looked.
  co_await AwaitWake(
      session, await.deadline,
      [&](std::function<void()> wake) {
        return state.repl().RegisterTopologyWaiter(static_cast<int64_t>(await.version),
                                                   std::move(wake), &waiter);
      },
      [&] { state.repl().UnregisterTopologyWaiter(waiter); });
}

asio::awaitable<void> Server::Impl::AwaitUnlock(Session& session) {
  WriteGate::WaiterHandle waiter;
  // No deadline of its own: the request runs again after a wake-up or an hour, and waits anew
  // while the server stays locked. Nothing to wait for when the unlock came first.
  co_await AwaitWake(
      session, std::chrono::steady_clock::now() + std::chrono::hours(1),
      [&](std::function<void()> wake) {
        return state.writes().gate().Register(std::move(wake), &waiter);
      },
      [&] { state.writes().gate().Unregister(waiter); });
}

asio::awaitable<void> Server::Impl::AwaitDeadline(Session& session,
                                                  std::chrono::steady_clock::time_point deadline) {
  co_await AwaitWake(
      session, deadline, [](const std::function<void()>&) { return true; }, [] {});
}

void Server::Impl::ScheduleReaper() {
  reaper.expires_after(std::chrono::seconds(60));
  reaper.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopping) return;
    auto timeout = std::chrono::minutes(state.options().cursor_timeout_minutes);
    size_t reaped = state.cursors().ReapIdle(timeout);
    if (reaped > 0) {
      BsonDoc attr;
      BSON_APPEND_INT64(attr.get(), "numTimedOut", static_cast<int64_t>(reaped));
      logging::Log(logging::Severity::kInfo, "QUERY", 20529, "clientcursormon", "Cursors timed out",
                   attr.get());
    }
    ScheduleReaper();
  });
}

// Aborts the transactions open past transactionLifetimeLimitSeconds, every second (mongod checks
// every limit/2 seconds): an abandoned transaction holds the keys it wrote, which other
// transactions would meet as WriteConflict. A session busy with a command is left for the next
// round (its command finds the expiry itself).
void Server::Impl::ScheduleTransactionReaper() {
  transaction_reaper.expires_after(std::chrono::seconds(1));
  transaction_reaper.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopping) return;
    state.repl().retryable().AbortExpiredTransactions(std::chrono::steady_clock::now());
    ScheduleTransactionReaper();
  });
}

void Server::Impl::BeginShutdown() {
  if (stopping.exchange(true)) return;
  logging::Log(logging::Severity::kInfo, "CONTROL", 23377, "SignalHandler",
               "Received signal: shutting down", nullptr);
  boost::system::error_code ec;
  for (auto& acceptor : acceptors) acceptor->close(ec);
  reaper.cancel();
  transaction_reaper.cancel();
  signals.cancel();
  // Running commands end at their next safe point with InterruptedAtShutdown, as in mongod.
  state.ops().KillAll(ErrorCode::kInterruptedAtShutdown);
  for (auto& loop : loops) loop->keep_running.reset();  // a loop stops once its connections end
  MutexLock lock(&sessions_mu);
  for (auto& [id, session] : sessions) {
    // Close on the session's own strand: an in-flight command finishes and replies first.
    // (An init-capture: clang 14, the sanitizer builds' compiler, cannot capture a binding.)
    asio::post(session->socket.get_executor(), [session = session] {
      session->closing = true;
      if (session->await_timer) session->await_timer->cancel();
      if (!session->busy) {
        boost::system::error_code ignored;
        session->socket.cancel(ignored);
        session->socket.close(ignored);
      }
    });
  }
}

Server::Server(ServerOptions options, std::unique_ptr<storage::Engine> engine)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(engine))) {}

Server::~Server() = default;

ServerState& Server::state() { return impl_->state; }

void Server::Stop() {
  asio::post(impl_->listener, [this] { impl_->BeginShutdown(); });
}

namespace {

// The most connections the process can hold: --maxConns when given, else mongod's default
// (1,000,000) bounded by 80% of the descriptors the process may open, as mongod bounds it.
// The soft descriptor limit is first raised to the hard one.
// Only a server that owns its process raises the limit (libcairn leaves the application's).
int64_t MaxConnections(int configured, bool raise_limit) {
  struct rlimit limit;
  int64_t descriptors = std::numeric_limits<int64_t>::max();
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    if (raise_limit && limit.rlim_cur < limit.rlim_max) {
      struct rlimit raised = limit;
      raised.rlim_cur = limit.rlim_max;
      if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    if (limit.rlim_cur != RLIM_INFINITY) descriptors = static_cast<int64_t>(limit.rlim_cur);
  }
  const int64_t by_descriptors =
      descriptors == std::numeric_limits<int64_t>::max() ? descriptors : descriptors * 8 / 10;
  const int64_t wanted = configured > 0 ? configured : 1'000'000;
  return std::max<int64_t>(1, std::min(wanted, by_descriptors));
}

// Logs a failed bind as mongod does, and says so as a Status.
Status BindFailed(const std::string& address, int port, const boost::system::error_code& ec) {
  BsonDoc attr;
  AppendUtf8(attr.get(), "error", ec.message());
  AppendUtf8(attr.get(), "address", address);
  BSON_APPEND_INT32(attr.get(), "port", port);
  logging::Log(logging::Severity::kError, "NETWORK", 23024, "initandlisten",
               "Failed to bind: " + ec.message(), attr.get());
  return Status(ErrorCode::kInternalError,
                "cannot listen on " + address + ":" + std::to_string(port) + ": " + ec.message());
}

}  // namespace

boost::system::error_code Server::Impl::OpenAcceptor(StreamAcceptor& acceptor,
                                                     const Stream::endpoint& endpoint, bool v6) {
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec && endpoint.protocol().family() != AF_UNIX) {
    acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    // "::" and "0.0.0.0" side by side (--bind_ip_all --ipv6): each its own family.
    if (!ec && v6) acceptor.set_option(asio::ip::v6_only(true), ec);
  }
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  return ec;
}

Status Server::Impl::ListenTcp(const std::string& ip, int port, int* bound) {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(ip, ec);
  if (ec) return Status(ErrorCode::kBadValue, "invalid --bind_ip address: " + ip);
  auto acceptor = std::make_unique<StreamAcceptor>(listener);
  ec = OpenAcceptor(*acceptor,
                    Stream::endpoint(tcp::endpoint(address, static_cast<unsigned short>(port))),
                    address.is_v6());
  if (ec) return BindFailed(ip, port, ec);
  *bound = ToTcp(acceptor->local_endpoint()).port();
  acceptors.push_back(std::move(acceptor));
  return Status::OK();
}

Status Server::Impl::ListenUnix(const std::string& path) {
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    return Status(ErrorCode::kBadValue, "unix socket path too long: " + path);
  }
  // A stale socket file a killed server left behind is replaced; anything else at the path (a
  // libcairn caller's typo naming a regular file) is left alone, and the bind fails.
  struct stat existing;
  if (::lstat(path.c_str(), &existing) == 0 && S_ISSOCK(existing.st_mode)) ::unlink(path.c_str());
  auto acceptor = std::make_unique<StreamAcceptor>(listener);
  boost::system::error_code ec = OpenAcceptor(
      *acceptor, Stream::endpoint(asio::local::stream_protocol::endpoint(path)), false);
  if (ec) return BindFailed(path, bound_port, ec);
  unix_socket_paths.push_back(path);
  if (::chmod(path.c_str(), static_cast<mode_t>(state.options().unix_socket_permissions)) != 0) {
    return BindFailed(path, bound_port,
                      boost::system::error_code(errno, boost::system::system_category()));
  }
  acceptors.push_back(std::move(acceptor));
  return Status::OK();
}

Result<int> Server::Listen(const std::string& address, int port) {
  Impl& impl = *impl_;
  std::promise<Result<int>> done;
  MutexLock lock(&impl.listen_mu);
  if (impl.listener_done) return Status(ErrorCode::kShutdownInProgress, "The server has stopped");
  // On the listener's thread, which owns the acceptors.
  asio::post(impl.listener, [&impl, &done, &address, port] {
    if (impl.stopping) {
      done.set_value(Status(ErrorCode::kShutdownInProgress, "The server is shutting down"));
      return;
    }
    int bound = 0;
    Status status = address.find('/') != std::string::npos ? impl.ListenUnix(address)
                                                           : impl.ListenTcp(address, port, &bound);
    if (!status.ok()) {
      done.set_value(status);
      return;
    }
    BsonDoc attr;
    AppendUtf8(attr.get(), "address", address);
    logging::Log(logging::Severity::kInfo, "NETWORK", 23015, "listener", "Listening on",
                 attr.get());
    asio::co_spawn(impl.listener, impl.Accept(*impl.acceptors.back()), asio::detached);
    done.set_value(bound);
  });
  lock.Unlock();
  return done.get_future().get();
}

Status Server::Run(const std::function<void()>& on_listening,
                   const std::function<void()>& before_close) {
  Impl& impl = *impl_;
  const ServerOptions& options = impl.state.options();
  impl.max_connections = MaxConnections(options.max_conns, options.owns_process);
  int bound_port = options.port;
  std::vector<std::string> listening;  // what "Listening on" names, per acceptor
  for (const std::string& ip : options.bind_ips) {
    // --port 0: the first address picks the port, the others bind the same one.
    CAIRN_RETURN_IF_ERROR(impl.ListenTcp(ip, bound_port, &bound_port));
    listening.push_back(ToTcp(impl.acceptors.back()->local_endpoint()).address().to_string());
  }
  impl.bound_port = bound_port;
  // mongod's unix domain socket, <prefix>/mongodb-<port>.sock (drivers connect through it,
  // e.g. mongodb://%2Ftmp%2Fmongodb-27017.sock), and any .sock path given in --bind_ip.
  std::vector<std::string> unix_paths = options.extra_unix_sockets;
  if (options.unix_socket) {
    unix_paths.push_back(options.unix_socket_prefix + "/mongodb-" + std::to_string(bound_port) +
                         ".sock");
  }
  for (const std::string& path : unix_paths) {
    CAIRN_RETURN_IF_ERROR(impl.ListenUnix(path));
    listening.push_back(path);
  }
  // The replica set's configuration names this server by its port: known once bound.
  impl.state.repl().set_port(bound_port);
  if (Status started = impl.state.repl().Startup(); !started.ok()) return started;
  for (size_t i = 0; i < impl.acceptors.size(); ++i) {
    BsonDoc attr;
    AppendUtf8(attr.get(), "address", listening[i]);
    logging::Log(logging::Severity::kInfo, "NETWORK", 23015, "listener", "Listening on",
                 attr.get());
    asio::co_spawn(impl.listener, impl.Accept(*impl.acceptors[i]), asio::detached);
  }
  if (options.owns_process) {
    boost::system::error_code ec;
    impl.signals.add(SIGINT, ec);
    if (!ec) impl.signals.add(SIGTERM, ec);
    if (ec) return Status(ErrorCode::kInternalError, "cannot handle signals: " + ec.message());
    impl.signals.async_wait([&impl](const boost::system::error_code& ec, int) {
      if (!ec) impl.BeginShutdown();
    });
  }
  impl.ScheduleReaper();
  impl.ScheduleTransactionReaper();
  impl.ScheduleWatchdog();
  impl.state.ttl_monitor().Start();
  for (auto& loop : impl.loops) {
    loop->keep_running.emplace(asio::make_work_guard(loop->context));
    impl.StartRunner(*loop);
  }
  {
    BsonDoc attr;
    BSON_APPEND_INT32(attr.get(), "port", bound_port);
    AppendUtf8(attr.get(), "ssl", "off");
    BSON_APPEND_INT64(attr.get(), "maxConns", impl.max_connections);
    logging::Log(logging::Severity::kInfo, "NETWORK", 23016, "listener", "Waiting for connections",
                 attr.get());
  }
  if (on_listening) on_listening();

  impl.listener.run();  // until shutdown has begun and every connection has ended
  {
    MutexLock lock(&impl.listen_mu);
    impl.listener_done = true;
  }
  // A Listen posted as the loop returned: answered now (the server is stopping).
  impl.listener.restart();
  impl.listener.poll();
  impl.ReapRunners(/*all=*/true);  // each loop's runner returns once its loop is out of work

  for (const std::string& path : impl.unix_socket_paths) ::unlink(path.c_str());
  if (before_close) before_close();
  logging::Log(logging::Severity::kInfo, "STORAGE", 22261, "SignalHandler",
               "Closing the storage engine", nullptr);
  impl.state.CloseEngine();
  logging::Log(logging::Severity::kInfo, "CONTROL", 20565, "SignalHandler", "Now exiting", nullptr);
  return Status::OK();
}

}  // namespace cairn::server
