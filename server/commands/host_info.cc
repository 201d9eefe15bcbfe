// hostInfo: facts about the machine cairnd runs on (hostname, cores, memory, OS).
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "common/wall_clock.h"
#include "server/command.h"

namespace cairn::server {

CommandOutcome HandleHostInfo(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  char hostname[256] = {0};
  gethostname(hostname, sizeof hostname - 1);
  struct utsname uts;
  uname(&uts);
  struct sysinfo info;
  sysinfo(&info);
  int64_t mem_mb = static_cast<int64_t>(info.totalram) * info.mem_unit / (1024 * 1024);
  bson_t system, os, extra;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "system", &system);
  BSON_APPEND_DATE_TIME(&system, "currentTime", WallClockMillis());
  BSON_APPEND_UTF8(&system, "hostname", hostname);
  BSON_APPEND_INT32(&system, "cpuAddrSize", 64);
  BSON_APPEND_INT64(&system, "memSizeMB", mem_mb);
  BSON_APPEND_INT64(&system, "memLimitMB", mem_mb);
  BSON_APPEND_INT32(&system, "numCores", static_cast<int32_t>(std::thread::hardware_concurrency()));
  BSON_APPEND_UTF8(&system, "cpuArch", uts.machine);
  BSON_APPEND_BOOL(&system, "numaEnabled", false);
  bson_append_document_end(reply, &system);
  BSON_APPEND_DOCUMENT_BEGIN(reply, "os", &os);
  BSON_APPEND_UTF8(&os, "type", uts.sysname);
  BSON_APPEND_UTF8(&os, "name", uts.sysname);
  BSON_APPEND_UTF8(&os, "version", uts.release);
  bson_append_document_end(reply, &os);
  BSON_APPEND_DOCUMENT_BEGIN(reply, "extra", &extra);
  BSON_APPEND_UTF8(&extra, "versionString", uts.version);
  BSON_APPEND_INT64(&extra, "pageSize", sysconf(_SC_PAGESIZE));
  bson_append_document_end(reply, &extra);
  return Status::OK();
}

}  // namespace cairn::server
