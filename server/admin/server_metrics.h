// ServerMetrics: the counters serverStatus reports beyond opcounters — asserts (commands that
// answered an error: mongod's user assertions), network (request and reply bytes, requests) and
// opLatencies (time spent in reads, writes and other commands, in microseconds). Each is an
// atomic bumped once per request: no lock, no allocation.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace cairn::server {

struct LatencyTotal {
  std::atomic<int64_t> micros{0};
  std::atomic<int64_t> ops{0};
  void Add(int64_t us) {
    micros.fetch_add(us, std::memory_order_relaxed);
    ops.fetch_add(1, std::memory_order_relaxed);
  }
};

struct ServerMetrics {
  std::atomic<int64_t> user_asserts{0};  // commands answered with an error
  std::atomic<int64_t> bytes_in{0};      // request messages, header included
  std::atomic<int64_t> bytes_out{0};     // reply messages, header included
  std::atomic<int64_t> requests{0};
  LatencyTotal reads, writes, commands;  // opLatencies

  // mongod's classes: reads are queries and getMores, writes inserts, updates and deletes.
  LatencyTotal& LatencyFor(std::string_view command) {
    if (command == "find" || command == "getMore" || command == "aggregate" || command == "count" ||
        command == "distinct") {
      return reads;
    }
    if (command == "insert" || command == "update" || command == "delete" ||
        command == "findAndModify" || command == "findandmodify") {
      return writes;
    }
    return commands;
  }
};

}  // namespace cairn::server
