// LogicalClock implementation (see logical_clock.h).
#include "server/repl/logical_clock.h"

#include <chrono>

namespace cairn::server {

namespace {

uint64_t WallSeconds() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

Timestamp LogicalClock::Reserve(uint32_t count) {
  if (count == 0) count = 1;
  const uint64_t wall = WallSeconds() << 32;
  uint64_t current = time_.load(std::memory_order_relaxed);
  uint64_t first = 0;
  do {
    // The next increment of the clock's second, or the wall clock's second when it is ahead.
    first = current + 1 > wall ? current + 1 : wall + 1;
  } while (!time_.compare_exchange_weak(current, first + count - 1, std::memory_order_acq_rel,
                                        std::memory_order_relaxed));
  return {first};
}

void LogicalClock::AdvanceTo(Timestamp time) {
  uint64_t current = time_.load(std::memory_order_relaxed);
  while (current < time.value &&
         !time_.compare_exchange_weak(current, time.value, std::memory_order_acq_rel,
                                      std::memory_order_relaxed)) {
  }
}

}  // namespace cairn::server
