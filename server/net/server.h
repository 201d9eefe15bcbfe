// Server: the listener (acceptors, signals, the idle-cursor reaper, the I/O loops' watchdog),
// the I/O loops with their runner threads, one coroutine per connection on its own strand, and
// graceful shutdown on SIGINT/SIGTERM (stop accepting, interrupt running commands with
// InterruptedAtShutdown, let them reply, then close RocksDB). The only module that includes
// Asio. Threading model: server.cc's header comment.
#pragma once

#include <functional>
#include <memory>

#include "common/status.h"
#include "server/options.h"
#include "storage/engine.h"

namespace cairn::server {

class Server {
 public:
  Server(ServerOptions options, std::unique_ptr<storage::Engine> engine);
  ~Server();

  // Binds every address, logs "Waiting for connections", and serves until a signal (or Stop)
  // arrives. Returns when every connection has ended and the engine is closed.
  // Listens and serves until shutdown. `on_listening` runs once, when the server is waiting for
  // connections (--fork tells its parent then).
  Status Run(const std::function<void()>& on_listening = {});
  // Asks a running server to shut down (thread-safe).
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn::server
