// Ping (ping.h): one hello through WireClient, connect and exchange within one deadline.
#include "server/net/ping.h"

#include <chrono>

#include "common/bson_doc.h"
#include "server/net/wire_client.h"

namespace cairn::server {

int PingServer(const ServerOptions& options, std::string* error) {
  using Clock = std::chrono::steady_clock;
  constexpr std::chrono::milliseconds kTimeout(5000);
  const Clock::time_point deadline = Clock::now() + kTimeout;
  auto left = [&] {
    return std::max(std::chrono::milliseconds(1),
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
  };
  auto client = WireClient::Connect(LocalServerAddress(options), options.port, kTimeout);
  if (!client.ok()) {
    *error = client.status().reason();
    return kPingUnhealthy;
  }
  BsonDoc hello;
  BSON_APPEND_INT32(hello.get(), "hello", 1);
  AppendUtf8(hello.get(), "$db", "admin");
  Result<BsonDoc> reply = (*client)->Command(hello.view(), left());
  if (!reply.ok()) {
    *error = reply.status().reason();
    return kPingUnhealthy;
  }
  bson_iter_t ok;
  if (!reply->view().Find("ok", &ok) || !BSON_ITER_HOLDS_NUMBER(&ok) ||
      bson_iter_as_double(&ok) != 1) {
    *error = (*client)->address() + " answered hello with an error";
    return kPingUnhealthy;
  }
  return kPingHealthy;
}

}  // namespace cairn::server
