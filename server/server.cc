// Server: acceptors, connection coroutines, cursor reaper, signals and shutdown.
//
// Threading: one io_context per I/O thread, each run by exactly that thread; a connection is
// placed on one context (round robin) and lives there, so its coroutine needs no strand and a
// request never hops threads. (One shared io_context run by two threads spent most of its time
// waking threads through condition variables: measured with perf under 8 connections.)
#include "server/server.h"

#include <boost/asio.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/logging.h"
#include "server/cursor_batch.h"
#include "server/dispatcher.h"
#include "server/server_state.h"

namespace cairn::server {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {
// Receive buffers above this are released after the message instead of kept for reuse (requests
// are small but for bulk inserts; replies have their own rule: reply_buffer.h).
constexpr size_t kKeepBufferBytes = 1 << 20;

// async_write's completion condition: hand the kernel everything left in one send. Asio's
// default (transfer_all) sends at most 64 KiB per call, so a 4 MiB reply took 64 sends, each
// followed by a trip through the event loop (seen with strace on a scan).
size_t WholeBufferWrites(const boost::system::error_code& ec, size_t /*transferred*/) {
  return ec ? 0 : std::numeric_limits<size_t>::max();
}
}  // namespace

struct Server::Impl {
  // One live connection: its socket (and so its context), for shutdown. `busy` and `closing` are
  // read and written on the connection's context only.
  struct Session {
    tcp::socket socket;
    bool busy = false;
    bool closing = false;
    // The timer of an awaitData getMore waiting for an insert (shutdown ends the wait early).
    std::shared_ptr<asio::steady_timer> await_timer;
    explicit Session(tcp::socket s) : socket(std::move(s)) {}
  };

  Impl(ServerOptions options, std::unique_ptr<storage::Engine> engine)
      : contexts(MakeContexts(options.io_threads)),
        io(*contexts[0]),
        state(std::move(options), std::move(engine)),
        signals(io, SIGINT, SIGTERM),
        reaper(io) {}

  static std::vector<std::unique_ptr<asio::io_context>> MakeContexts(int n) {
    std::vector<std::unique_ptr<asio::io_context>> out;
    for (int i = 0; i < std::max(1, n); ++i) out.push_back(std::make_unique<asio::io_context>(1));
    return out;
  }

  // The context for the next connection (round robin).
  asio::io_context& NextContext() { return *contexts[next_context++ % contexts.size()]; }

  std::vector<std::unique_ptr<asio::io_context>> contexts;
  asio::io_context& io;  // contexts[0]: acceptors, signals, the reaper
  std::atomic<size_t> next_context{0};
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
  ServerState state;
  asio::signal_set signals;
  asio::steady_timer reaper;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
  std::mutex sessions_mu;
  std::unordered_map<int64_t, std::shared_ptr<Session>> sessions;  // GUARDED_BY(sessions_mu)
  std::atomic<bool> stopping{false};

  // A cursor's next batch being read ahead on another I/O thread while its connection sends;
  // `done` (on the connection's executor) is cancelled when it has finished.
  struct ReadAheadJob {
    ReadAheadJob(asio::any_io_executor executor, std::unique_ptr<Cursor> c)
        : cursor(std::move(c)), done(executor, std::chrono::steady_clock::time_point::max()) {}
    std::unique_ptr<Cursor> cursor;
    asio::steady_timer done;
    bool finished = false;  // read and written on the connection's thread only
  };
  // Another I/O thread's context than the one running `own`; null with a single I/O thread.
  asio::io_context* HelperContext(const asio::any_io_executor& own) {
    if (contexts.size() < 2) return nullptr;
    for (size_t i = 0; i < contexts.size(); ++i) {
      if (&asio::query(own, asio::execution::context) == contexts[i].get()) {
        return contexts[(i + 1) % contexts.size()].get();
      }
    }
    return nullptr;
  }

