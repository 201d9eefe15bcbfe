// IsSelf and DefaultMemberHost (see self_host.h).
#include "server/repl/self_host.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

namespace cairn::server {

namespace {

bool IsWildcard(std::string_view ip) { return ip == "0.0.0.0" || ip == "::"; }

bool IsLoopback(std::string_view ip) {
  return ip.substr(0, 4) == "127." || ip == "::1" || ip == "localhost";
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

// Every address `host` resolves to, as text.
std::vector<std::string> Resolve(const std::string& host) {
  std::vector<std::string> out;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return out;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* addr =
        a->ai_family == AF_INET
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr);
    if (inet_ntop(a->ai_family, addr, text, sizeof text) != nullptr) out.emplace_back(text);
  }
  freeaddrinfo(found);
  return out;
}

// The addresses of this machine's interfaces.
std::vector<std::string> InterfaceAddresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    int family = i->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* addr =
        family == AF_INET
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr);
    if (inet_ntop(family, addr, text, sizeof text) != nullptr) out.emplace_back(text);
  }
  freeifaddrs(list);
  return out;
}

// Whether we accept connections on `address` (an IP address as text).
bool ListensOn(std::string_view address, const ServerOptions& options) {
  for (const std::string& bound : options.bind_ips) {
    if (bound == address) return true;
    if (IsLoopback(address) && IsLoopback(bound)) return true;
    if (IsWildcard(bound)) {
      if (IsLoopback(address)) return true;
      for (const std::string& local : InterfaceAddresses()) {
        if (local == address) return true;
      }
    }
  }
  return false;
}

}  // namespace

bool IsSelf(std::string_view host_and_port, const ServerOptions& options) {
  const size_t colon = host_and_port.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::string host(host_and_port.substr(0, colon));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host_and_port.substr(colon + 1) != std::to_string(options.port)) return false;
  if (ListensOn(host, options)) return true;
  if (host == HostName()) {
    for (const std::string& bound : options.bind_ips) {
      if (IsWildcard(bound)) return true;
    }
  }
  for (const std::string& address : Resolve(host)) {
    if (ListensOn(address, options)) return true;
  }
  return false;
}

std::string DefaultMemberHost(const ServerOptions& options) {
  std::string host = options.bind_ips.empty() ? "127.0.0.1" : options.bind_ips.front();
  for (const std::string& bound : options.bind_ips) {
    if (IsWildcard(bound)) host = HostName();
  }
  if (host.find(':') != std::string::npos) host = "[" + host + "]";  // an IPv6 address
  return host + ":" + std::to_string(options.port);
}

}  // namespace cairn::server
