// SessionCache: the logical sessions this server has seen (MongoDB's local logical session
// cache), for $listLocalSessions and endSessions. Cairn keeps no other per-session state (no
// transactions or retryable-write records yet), so a session is its id and its last use.
// Entries unused for 30 minutes (localLogicalSessionTimeoutMinutes) are dropped. Thread-safe.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include <bson/bson.h>

#include "common/bson_doc.h"
#include "common/mutex.h"

namespace cairn::server {

using SessionId = std::array<uint8_t, 16>;  // lsid.id, a UUID

// The session id of an `lsid` field ({id: UUID}); nullopt when it is not one.
std::optional<SessionId> ParseSessionId(const bson_iter_t* lsid);

class SessionCache {
 public:
  // Records a use of `id` now.
  void Touch(const SessionId& id);
  void End(const SessionId& id);

  // {_id: {id: UUID, uid: BinData(sha256 of the user, "" without authentication)}, lastUse:
  // Date} per live session, as $listLocalSessions returns them.
  std::vector<BsonDoc> List();

  // Hashes a SessionId (its UUID's bytes are already random).
  struct Hash {
    size_t operator()(const SessionId& id) const;
  };

 private:
  void DropExpiredLocked(std::chrono::system_clock::time_point now);

  Mutex mu_;
  std::unordered_map<SessionId, std::chrono::system_clock::time_point, Hash> sessions_;
  size_t touches_since_prune_ = 0;
};

}  // namespace cairn::server
