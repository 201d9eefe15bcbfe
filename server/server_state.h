// ServerState: what every connection shares — the storage engine, the cursor manager, the
// per-collection write locks, and the counters serverStatus reports. Created once by Server,
// outlives every connection. Thread-safe: counters are atomics, the lock table has its own mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "server/capped_registry.h"
#include "server/cursor_manager.h"
#include "server/id_cache.h"
#include "server/op_registry.h"
#include "server/options.h"
#include "server/session_cache.h"
#include "server/server_parameters.h"
#include "server/ttl_monitor.h"
#include "storage/engine.h"

namespace cairn::server {

struct OpCounters {
  std::atomic<int64_t> insert{0}, query{0}, update{0}, remove{0}, getmore{0}, command{0};
};

class ServerState {
 public:
  ServerState(ServerOptions options, std::unique_ptr<storage::Engine> engine);
  ~ServerState();

  const ServerOptions& options() const { return options_; }
  storage::Engine& engine() { return *engine_; }
  CursorManager& cursors() { return cursors_; }
  OpCounters& opcounters() { return opcounters_; }
  IdCache& id_cache() { return id_cache_; }
  SessionCache& sessions() { return sessions_; }
  // The connections and their running commands ($currentOp, currentOp).
  OpRegistry& ops() { return ops_; }
  // Capped collections' oldest-record hints and insert notifications (tailable awaitData).
  CappedRegistry& capped() { return capped_; }
  // setParameter/getParameter values (--setParameter applied at construction).
  ServerParameters& parameters() { return parameters_; }
  // The TTL monitor: started by Server::Run, stopped by CloseEngine (before the engine closes).
  TtlMonitor& ttl_monitor() { return ttl_monitor_; }

  // What writers of one collection share: the lock that serialises them (dup-key check through
  // commit), and what they know under it. Keyed by the collection's prefix, which is never
  // reused, so the table only grows with collections made.
  struct CollectionWriteState {
    std::mutex lock;
    // GUARDED_BY(lock): an upper bound of the collection's _id index keys, so an insert whose
    // _id key sorts above it skips the storage probe for a duplicate. Ascending _ids (counters,
    // the ObjectIds a driver generates) always do. Writers raise it as their inserts commit;
    // removals leave it, which keeps it a bound. Unset until read from storage; empty when the
    // index is (an encoded key is never empty, so every key sorts above it).
    std::optional<std::string> id_bound;
  };
  CollectionWriteState& CollectionWrite(storage::Prefix collection);
  std::mutex& CollectionLock(storage::Prefix collection) { return CollectionWrite(collection).lock; }

  int64_t NextConnectionId() { return ++last_connection_id_; }
  std::atomic<int64_t> current_connections{0};
  std::atomic<int64_t> total_connections{0};

  std::chrono::steady_clock::time_point start_time() const { return start_; }
  std::chrono::system_clock::time_point start_wall_time() const { return start_wall_; }

  // Closes the engine (after every connection and cursor is gone).
  void CloseEngine();

 private:
  ServerOptions options_;
  std::unique_ptr<storage::Engine> engine_;
  CursorManager cursors_;
  OpCounters opcounters_;
  IdCache id_cache_;
  SessionCache sessions_;
  OpRegistry ops_;
  CappedRegistry capped_;
  ServerParameters parameters_;
  std::mutex locks_mu_;
  // GUARDED_BY(locks_mu_)
  std::unordered_map<storage::Prefix, std::unique_ptr<CollectionWriteState>> locks_;
  std::atomic<int64_t> last_connection_id_{0};
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::system_clock::time_point start_wall_ = std::chrono::system_clock::now();
  TtlMonitor ttl_monitor_{*this};  // last: its thread stops before the members above go
};

}  // namespace cairn::server
