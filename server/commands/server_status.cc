// serverStatus: host, version, process, uptime, connections, asserts, network, opLatencies,
// opcounters, memory, metrics (document, operation, queryExecutor, cursor, ttl), transactions,
// the storage engine and, in a replica set, repl and defaultRWConcern — the sections monitoring
// tools and mongosh read. Every counter counts something real.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "common/wall_clock.h"
#include "server/command.h"
#include "server/commands/hello.h"
#include "server/repl/replication_coordinator.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// Resident and virtual memory in MiB, from /proc/self/statm.
void ReadMemory(int64_t* resident_mb, int64_t* virtual_mb) {
  std::ifstream statm("/proc/self/statm");
  int64_t pages_virtual = 0, pages_resident = 0;
  statm >> pages_virtual >> pages_resident;
  int64_t page = sysconf(_SC_PAGESIZE);
  *resident_mb = pages_resident * page / (1024 * 1024);
  *virtual_mb = pages_virtual * page / (1024 * 1024);
}

}  // namespace

CommandOutcome HandleServerStatus(CommandContext& ctx, const CommandRequest& request,
                                  bson_t* reply) {
  ServerState& state = ctx.state;
  char hostname[256] = {0};
  gethostname(hostname, sizeof hostname - 1);
  auto uptime = std::chrono::steady_clock::now() - state.start_time();
  double uptime_seconds = std::chrono::duration<double>(uptime).count();
  BSON_APPEND_UTF8(reply, "host", hostname);
  BSON_APPEND_UTF8(reply, "version", CAIRN_MONGODB_VERSION);
  BSON_APPEND_UTF8(reply, "process", "cairnd");
  BSON_APPEND_INT64(reply, "pid", getpid());
  BSON_APPEND_DOUBLE(reply, "uptime", uptime_seconds);
  BSON_APPEND_INT64(reply, "uptimeMillis",
                    std::chrono::duration_cast<std::chrono::milliseconds>(uptime).count());
  BSON_APPEND_INT64(reply, "uptimeEstimate", static_cast<int64_t>(uptime_seconds));
  BSON_APPEND_DATE_TIME(reply, "localTime", WallClockMillis());

  bson_t connections;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "connections", &connections);
  BSON_APPEND_INT32(&connections, "current",
                    static_cast<int32_t>(state.current_connections.load()));
  struct rlimit limit;
  int64_t available = 1000000;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    available = static_cast<int64_t>(limit.rlim_cur) - state.current_connections.load();
  }
  BSON_APPEND_INT32(&connections, "available", static_cast<int32_t>(available));
  BSON_APPEND_INT32(&connections, "totalCreated",
                    static_cast<int32_t>(state.total_connections.load()));
  BSON_APPEND_INT32(&connections, "active", static_cast<int32_t>(state.current_connections.load()));
  bson_append_document_end(reply, &connections);

  ServerMetrics& metrics_counters = state.metrics();
  bson_t asserts;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "asserts", &asserts);
  BSON_APPEND_INT64(&asserts, "regular", 0);  // Cairn's invariants abort; none are counted
  BSON_APPEND_INT64(&asserts, "warning", 0);
  BSON_APPEND_INT64(&asserts, "msg", 0);
  BSON_APPEND_INT64(&asserts, "user", metrics_counters.user_asserts.load());
  BSON_APPEND_INT64(&asserts, "tripwire", 0);
  BSON_APPEND_INT64(&asserts, "rollovers", 0);
  bson_append_document_end(reply, &asserts);

  bson_t network;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "network", &network);
  const int64_t bytes_in = metrics_counters.bytes_in.load();
  const int64_t bytes_out = metrics_counters.bytes_out.load();
  BSON_APPEND_INT64(&network, "bytesIn", bytes_in);
  BSON_APPEND_INT64(&network, "bytesOut", bytes_out);
  BSON_APPEND_INT64(&network, "physicalBytesIn", bytes_in);  // no wire compression yet
  BSON_APPEND_INT64(&network, "physicalBytesOut", bytes_out);
  BSON_APPEND_INT64(&network, "numSlowDNSOperations", 0);  // Cairn resolves no names
  BSON_APPEND_INT64(&network, "numSlowSSLOperations", 0);  // nor speaks TLS
  BSON_APPEND_INT64(&network, "numRequests", metrics_counters.requests.load());
  bson_append_document_end(reply, &network);

  bson_t latencies;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "opLatencies", &latencies);
  for (const auto& [name, total] :
       {std::pair<const char*, const LatencyTotal*>{"reads", &metrics_counters.reads},
        {"writes", &metrics_counters.writes},
        {"commands", &metrics_counters.commands},
        {"transactions", &metrics_counters.transactions.latency}}) {
    bson_t one;
    BSON_APPEND_DOCUMENT_BEGIN(&latencies, name, &one);
    BSON_APPEND_INT64(&one, "latency", total->micros.load());
    BSON_APPEND_INT64(&one, "ops", total->ops.load());
    bson_append_document_end(&latencies, &one);
  }
  bson_append_document_end(reply, &latencies);

  bson_t opcounters;
  OpCounters& ops = state.opcounters();
  BSON_APPEND_DOCUMENT_BEGIN(reply, "opcounters", &opcounters);
  BSON_APPEND_INT64(&opcounters, "insert", ops.insert.load());
  BSON_APPEND_INT64(&opcounters, "query", ops.query.load());
  BSON_APPEND_INT64(&opcounters, "update", ops.update.load());
  BSON_APPEND_INT64(&opcounters, "delete", ops.remove.load());
  BSON_APPEND_INT64(&opcounters, "getmore", ops.getmore.load());
  BSON_APPEND_INT64(&opcounters, "command", ops.command.load());
  bson_append_document_end(reply, &opcounters);

  int64_t resident = 0, virt = 0;
  ReadMemory(&resident, &virt);
  bson_t mem;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "mem", &mem);
  BSON_APPEND_INT32(&mem, "bits", 64);
  BSON_APPEND_INT64(&mem, "resident", resident);
  BSON_APPEND_INT64(&mem, "virtual", virt);
  BSON_APPEND_BOOL(&mem, "supported", true);
  bson_append_document_end(reply, &mem);

  bson_t metrics, cursor, open;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "metrics", &metrics);
  BSON_APPEND_DOCUMENT_BEGIN(&metrics, "cursor", &cursor);
  BSON_APPEND_INT64(&cursor, "timedOut", state.cursors().timed_out_total());
  BSON_APPEND_DOCUMENT_BEGIN(&cursor, "open", &open);
  BSON_APPEND_INT64(&open, "total", static_cast<int64_t>(state.cursors().open_count()));
  bson_append_document_end(&cursor, &open);
  bson_append_document_end(&metrics, &cursor);
  bson_t document;
  BSON_APPEND_DOCUMENT_BEGIN(&metrics, "document", &document);
  BSON_APPEND_INT64(&document, "deleted", metrics_counters.docs_deleted.load());
  BSON_APPEND_INT64(&document, "inserted", metrics_counters.docs_inserted.load());
  BSON_APPEND_INT64(&document, "returned", metrics_counters.docs_returned.load());
  BSON_APPEND_INT64(&document, "updated", metrics_counters.docs_updated.load());
  bson_append_document_end(&metrics, &document);
  bson_t operation;
  BSON_APPEND_DOCUMENT_BEGIN(&metrics, "operation", &operation);
  BSON_APPEND_INT64(&operation, "scanAndOrder", metrics_counters.scan_and_order.load());
  BSON_APPEND_INT64(&operation, "writeConflicts", metrics_counters.write_conflicts.load());
  bson_append_document_end(&metrics, &operation);
  bson_t executor, scans;
  BSON_APPEND_DOCUMENT_BEGIN(&metrics, "queryExecutor", &executor);
  BSON_APPEND_INT64(&executor, "scanned", metrics_counters.keys_scanned.load());
  BSON_APPEND_INT64(&executor, "scannedObjects", metrics_counters.objects_scanned.load());
  BSON_APPEND_DOCUMENT_BEGIN(&executor, "collectionScans", &scans);
  // Cairn counts the scans of find, aggregate and the writes' plans; tailable cursors' scans
  // are not counted, so every one counted is non-tailable.
  BSON_APPEND_INT64(&scans, "nonTailable", metrics_counters.collection_scans.load());
  BSON_APPEND_INT64(&scans, "total", metrics_counters.collection_scans.load());
  bson_append_document_end(&executor, &scans);
  bson_append_document_end(&metrics, &executor);
  AppendTtlMetrics(state.ttl_monitor().metrics(), &metrics);
  bson_append_document_end(reply, &metrics);

  // Multi-document transactions. Cairn has no prepared state (a single member never prepares),
  // so those counts stay at 0, truly.
  const TransactionMetrics& txn = metrics_counters.transactions;
  bson_t transactions;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "transactions", &transactions);
  const int64_t open_now = txn.open.load();
  const int64_t active_now = std::min(txn.active.load(), open_now);
  BSON_APPEND_INT64(&transactions, "currentActive", active_now);
  BSON_APPEND_INT64(&transactions, "currentInactive", open_now - active_now);
  BSON_APPEND_INT64(&transactions, "currentOpen", open_now);
  BSON_APPEND_INT64(&transactions, "totalAborted", txn.aborted.load());
  BSON_APPEND_INT64(&transactions, "totalCommitted", txn.committed.load());
  BSON_APPEND_INT64(&transactions, "totalStarted", txn.started.load());
  BSON_APPEND_INT64(&transactions, "totalPrepared", 0);
  BSON_APPEND_INT64(&transactions, "totalPreparedThenCommitted", 0);
  BSON_APPEND_INT64(&transactions, "totalPreparedThenAborted", 0);
  BSON_APPEND_INT64(&transactions, "currentPrepared", 0);
  bson_append_document_end(reply, &transactions);

  bson_t engine;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "storageEngine", &engine);
  BSON_APPEND_UTF8(&engine, "name", "rocksdb");
  BSON_APPEND_BOOL(&engine, "supportsCommittedReads", true);
  BSON_APPEND_BOOL(&engine, "persistent", !state.options().in_memory);
  bson_append_document_end(reply, &engine);

  if (state.repl().enabled()) {
    bson_t repl;
    BSON_APPEND_DOCUMENT_BEGIN(reply, "repl", &repl);
    AppendReplStatus(state, &repl);
    bson_append_document_end(reply, &repl);
    // The cluster-wide default read and write concerns, as getDefaultRWConcern answers them.
    bson_t defaults;
    BSON_APPEND_DOCUMENT_BEGIN(reply, "defaultRWConcern", &defaults);
    RwConcernDefaults::AppendReply(*state.repl().rw_concern_defaults().current(),
                                   state.repl().primary(), /*in_memory=*/false, &defaults);
    bson_append_document_end(reply, &defaults);
  }
  return Status::OK();
}

}  // namespace cairn::server
