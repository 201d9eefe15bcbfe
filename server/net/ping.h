// Ping: `cairnd --ping [--port N] [--bind_ip ...] [--config FILE]`, a health check that needs no
// shell or driver (the container image's HEALTHCHECK). It sends {hello: 1} over the wire
// protocol to the server those options describe (its first bind address; 127.0.0.1 or ::1 for a
// wildcard one) and waits up to five seconds for the reply. Exit status 0 when the server
// answers ok: 1, else 1 with the reason on standard error — Docker's and podman's convention.
#pragma once

#include <string>

#include "server/options.h"

namespace cairn::server {

inline constexpr int kPingHealthy = 0;
inline constexpr int kPingUnhealthy = 1;

// Pings the server `options` describe; on failure *error says why.
int PingServer(const ServerOptions& options, std::string* error);

}  // namespace cairn::server