  asio::awaitable<void> Accept(tcp::acceptor& acceptor);
  asio::awaitable<void> Serve(std::shared_ptr<Session> session, int64_t id);
  // Suspends the connection until an insert into the awaited capped collection commits or the
  // await deadline passes (tailable awaitData getMore; tailable_cursor.h).
  asio::awaitable<void> AwaitInsert(Session& session, const ConnectionInfo::AwaitData& await);
  void ScheduleReaper();
  void BeginShutdown();
};

asio::awaitable<void> Server::Impl::Accept(tcp::acceptor& acceptor) {
  for (;;) {
    // The connection lives on one single-threaded context: its coroutine never runs on two
    // threads, and needs no strand.
    asio::io_context& context = NextContext();
    tcp::socket socket(context);
    boost::system::error_code ec;
    co_await acceptor.async_accept(socket, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (stopping || ec == asio::error::operation_aborted) co_return;
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    int64_t id = state.NextConnectionId();
    auto session = std::make_shared<Session>(std::move(socket));
    {
      std::lock_guard<std::mutex> lock(sessions_mu);
      sessions.emplace(id, session);
    }
    asio::co_spawn(context, Serve(session, id), asio::detached);
  }
}

asio::awaitable<void> Server::Impl::Serve(std::shared_ptr<Session> session, int64_t id) {
  ConnectionInfo info;
  info.id = id;
  boost::system::error_code ec;
  auto remote = session->socket.remote_endpoint(ec);
  if (!ec) info.remote = remote.address().to_string() + ":" + std::to_string(remote.port());
  auto local = session->socket.local_endpoint(ec);
  if (!ec) info.local = local.address().to_string() + ":" + std::to_string(local.port());
  int64_t count = ++state.current_connections;
  ++state.total_connections;
  // The I/O thread that reads ahead for this connection's cursors. The guard keeps it running
  // while the connection lives: at shutdown a thread whose own connections have ended would
  // otherwise return and leave a read-ahead posted to it undone, and this connection waiting.
  asio::io_context* helper = HelperContext(session->socket.get_executor());
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

  std::vector<uint8_t> frame;
  ReplyBuffer out;
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
    size_t length = static_cast<size_t>(header->message_length);
    frame.resize(length);
    std::memcpy(frame.data(), header_bytes, wire::kHeaderSize);
    if (length > wire::kHeaderSize) {
      co_await asio::async_read(session->socket,
                                asio::buffer(frame.data() + wire::kHeaderSize,
                                             length - wire::kHeaderSize),
                                asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
    }
    session->busy = true;
    DispatchAction action = Dispatch(state, info, header.value(), frame.data(), frame.size(), &out);
    while (info.await_data.active && action == DispatchAction::kReply && !session->closing) {
      // Nothing new for an awaitData cursor: wait for an insert, then run the getMore again.
      co_await AwaitInsert(*session, info.await_data);
      info.await_data.active = false;
      info.await_data.retry = true;
      out.Reset(kKeepReplyBytes);
      action = Dispatch(state, info, header.value(), frame.data(), frame.size(), &out);
    }
    info.await_data = ConnectionInfo::AwaitData();
    if (action == DispatchAction::kClose) break;
    // The next batch of a cursor is read ahead while the reply is sent: on another I/O thread
    // when there is one, so the send (for a 1 MiB batch, ~20% of a scan's server time: the
    // copy and the loopback TCP path) and the reading overlap; otherwise after the send.
    std::unique_ptr<Cursor> read_ahead;
    if (info.read_ahead_cursor != 0) {
      int64_t cursor_id = std::exchange(info.read_ahead_cursor, 0);
      // Only when no request is already waiting: a read-ahead must never delay one.
      boost::system::error_code pending_error;
      if (session->socket.available(pending_error) == 0 && !pending_error) {
        read_ahead = state.cursors().TryCheckOut(cursor_id);
      }
    }
    std::shared_ptr<ReadAheadJob> job;
    if (read_ahead && helper != nullptr && action == DispatchAction::kReply) {
      job = std::make_shared<ReadAheadJob>(session->socket.get_executor(), std::move(read_ahead));
      asio::post(*helper, [job] {
        ReadAhead(*job->cursor);
        // Back on the connection's own thread, which alone reads `finished`.
        asio::post(job->done.get_executor(), [job] {
          job->finished = true;
          job->done.cancel();
        });
      });
    }
    if (action == DispatchAction::kReply) {
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
      ReadAhead(*read_ahead);
    }
    if (read_ahead) state.cursors().CheckIn(std::move(read_ahead));
    if (ec) break;
    out.Reset(kKeepReplyBytes);
    session->busy = false;
    if (frame.capacity() > kKeepBufferBytes) std::vector<uint8_t>().swap(frame);
  }
  session->socket.close(ec);
  {
    std::lock_guard<std::mutex> lock(sessions_mu);
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

asio::awaitable<void> Server::Impl::AwaitInsert(Session& session,
                                                const ConnectionInfo::AwaitData& await) {
  auto timer = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor);
  timer->expires_at(await.deadline);
  CappedRegistry::WaiterHandle waiter;
  // The committing thread only posts the cancel to this connection's own context.
  bool registered = state.capped().Register(
      await.collection, await.version,
      [timer] { asio::post(timer->get_executor(), [timer] { timer->cancel(); }); }, &waiter);
  if (!registered) co_return;  // an insert committed since the getMore looked
  boost::system::error_code ec;
  session.await_timer = timer;
  co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  session.await_timer.reset();
  state.capped().Unregister(waiter);
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
      logging::Log(logging::Severity::kInfo, "QUERY", 20529, "clientcursormon",
                   "Cursors timed out", attr.get());
    }
    ScheduleReaper();
  });
}

