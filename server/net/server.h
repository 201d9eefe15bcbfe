// Server: the listener (acceptors, signals, the idle-cursor reaper, the I/O loops' watchdog),
// the I/O loops with their runner threads, one coroutine per connection on its own strand, and
// graceful shutdown on SIGINT/SIGTERM (stop accepting, interrupt running commands with
// InterruptedAtShutdown, let them reply, then close RocksDB). The only module that includes
// Asio. Threading model: server.cc's header comment.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "server/options.h"
#include "storage/engine.h"

namespace cairn::server {

class ServerState;

class Server {
 public:
  Server(ServerOptions options, std::unique_ptr<storage::Engine> engine);
  ~Server();

  // Binds every address, logs "Waiting for connections", and serves until a signal (when the
  // server owns its process), the shutdown command or Stop arrives. Returns when every
  // connection has ended and the engine is closed. `on_listening` runs once, when the server is
  // waiting for connections (--fork tells its parent then); `before_close` runs on Run's thread
  // after the last connection ended and before the engine closes (libcairn waits there for its
  // direct calls to leave).
  Status Run(const std::function<void()>& on_listening = {},
             const std::function<void()>& before_close = {});
  // Asks a running server to shut down (thread-safe).
  void Stop();
  // Listens on one more address once Run has called `on_listening` (thread-safe): a TCP address
  // and `port` (0: an ephemeral one), or a unix socket path (containing '/'; `port` unused).
  // Returns the TCP port bound (0 for a unix socket). libcairn serves its wire protocol so.
  Result<int> Listen(const std::string& address, int port);
  // The state the server's connections share: libcairn runs its direct calls against it too.
  ServerState& state();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn::server
