// OpRegistry: the server's connections and the command each one is running, for $currentOp and
// the currentOp command (current_op.h). A connection registers on its first command (OpScope)
// and holds its entry through ConnectionInfo::op_entry; the registry keeps only weak references,
// so a closed connection's entry disappears with it. Recording a command costs one uncontended
// lock of the connection's own entry and no allocation: the command stays a view into the
// request frame, which outlives the OpScope; reports copy it under that lock. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/interrupt.h"
#include "common/mutex.h"
#include "server/admin/profile_settings.h"
#include "server/admin/session_cache.h"
#include "server/admin/top.h"
#include "server/command.h"

namespace cairn::server {

// MongoDB's "op" field: the kind of operation a command is ("query" for find, "getmore",
// "insert", "update", "remove", else "command").
std::string_view OpType(std::string_view command_name);
// The namespace MongoDB reports: "db.coll" for a command on a collection, "db.$cmd" otherwise
// (and "db.$cmd.aggregate" for a database-level aggregate).
std::string OpNamespace(std::string_view db, std::string_view command_name, BsonView command);

// One connection as $currentOp sees it. The fields under `mu` change while its commands run.
struct OpEntry {
  int64_t connection_id = 0;
  std::string client;  // "127.0.0.1:54321"
  Mutex mu;
  BsonDoc client_metadata GUARDED_BY(mu);  // the hello's "client" document, {} before it
  bool has_metadata GUARDED_BY(mu) = false;
  bool active GUARDED_BY(mu) = false;
  int64_t opid GUARDED_BY(mu) = 0;
  std::string_view db GUARDED_BY(mu);  // views into the request, valid while active
  std::string_view command_name;
  BsonView command;
  std::chrono::steady_clock::time_point started GUARDED_BY(mu);
  // What stops the running command (killOp, shutdown); null while idle.
  Interruptible* interrupt GUARDED_BY(mu) = nullptr;
};

class OpRegistry {
 public:
  std::shared_ptr<OpEntry> Register(const ConnectionInfo& connection);
  int64_t NextOpId() { return ++last_opid_; }

  // What $currentOp reports: active operations, and idle connections too when asked.
  struct ReportOptions {
    bool idle_connections = false;  // Default: false
    std::string host;               // "hostname:port"
  };
  std::vector<BsonDoc> Report(const ReportOptions& options);

  // Interrupts the running operation `opid` with `code` (killOp: Interrupted); false when no
  // operation has that id (it finished, or never was).
  bool Kill(int64_t opid, ErrorCode code);
  // Interrupts every running operation (shutdown: InterruptedAtShutdown).
  void KillAll(ErrorCode code);
  // Interrupts the running operations of these sessions (their command's lsid.id) with `code`.
  void KillSessions(const std::vector<SessionId>& sessions, ErrorCode code);

  // Commands slower than `slow_ms` are logged ("Slow query", id 51803), a `sample_rate`
  // fraction of them, as mongod's slowms and slowOpSampleRate; with -v every command is.
  void SetSlowOpThreshold(int slow_ms, double sample_rate) {
    slow_ms_.store(slow_ms, std::memory_order_relaxed);
    slow_op_sample_rate_.store(sample_rate, std::memory_order_relaxed);
  }
  int slow_ms() const { return slow_ms_.load(std::memory_order_relaxed); }
  double slow_op_sample_rate() const {
    return slow_op_sample_rate_.load(std::memory_order_relaxed);
  }

  // The per-namespace time of the commands that ended (the top command), fed by OpScope.
  Top& top() { return top_; }
  // The database profiler's level and filter per database (admin/profiler.h reads them).
  ProfileSettings& profile() { return profile_; }

 private:
  // The entries of the connections still open.
  std::vector<std::shared_ptr<OpEntry>> Live();

  Mutex mu_;
  std::vector<std::weak_ptr<OpEntry>> entries_ GUARDED_BY(mu_);  // expired ones pruned lazily
  std::atomic<int64_t> last_opid_{0};
  std::atomic<int> slow_ms_{100};                 // Default: 100 (--slowms)
  std::atomic<double> slow_op_sample_rate_{1.0};  // Default: 1.0 (--slowOpSampleRate)
  Top top_;
  ProfileSettings profile_;
};

// Marks the connection's command as running for its lifetime (RunCommand holds one around the
// handler), killable through `interrupt`, and at its end counts it in Top. (The slow-query line
// and the profiler's entry are admin/profiler.h's, which need what the command did.)
// `request` and `interrupt` must outlive the scope.
class OpScope {
 public:
  OpScope(OpRegistry& registry, ConnectionInfo& connection, const CommandRequest& request,
          Interruptible* interrupt);
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  OpRegistry& registry_;
  const ConnectionInfo& connection_;
  OpEntry* entry_;
};

}  // namespace cairn::server
