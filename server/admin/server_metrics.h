// ServerMetrics: the counters serverStatus reports beyond opcounters — asserts (commands that
// answered an error: mongod's user assertions), network (request and reply bytes, requests),
// opLatencies (time spent in reads, writes and other commands, in microseconds) and metrics'
// document, queryExecutor and operation sections (from each command's OpDebug, added at its end
// by admin/profiler.h). Each is an atomic bumped once per request: no lock, no allocation.
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

// serverStatus's transactions section and opLatencies.transactions: multi-document
// transactions begun, committed and aborted, those open now and those running a command now, and
// the time from each ended transaction's start to its end.
struct TransactionMetrics {
  std::atomic<int64_t> started{0};
  std::atomic<int64_t> committed{0};
  std::atomic<int64_t> aborted{0};
  std::atomic<int64_t> open{0};
  std::atomic<int64_t> active{0};
  LatencyTotal latency;
};

struct ServerMetrics {
  std::atomic<int64_t> user_asserts{0};  // commands answered with an error
  std::atomic<int64_t> bytes_in{0};      // request messages, header included
  std::atomic<int64_t> bytes_out{0};     // reply messages, header included
  std::atomic<int64_t> requests{0};
  LatencyTotal reads, writes, commands;  // opLatencies
  // metrics.document: documents returned by reads, and inserted, updated, deleted by writes.
  std::atomic<int64_t> docs_returned{0};
  std::atomic<int64_t> docs_inserted{0};
  std::atomic<int64_t> docs_updated{0};
  std::atomic<int64_t> docs_deleted{0};
  // metrics.queryExecutor: index keys (scanned) and documents (scannedObjects) examined, and the
  // operations whose plan scanned a whole collection.
  std::atomic<int64_t> keys_scanned{0};
  std::atomic<int64_t> objects_scanned{0};
  std::atomic<int64_t> collection_scans{0};
  // metrics.operation: operations that sorted in memory, and write conflicts met.
  std::atomic<int64_t> scan_and_order{0};
  std::atomic<int64_t> write_conflicts{0};
  TransactionMetrics transactions;

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
