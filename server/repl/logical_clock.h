// LogicalClock: the replica set's cluster time, MongoDB's hybrid logical clock. A Timestamp is
// (seconds, increment) packed as seconds << 32 | increment, so values compare as integers. The
// clock reserves a new, strictly greater Timestamp for every write the oplog records, never goes
// backwards (it starts above the newest Timestamp stored when the server opens) and moves forward
// with the $clusterTime that clients gossip. Thread-safe (one atomic).
#pragma once

#include <bson/bson.h>

#include <atomic>
#include <cstdint>

namespace cairn::server {

struct Timestamp {
  uint64_t value = 0;  // seconds << 32 | increment; 0 is Timestamp(0, 0), "none"

  static Timestamp Of(uint32_t seconds, uint32_t increment) {
    return {static_cast<uint64_t>(seconds) << 32 | increment};
  }
  uint32_t seconds() const { return static_cast<uint32_t>(value >> 32); }
  uint32_t increment() const { return static_cast<uint32_t>(value); }
  bool null() const { return value == 0; }
  friend bool operator==(Timestamp a, Timestamp b) { return a.value == b.value; }
  friend auto operator<=>(Timestamp a, Timestamp b) { return a.value <=> b.value; }
};

// Appends `key: Timestamp(ts)` and `key: {ts, t}` (an optime, as the oplog, hello and
// replSetGetStatus write them).
void AppendTimestamp(bson_t* out, const char* key, Timestamp ts);
void AppendOpTime(bson_t* out, const char* key, Timestamp ts, int64_t term);
// The Timestamp `it` holds (requires BSON_TYPE_TIMESTAMP).
Timestamp IterTimestamp(const bson_iter_t* it);

class LogicalClock {
 public:
  // The newest Timestamp handed out or learned (never less than any reserved so far).
  Timestamp Now() const { return {time_.load(std::memory_order_acquire)}; }

  // Reserves `count` consecutive new Timestamps and returns the first: greater than every one
  // before, with the wall clock's seconds when it is ahead of the clock.
  Timestamp Reserve(uint32_t count = 1);

  // Moves the clock forward to `time` (a gossiped $clusterTime, or the newest stored Timestamp
  // at open); never backwards.
  void AdvanceTo(Timestamp time);

 private:
  std::atomic<uint64_t> time_{0};
};

}  // namespace cairn::server
