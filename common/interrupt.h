// Interruption of running operations: what stops a command at its next safe point (a
// maxTimeMS deadline, killOp, a shutdown, or the client's disconnect), and the check the
// safe points make (scans, sorts, groups, joins, index builds, expression loops).
//
// The operation is passed explicitly, never through a thread-local: a command's streams keep
// its InterruptSlot (through the query they run), and whoever pulls them — the command, a
// getMore, a read-ahead, each with its own Interruptible — points the slot at its operation for
// as long as it pulls (ScopedInterrupt). A cursor keeps its streams' slot between batches.
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

// Where the streams of one command or cursor find the operation they run under. A cursor's
// slot outlives the command that made it; each later pull (a getMore, a read-ahead) points it at
// its own operation while it pulls, from the thread that has the cursor checked out.
class InterruptSlot {
 public:
  // The operation pulling the streams now, or null (none: nothing interrupts them).
  Interruptible* op() const { return op_.load(std::memory_order_acquire); }

  // The safe point's check: OK when no operation is current or it may go on; otherwise the
  // status that must end it (MaxTimeMSExpired 50 "operation exceeded time limit", Interrupted
  // 11601 "operation was interrupted", InterruptedAtShutdown 11600 "interrupted at shutdown",
  // ClientDisconnect 279 "operation was interrupted because a client disconnected").
  Status Check() const {
    Interruptible* op = this->op();
    return op == nullptr ? Status::OK() : op->Check();
  }

 private:
  friend class ScopedInterrupt;
  // Atomic only so that a command ending (its scope clearing the slot) never races with a
  // getMore that has already taken the cursor the command registered.
  std::atomic<Interruptible*> op_{nullptr};
};

// The check through a slot that may be null (nothing interrupts the work then).
inline Status CheckInterrupt(const InterruptSlot* slot) {
  return slot == nullptr ? Status::OK() : slot->Check();
}

// Points `slot` at `op` for the scope's life, unless it already points there (a command's first
// batch, pulled inside the command's own scope); at the end clears it if it still points at
// `op` — a slot is never left pointing at an operation that has ended. A null `slot` does
// nothing.
class ScopedInterrupt {
 public:
  ScopedInterrupt(InterruptSlot* slot, Interruptible* op);
  ~ScopedInterrupt();
  ScopedInterrupt(const ScopedInterrupt&) = delete;
  ScopedInterrupt& operator=(const ScopedInterrupt&) = delete;

 private:
  InterruptSlot* slot_ = nullptr;  // null when this scope changed nothing
  Interruptible* op_;
};

}  // namespace cairn
