// OpDebug: what one command did, as mongod's OpDebug records it for the "Slow query" log line,
// the profiler's system.profile entries (admin/profiler.h) and serverStatus's metrics: the keys
// and documents its plan examined, the documents it returned or wrote, and the plan's summary.
// Handlers fill it through CommandContext::debug while they run; counts a command does not have
// stay at kAbsent and are left out of its entry, as mongod leaves them out. Plain fields: one
// command runs on one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace cairn::server {

class PlanStage;  // plan_stage.h

struct OpDebug {
  static constexpr int64_t kAbsent = -1;

  // Reads: what the plan examined, and the documents the command handed back.
  int64_t keys_examined = kAbsent;
  int64_t docs_examined = kAbsent;
  int64_t n_returned = kAbsent;
  // A cursor command: the cursor's id in the reply (0: this batch ended it: cursorExhausted).
  int64_t cursor_id = kAbsent;
  // Writes.
  int64_t n_matched = kAbsent;
  int64_t n_modified = kAbsent;
  int64_t n_upserted = kAbsent;
  int64_t n_inserted = kAbsent;
  int64_t n_deleted = kAbsent;
  // "COLLSCAN", "IXSCAN { a: 1 }", "IDHACK"...: filled only when details_wanted() said so
  // while the plan existed, since building it costs a walk and a string.
  std::string plan_summary;
  // Whether the plan scanned a collection, or sorted in memory (serverStatus's
  // queryExecutor.collectionScans and operation.scanAndOrder).
  bool collection_scan = false;
  bool scan_and_order = false;

  // Set by the dispatcher before the handler runs: when the command started, and whether its
  // details will be wanted whatever its duration (the profiler records every operation of its
  // database, or -v logs every command). Otherwise they are wanted once the command has run
  // past the slow threshold.
  std::chrono::steady_clock::time_point started;
  int slow_ms = 0;
  bool always_detail = false;

  bool details_wanted() const {
    return always_detail ||
           std::chrono::steady_clock::now() - started > std::chrono::milliseconds(slow_ms);
  }

  // What of a plan earlier commands reported (a cursor's, over its batches).
  struct PlanProgress {
    int64_t keys = 0;
    int64_t docs = 0;
    bool counted = false;  // its collection scan or in-memory sort is counted (once per plan)
  };
  // Adds what `plan` (the executed tree below a cursor or a write) examined since `progress`
  // (updated here), and records its summary when the details are wanted.
  void AddPlan(const PlanStage& plan, PlanProgress* progress);
  void AddPlan(const PlanStage& plan) {
    PlanProgress fresh;
    AddPlan(plan, &fresh);
  }
  // n += delta, where n may still be absent.
  static void Add(int64_t* n, int64_t delta) { *n = (*n == kAbsent ? 0 : *n) + delta; }
};

}  // namespace cairn::server
