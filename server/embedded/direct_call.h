// DirectCaller: runs a command document from the C API (cairn_command) through the dispatcher,
// as one OP_MSG request of an in-process "connection", and returns the reply document. Holds a
// few idle ConnectionInfo records so concurrent callers each get their own (a connection's
// state is single-threaded) without registering a new connection per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/mutex.h"
#include "server/command.h"
#include "server/server_state.h"

namespace cairn::embedded {

class DirectCaller {
 public:
  explicit DirectCaller(server::ServerState& state) : state_(state) {}
  ~DirectCaller();
  DirectCaller(const DirectCaller&) = delete;
  DirectCaller& operator=(const DirectCaller&) = delete;

  // Runs `command` (`size` bytes, validated by the dispatcher as a wire request is) against
  // `db` (empty: the document carries $db) and returns the complete reply document: ok: 1 or
  // MongoDB's error reply.
  std::string Call(std::string_view db, const uint8_t* command, size_t size);

 private:
  std::unique_ptr<server::ConnectionInfo> Checkout();
  void Return(std::unique_ptr<server::ConnectionInfo> connection);

  server::ServerState& state_;
  Mutex mu_;
  std::vector<std::unique_ptr<server::ConnectionInfo>> idle_ GUARDED_BY(mu_);
};

// MongoDB's error reply {ok: 0, errmsg, code, codeName} for a failure the library itself
// answers (a closed database, a request the dispatcher could not answer).
std::string ErrorReply(const Status& status);

}  // namespace cairn::embedded
