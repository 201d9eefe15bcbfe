// Interruptible, and the slot its streams find it in (interrupt.h).
#include "common/interrupt.h"

#include <poll.h>

namespace cairn {

namespace {

// How often a running operation looks at the clock: every kMaxCallsPerClockRead checks while
// checks come fast (a scan checks every ~100 ns), down to every check when they come slowly
// (each document costing milliseconds of expression work), so a deadline is noticed within
// about a millisecond of work either way. And how often it polls its client.
constexpr uint32_t kMaxCallsPerClockRead = 64;
constexpr auto kSlowChecks = std::chrono::milliseconds(1);
constexpr auto kFastChecks = std::chrono::microseconds(100);
constexpr auto kClientPollInterval = std::chrono::milliseconds(50);

// Whether the peer of `fd` has closed or reset the connection. Bytes waiting (a pipelined
// request) are not a disconnect.
bool PeerClosed(int fd) {
  struct pollfd p = {fd, POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

}  // namespace

void Interruptible::Kill(ErrorCode code) {
  int32_t expected = 0;
  killed_.compare_exchange_strong(expected, static_cast<int32_t>(code), std::memory_order_relaxed);
}

Status Interruptible::KilledStatus() const {
  const auto code = static_cast<ErrorCode>(killed_.load(std::memory_order_relaxed));
  switch (code) {
    case ErrorCode::kMaxTimeMSExpired:
      return Status(code, "operation exceeded time limit");
    case ErrorCode::kInterruptedAtShutdown:
      return Status(code, "interrupted at shutdown");
    case ErrorCode::kClientDisconnect:
      return Status(code, "operation was interrupted because a client disconnected");
    default:
      return Status(code, "operation was interrupted");
  }
}

Status Interruptible::Check() {
  if (killed_.load(std::memory_order_relaxed) != 0) return KilledStatus();
  if (!has_deadline() && client_fd_ < 0) return Status::OK();
  if (++calls_ < calls_per_clock_read_) return Status::OK();
  calls_ = 0;
  const Clock::time_point now = Clock::now();
  const auto since = now - last_clock_read_;
  last_clock_read_ = now;
  if (since > kSlowChecks) {
    calls_per_clock_read_ = 1;
  } else if (since < kFastChecks && calls_per_clock_read_ < kMaxCallsPerClockRead) {
    calls_per_clock_read_ *= 2;
  }
  if (now >= deadline_) {
    Kill(ErrorCode::kMaxTimeMSExpired);
    return KilledStatus();
  }
  if (client_fd_ >= 0 && now >= next_poll_) {
    next_poll_ = now + kClientPollInterval;
    if (PeerClosed(client_fd_)) {
      Kill(ErrorCode::kClientDisconnect);
      return KilledStatus();
    }
  }
  return Status::OK();
}

ScopedInterrupt::ScopedInterrupt(InterruptSlot* slot, Interruptible* op) : op_(op) {
  if (slot == nullptr || op == nullptr || slot->op() == op) return;
  slot->op_.store(op, std::memory_order_release);
  slot_ = slot;
}

ScopedInterrupt::~ScopedInterrupt() {
  if (slot_ == nullptr) return;
  Interruptible* expected = op_;
  slot_->op_.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel);
}

}  // namespace cairn
