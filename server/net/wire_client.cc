// WireClient (wire_client.h): a Boost.Asio socket driven by io_context::run_for, so each step
// (connect, one request and its reply) ends by its deadline even when the peer never answers.
#include "server/net/wire_client.h"

#include <boost/asio.hpp>
#include <cstring>
#include <vector>

#include "wire/message.h"

namespace cairn::server {

namespace {
namespace asio = boost::asio;

// A reply larger than any MongoDB message (48 MB) is not a reply.
constexpr size_t kMaxReplyBytes = 48 * 1024 * 1024;
constexpr size_t kHeaderBytes = 16;

}  // namespace

struct WireClient::Impl {
  asio::io_context io;
  asio::ip::tcp::socket socket{io};
  std::string address;
  int32_t next_request_id = 1;

  // Runs the io_context until `done` or the deadline; on the deadline closes the socket (the
  // client is unusable afterwards) and answers NetworkTimeout.
  Status RunUntil(const bool& done, std::chrono::milliseconds timeout, const char* what) {
    io.restart();
    io.run_for(timeout);
    if (done) return Status::OK();
    boost::system::error_code ignored;
    socket.close(ignored);
    return Status(ErrorCode::kNetworkTimeout, std::string(what) + " " + address +
                                                  ": no answer within " +
                                                  std::to_string(timeout.count()) + " ms");
  }
};

WireClient::WireClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
WireClient::~WireClient() = default;

const std::string& WireClient::address() const { return impl_->address; }

Result<std::unique_ptr<WireClient>> WireClient::Connect(const std::string& host, int port,
                                                        std::chrono::milliseconds timeout) {
  auto impl = std::make_unique<Impl>();
  impl->address = host + ":" + std::to_string(port);
  boost::system::error_code ec;
  const asio::ip::address ip = asio::ip::make_address(host, ec);
  if (ec) return Status(ErrorCode::kBadValue, "cannot connect to " + host + ": not an IP address");
  bool done = false;
  boost::system::error_code connected;
  impl->socket.async_connect(asio::ip::tcp::endpoint(ip, static_cast<uint16_t>(port)),
                             [&](const boost::system::error_code& result) {
                               connected = result;
                               done = true;
                             });
  CAIRN_RETURN_IF_ERROR(impl->RunUntil(done, timeout, "cannot connect to"));
  if (connected) {
    return Status(ErrorCode::kHostUnreachable,
                  "cannot connect to " + impl->address + ": " + connected.message());
  }
  return std::unique_ptr<WireClient>(new WireClient(std::move(impl)));
}

Result<BsonDoc> WireClient::Command(BsonView command, std::chrono::milliseconds timeout) {
  Impl& c = *impl_;
  std::string request;
  wire::AppendOpMsg(request, c.next_request_id++, /*response_to=*/0, /*flags=*/0, command,
                    /*with_checksum=*/false);
  // write, read the header, read the rest: a failed step ends the chain with `failure` set.
  std::vector<uint8_t> frame(kHeaderBytes);
  bool done = false;
  std::string failure;
  auto fail = [&](const char* what, const boost::system::error_code& failed) {
    failure = std::string(what) + " " + c.address + ": " + failed.message();
    done = true;
  };
  asio::async_write(
      c.socket, asio::buffer(request), [&](const boost::system::error_code& sent, size_t) {
        if (sent) return fail("cannot send to", sent);
        asio::async_read(
            c.socket, asio::buffer(frame), [&](const boost::system::error_code& got, size_t) {
              if (got) return fail("no reply from", got);
              int32_t length = 0;
              std::memcpy(&length, frame.data(), sizeof length);
              if (length < static_cast<int32_t>(kHeaderBytes) ||
                  static_cast<size_t>(length) > kMaxReplyBytes) {
                failure = "a malformed reply from " + c.address;
                done = true;
                return;
              }
              frame.resize(static_cast<size_t>(length));
              asio::async_read(
                  c.socket, asio::buffer(frame.data() + kHeaderBytes, frame.size() - kHeaderBytes),
                  [&](const boost::system::error_code& rest, size_t) {
                    if (rest) return fail("no reply from", rest);
                    done = true;
                  });
            });
      });
  CAIRN_RETURN_IF_ERROR(c.RunUntil(done, timeout, "no reply from"));
  if (!failure.empty()) return Status(ErrorCode::kHostUnreachable, failure);
  Result<wire::OpMsg> reply = wire::ParseOpMsg(frame.data(), frame.size());
  if (!reply.ok()) {
    return Status(ErrorCode::kHostUnreachable,
                  "a malformed reply from " + c.address + ": " + reply.status().reason());
  }
  return BsonDoc(reply->body);
}

std::string LocalServerAddress(const ServerOptions& options) {
  for (const std::string& ip : options.bind_ips) {
    if (ip.ends_with(".sock")) continue;
    if (ip == "0.0.0.0") return "127.0.0.1";
    if (ip == "::") return "::1";
    return ip;
  }
  return "127.0.0.1";
}

}  // namespace cairn::server
