// Interruption of running operations: what stops a command at its next safe point (a
// maxTimeMS deadline, killOp, a shutdown, or the client's disconnect), and the check the
// safe points make (scans, sorts, groups, joins, index builds, expression loops).
//
// The check is per thread: the dispatcher makes an operation current for the thread running
// it (ScopedInterrupt), and code anywhere below — query/, index/, storage callers — calls
// CheckForInterrupt() without the operation being passed down through every signature. A
// command runs on one thread from start to end, so the current operation is always its own.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "common/status.h"

namespace cairn {

class Interruptible {
 public:
  using Clock = std::chrono::steady_clock;

  Interruptible() = default;
  Interruptible(const Interruptible&) = delete;
  Interruptible& operator=(const Interruptible&) = delete;

  // Ends the operation at its next check with `code` (Interrupted 11601 for killOp,
  // InterruptedAtShutdown 11600, CursorKilled...). The first kill wins. Thread-safe.
  void Kill(ErrorCode code);

  // maxTimeMS: the check fails with MaxTimeMSExpired 50 from `deadline` on. Set before the
  // operation is made current.
  void set_deadline(Clock::time_point deadline) { deadline_ = deadline; }
  Clock::time_point deadline() const { return deadline_; }
  bool has_deadline() const { return deadline_ != Clock::time_point::max(); }

  // The client's socket: checks poll it (at most every 50 ms) and fail with ClientDisconnect
  // 279 once the peer has closed. -1 (the default): no client to watch (a read-ahead, the TTL
  // monitor).
  void set_client_socket(int fd) { client_fd_ = fd; }

  // The full check: kill, deadline, disconnect. Cheap enough for every document: one relaxed
  // load, and a clock read every 64 calls at most (more often when calls come slowly).
  Status Check();

  // Whether a kill or deadline has been reached (no disconnect poll); for loops that only need
  // to know.
  bool killed() const { return killed_.load(std::memory_order_relaxed) != 0; }

 private:
  Status KilledStatus() const;

  std::atomic<int32_t> killed_{0};  // an ErrorCode number; 0 while running
  Clock::time_point deadline_ = Clock::time_point::max();
  int client_fd_ = -1;
  uint32_t calls_ = 0;
  uint32_t calls_per_clock_read_ = 1;
  Clock::time_point last_clock_read_{};
  Clock::time_point next_poll_{};
};

// Makes `op` the calling thread's current operation for the scope's life (restoring the
// previous one after). A null `op` means none.
class ScopedInterrupt {
 public:
  explicit ScopedInterrupt(Interruptible* op);
  ~ScopedInterrupt();
  ScopedInterrupt(const ScopedInterrupt&) = delete;
  ScopedInterrupt& operator=(const ScopedInterrupt&) = delete;

 private:
  Interruptible* previous_;
};

// The calling thread's current operation, or null.
Interruptible* CurrentInterruptible();

// The check of the calling thread's current operation: OK when there is none or it may go on;
// otherwise the status that must end it (MaxTimeMSExpired 50 "operation exceeded time limit",
// Interrupted 11601 "operation was interrupted", InterruptedAtShutdown 11600 "interrupted at
// shutdown", ClientDisconnect 279 "operation was interrupted because a client disconnected").
Status CheckForInterrupt();

}  // namespace cairn