void Server::Impl::BeginShutdown() {
  if (stopping.exchange(true)) return;
  logging::Log(logging::Severity::kInfo, "CONTROL", 23377, "SignalHandler",
               "Received signal: shutting down", nullptr);
  boost::system::error_code ec;
  for (auto& acceptor : acceptors) acceptor->close(ec);
  reaper.cancel();
  signals.cancel();
  keep_running.clear();  // each context's run() returns once its connections have ended
  std::lock_guard<std::mutex> lock(sessions_mu);
  for (auto& [id, session] : sessions) {
    // Close on the session's own context: an in-flight command finishes and replies first.
    asio::post(session->socket.get_executor(), [session] {
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

void Server::Stop() {
  asio::post(impl_->io, [this] { impl_->BeginShutdown(); });
}

Status Server::Run() {
  Impl& impl = *impl_;
  const ServerOptions& options = impl.state.options();
  int bound_port = options.port;
  for (const std::string& ip : options.bind_ips) {
    boost::system::error_code ec;
    auto address = asio::ip::make_address(ip, ec);
    if (ec) return Status(ErrorCode::kBadValue, "invalid --bind_ip address: " + ip);
    auto acceptor = std::make_unique<tcp::acceptor>(impl.io);
    tcp::endpoint endpoint(address, static_cast<unsigned short>(bound_port));
    acceptor->open(endpoint.protocol(), ec);
    if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      BsonDoc attr;
      AppendUtf8(attr.get(), "error", ec.message());
      AppendUtf8(attr.get(), "address", ip);
      BSON_APPEND_INT32(attr.get(), "port", bound_port);
      logging::Log(logging::Severity::kError, "NETWORK", 23024, "initandlisten",
                   "Failed to bind: " + ec.message(), attr.get());
      return Status(ErrorCode::kInternalError,
                    "cannot listen on " + ip + ":" + std::to_string(bound_port) + ": " + ec.message());
    }
    if (bound_port == 0) bound_port = acceptor->local_endpoint().port();  // --port 0: one port for all
    impl.acceptors.push_back(std::move(acceptor));
  }
  for (auto& acceptor : impl.acceptors) {
    BsonDoc attr;
    AppendUtf8(attr.get(), "address", acceptor->local_endpoint().address().to_string());
    logging::Log(logging::Severity::kInfo, "NETWORK", 23015, "listener", "Listening on",
                 attr.get());
    asio::co_spawn(impl.io, impl.Accept(*acceptor), asio::detached);
  }
  impl.signals.async_wait([&impl](const boost::system::error_code& ec, int) {
    if (!ec) impl.BeginShutdown();
  });
  impl.ScheduleReaper();
  impl.state.ttl_monitor().Start();
  {
    BsonDoc attr;
    BSON_APPEND_INT32(attr.get(), "port", bound_port);
    AppendUtf8(attr.get(), "ssl", "off");
    logging::Log(logging::Severity::kInfo, "NETWORK", 23016, "listener", "Waiting for connections",
                 attr.get());
  }

  for (auto& context : impl.contexts) impl.keep_running.push_back(asio::make_work_guard(*context));
  std::vector<std::thread> threads;
  for (size_t i = 1; i < impl.contexts.size(); ++i) {
    threads.emplace_back([&impl, i] { impl.contexts[i]->run(); });
  }
  impl.io.run();
  for (auto& t : threads) t.join();

  logging::Log(logging::Severity::kInfo, "STORAGE", 22261, "SignalHandler",
               "Closing the storage engine", nullptr);
  impl.state.CloseEngine();
  logging::Log(logging::Severity::kInfo, "CONTROL", 20565, "SignalHandler", "Now exiting",
               nullptr);
  return Status::OK();
}

}  // namespace cairn::server
