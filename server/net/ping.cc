// Ping (ping.h): one hello over a Boost.Asio socket, the whole exchange under one deadline.
#include "server/net/ping.h"

#include <boost/asio.hpp>
#include <chrono>
#include <cstring>
#include <vector>

#include "common/bson_doc.h"
#include "wire/message.h"

namespace cairn::server {

namespace {

constexpr int kTimeoutSeconds = 5;
constexpr size_t kMaxReplyBytes = 48 * 1024 * 1024;

// The address a client on this host reaches the server at.
std::string LocalAddress(const ServerOptions& options) {
  for (const std::string& ip : options.bind_ips) {
    if (ip.ends_with(".sock")) continue;
    if (ip == "0.0.0.0") return "127.0.0.1";
    if (ip == "::") return "::1";
    return ip;
  }
  return "127.0.0.1";
}

}  // namespace

int PingServer(const ServerOptions& options, std::string* error) {
  namespace asio = boost::asio;
  const std::string host = LocalAddress(options);
  const std::string where = host + ":" + std::to_string(options.port);
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) {
    *error = "cannot ping " + host + ": not an IP address";
    return kPingUnhealthy;
  }
  BsonDoc hello;
  BSON_APPEND_INT32(hello.get(), "hello", 1);
  AppendUtf8(hello.get(), "$db", "admin");
  std::string request;
  wire::AppendOpMsg(request, /*request_id=*/1, /*response_to=*/0, /*flags=*/0, hello.view(),
                    /*with_checksum=*/false);

  // connect, write, read the header, read the rest: each step's failure ends the chain with
  // *error set; the whole chain gets kTimeoutSeconds (a server that accepts but never answers
  // is unhealthy).
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  std::vector<uint8_t> frame(16);
  bool done = false;
  auto fail = [&](const char* what, const boost::system::error_code& failed) {
    *error = std::string(what) + " " + where + ": " + failed.message();
    done = true;
  };
  socket.async_connect(
      asio::ip::tcp::endpoint(address, static_cast<uint16_t>(options.port)),
      [&](const boost::system::error_code& connected) {
        if (connected) return fail("cannot connect to", connected);
        asio::async_write(
            socket, asio::buffer(request), [&](const boost::system::error_code& sent, size_t) {
              if (sent) return fail("cannot send to", sent);
              asio::async_read(
                  socket, asio::buffer(frame), [&](const boost::system::error_code& got, size_t) {
                    if (got) return fail("no reply from", got);
                    int32_t length = 0;
                    std::memcpy(&length, frame.data(), sizeof length);
                    if (length < 16 || static_cast<size_t>(length) > kMaxReplyBytes) {
                      *error = "a malformed reply from " + where;
                      done = true;
                      return;
                    }
                    frame.resize(static_cast<size_t>(length));
                    asio::async_read(socket, asio::buffer(frame.data() + 16, frame.size() - 16),
                                     [&](const boost::system::error_code& rest, size_t) {
                                       if (rest) return fail("no reply from", rest);
                                       done = true;
                                     });
                  });
            });
      });
  io.run_for(std::chrono::seconds(kTimeoutSeconds));
  if (!done) {
    *error = "no reply from " + where + " within " + std::to_string(kTimeoutSeconds) + " s";
    return kPingUnhealthy;
  }
  if (!error->empty()) return kPingUnhealthy;
  Result<wire::OpMsg> reply = wire::ParseOpMsg(frame.data(), frame.size());
  if (!reply.ok()) {
    *error = "a malformed reply from " + where + ": " + reply.status().reason();
    return kPingUnhealthy;
  }
  bson_iter_t ok;
  if (!reply->body.Find("ok", &ok) || !BSON_ITER_HOLDS_NUMBER(&ok) ||
      bson_iter_as_double(&ok) != 1) {
    *error = where + " answered hello with an error";
    return kPingUnhealthy;
  }
  return kPingHealthy;
}

}  // namespace cairn::server
