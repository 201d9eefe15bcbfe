// ServerState: what every connection shares — the storage engine, the cursor manager, the
// per-collection write locks, and the counters serverStatus reports. Created once by Server,
// outlives every connection. Thread-safe: counters are atomics, the lock table has its own mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "server/admin/fail_points.h"
#include "server/admin/op_registry.h"
#include "server/admin/server_metrics.h"
#include "server/admin/session_cache.h"
#include "server/capped/capped_registry.h"
#include "server/cursor/cursor_manager.h"
#include "server/exec/id_cache.h"
#include "server/options.h"
#include "server/repl/replication_coordinator.h"
#include "server/server_parameters.h"
#include "server/ttl/ttl_monitor.h"
#include "server/write/write_context.h"
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
  ServerMetrics& metrics() { return metrics_; }
  IdCache& id_cache() { return id_cache_; }
  SessionCache& sessions() { return sessions_; }
  // The connections and their running commands ($currentOp, currentOp).
  OpRegistry& ops() { return ops_; }
  // Capped collections' oldest-record hints and insert notifications (tailable awaitData).
  CappedRegistry& capped() { return capped_; }
  // setParameter/getParameter values (--setParameter applied at construction).
  ServerParameters& parameters() { return parameters_; }
  // The test failpoints configureFailPoint sets (with enableTestCommands).
  FailPoints& fail_points() { return fail_points_; }
  // The TTL monitor: started by Server::Run, stopped by CloseEngine (before the engine closes).
  TtlMonitor& ttl_monitor() { return ttl_monitor_; }

  // What the write path needs (the engine, the id cache, capped state, per-collection write
  // locks): CollectionWriter and everything that writes take this, not the ServerState.
  WriteContext& writes() { return writes_; }

  // The replica set state: standalone, uninitiated or primary; the cluster's logical clock.
  ReplicationCoordinator& repl() { return repl_; }

  int64_t NextConnectionId() { return ++last_connection_id_; }
  std::atomic<int64_t> current_connections{0};
  std::atomic<int64_t> total_connections{0};

  std::chrono::steady_clock::time_point start_time() const { return start_; }
  std::chrono::system_clock::time_point start_wall_time() const { return start_wall_; }

  // Closes the engine (after every connection and cursor is gone).
  void CloseEngine();

  // The shutdown command's way to stop the server as a signal does: the server sets `hook`
  // before it serves; RequestShutdown runs it (nothing when unset, as in tools and tests).
  void set_shutdown_hook(std::function<void()> hook) { shutdown_hook_ = std::move(hook); }
  void RequestShutdown() const {
    if (shutdown_hook_) shutdown_hook_();
  }

 private:
  std::function<void()> shutdown_hook_;
  ServerOptions options_;
  std::unique_ptr<storage::Engine> engine_;
  CursorManager cursors_;
  OpCounters opcounters_;
  IdCache id_cache_;
  SessionCache sessions_;
  OpRegistry ops_;
  ServerMetrics metrics_;
  CappedRegistry capped_;
  ServerParameters parameters_;
  FailPoints fail_points_;
  WriteContext writes_{*engine_, id_cache_, capped_};
  ReplicationCoordinator repl_{options_, writes_};
  std::atomic<int64_t> last_connection_id_{0};
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::system_clock::time_point start_wall_ = std::chrono::system_clock::now();
  TtlMonitor ttl_monitor_{writes_,
                          parameters_};  // last: its thread stops before the members above go
};

}  // namespace cairn::server
