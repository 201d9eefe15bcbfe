// serverStatus: host, version, process, uptime, connections, opcounters, memory, cursor
// metrics and the storage engine — the sections monitoring tools and mongosh read.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "server/command.h"
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
  BSON_APPEND_DATE_TIME(reply, "localTime",
                        std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count());

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
  AppendTtlMetrics(state.ttl_monitor().metrics(), &metrics);
  bson_append_document_end(reply, &metrics);

  bson_t engine;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "storageEngine", &engine);
  BSON_APPEND_UTF8(&engine, "name", "rocksdb");
  BSON_APPEND_BOOL(&engine, "supportsCommittedReads", true);
  BSON_APPEND_BOOL(&engine, "persistent", true);
  bson_append_document_end(reply, &engine);
  return Status::OK();
}

}  // namespace cairn::server
