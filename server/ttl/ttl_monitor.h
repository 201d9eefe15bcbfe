// TtlMonitor: MongoDB's TTL monitor. A background thread that every ttlMonitorSleepSecs
// (ServerParameters) walks every collection's TTL indexes and deletes the documents whose indexed
// date (for an array, its earliest date) is at or before now - expireAfterSeconds, through
// CollectionWriter (every index and cache stays exact; one atomic write per batch). Expired
// documents are found by a range scan of the TTL index itself, [Date(min), cutoff], never a
// collection scan; values that are not dates never fall in that range, so never expire. Hidden
// indexes expire documents too (hiding only affects the planner: SERVER-49160, works as designed).
// Also its serverStatus counters (metrics.ttl). Owned by ServerState; Start/Stop by the Server.
// Thread-safe: counters are atomics, Start/Stop/Wake may be called from any thread.
#pragma once

#include <bson/bson.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "common/mutex.h"
#include "common/status.h"

namespace cairn::server {

struct ServerParameters;  // server/server_parameters.h
class WriteContext;       // server/write/write_context.h

// serverStatus metrics.ttl (MongoDB 7.0: passes, subPasses, deletedDocuments).
struct TtlMetrics {
  std::atomic<int64_t> passes{0};
  std::atomic<int64_t> sub_passes{0};
  std::atomic<int64_t> deleted_documents{0};
};

// Appends {ttl: {deletedDocuments, passes, subPasses}} (NumberLongs) to serverStatus's metrics.
void AppendTtlMetrics(const TtlMetrics& metrics, bson_t* out);

class TtlMonitor {
 public:
  // Deletes through `writes`; reads ttlMonitorSleepSecs and ttlMonitorEnabled from `parameters`.
  TtlMonitor(WriteContext& writes, const ServerParameters& parameters)
      : writes_(writes), parameters_(parameters) {}
  ~TtlMonitor() { Stop(); }
  TtlMonitor(const TtlMonitor&) = delete;
  TtlMonitor& operator=(const TtlMonitor&) = delete;

  // Starts the thread (once). Its first pass comes ttlMonitorSleepSecs after the start.
  void Start();
  // Asks the thread to stop (a pass in progress stops after its current batch) and joins it.
  // Idempotent; the monitor cannot be restarted.
  void Stop();
  // Recomputes the current sleep's deadline (ttlMonitorSleepSecs changed).
  void Wake();

  // One pass over every TTL index of every collection, with `now` as the clock. Counts
  // passes/subPasses/deletedDocuments. Errors on one index are logged and the pass goes on.
  void RunPass(std::chrono::system_clock::time_point now);

  const TtlMetrics& metrics() const { return metrics_; }

 private:
  void Loop();
  // Deletes the expired documents of one TTL index, in batches. Returns how many it deleted.
  Result<int64_t> ExpireWithIndex(const std::string& ns, const std::string& index_name,
                                  std::chrono::system_clock::time_point now);

  WriteContext& writes_;
  const ServerParameters& parameters_;
  TtlMetrics metrics_;
  Mutex mu_;
  CondVar cv_{&mu_};
  bool stopping_ GUARDED_BY(mu_) = false;
  uint64_t wakes_ GUARDED_BY(mu_) = 0;  // bumped by Wake()
  std::atomic<bool> stop_requested_{false};
  std::thread thread_;
};

}  // namespace cairn::server
