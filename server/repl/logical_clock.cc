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

void AppendTimestamp(bson_t* out, const char* key, Timestamp ts) {
  bson_append_timestamp(out, key, -1, ts.seconds(), ts.increment());
}

void AppendOpTime(bson_t* out, const char* key, Timestamp ts, int64_t term) {
  bson_t optime;
  bson_append_document_begin(out, key, -1, &optime);
  AppendTimestamp(&optime, "ts", ts);
  BSON_APPEND_INT64(&optime, "t", term);
  bson_append_document_end(out, &optime);
}

Timestamp IterTimestamp(const bson_iter_t* it) {
  uint32_t seconds = 0, increment = 0;
  bson_iter_timestamp(it, &seconds, &increment);
  return Timestamp::Of(seconds, increment);
}

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
