// WallClockMillis: the system clock now, in milliseconds since the Unix epoch — the unit of BSON
// dates (localTime, ts, wall, updateWallClockTime). One definition for every reply and record.
#pragma once

#include <chrono>
#include <cstdint>

namespace cairn {

inline int64_t WallClockMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace cairn
