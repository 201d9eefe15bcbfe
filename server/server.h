// Server: the Asio io_context, one acceptor per --bind_ip address, one coroutine per
// connection (each on its own strand), the idle-cursor reaper, and graceful shutdown on
// SIGINT/SIGTERM (stop accepting, let in-flight commands finish and reply, then close RocksDB).
// The only module that includes Asio.
#pragma once

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
  Status Run();
  // Asks a running server to shut down (thread-safe).
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn::server
