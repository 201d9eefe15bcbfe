// Which "host:port" names this server: the replica set member check of replSetInitiate and
// replSetReconfig (mongod's isSelf), and the member host a configuration gets when none is given.
#pragma once

#include <string>
#include <string_view>

#include "server/options.h"

namespace cairn::server {

// Whether `host_and_port` ("host:port", normalised) reaches this server: the port is ours and
// the host is one of the addresses we listen on, a loopback name or address while we listen on
// loopback or every interface, our host name, or a name that resolves to one of those.
bool IsSelf(std::string_view host_and_port, const ServerOptions& options);

// The member host for rs.initiate() without a configuration. mongod uses its host name; Cairn
// does when it listens on every interface (so other machines and containers reach it by that
// name), and otherwise the first address it listens on, since a host name that resolves to an
// address we do not listen on would leave drivers unable to reach the primary they discover.
std::string DefaultMemberHost(const ServerOptions& options);

}  // namespace cairn::server
