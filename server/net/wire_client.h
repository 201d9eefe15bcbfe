// WireClient: the smallest client of the wire protocol, for cairnd's own command-line helpers
// (`--ping`, `--load-json`): connects to one server, sends a command as OP_MSG and reads the
// reply, every step under a deadline. Synchronous, one request at a time, no pooling, no
// authentication, no compression: nothing a driver would be needed for. Asio stays inside
// wire_client.cc (only server/net may include it).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/options.h"

namespace cairn::server {

class WireClient {
 public:
  // Connects to host:port (an IP address) within `timeout`. Errors name the address.
  static Result<std::unique_ptr<WireClient>> Connect(const std::string& host, int port,
                                                     std::chrono::milliseconds timeout);
  ~WireClient();

  // Sends `command` (it must carry $db) and returns the reply's body, whatever its ok; fails
  // when nothing (or something malformed) comes back within `timeout`.
  Result<BsonDoc> Command(BsonView command, std::chrono::milliseconds timeout);

  // "host:port", for messages.
  const std::string& address() const;

 private:
  struct Impl;
  explicit WireClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The address a client on this host reaches a server with these options at: its first bind
// address that is not a unix socket, 127.0.0.1 (or ::1) for a wildcard one.
std::string LocalServerAddress(const ServerOptions& options);

}  // namespace cairn::server
