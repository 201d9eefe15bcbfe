// mongod-shaped JSON log lines through spdlog, plus the in-memory ring getLog reads.
#include "common/logging.h"
#include "common/mutex.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <deque>
#include <mutex>

namespace cairn::logging {

namespace {

constexpr size_t kRecentLines = 1024;  // getLog "global" keeps this many, as mongod's ramlog does

struct LogState {
  Mutex mu;
  std::shared_ptr<spdlog::logger> logger;
  bool quiet = false;
  std::atomic<int> verbosity{0};
  std::atomic<bool> local_time{false};
  std::deque<std::string> recent;
  std::vector<std::string> startup_warnings;
};

LogState& State() {
  static LogState* state = new LogState();
  return *state;
}

void AppendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

// mongod's iso8601-utc ("…+00:00") or iso8601-local (the local offset, "…+01:00").
std::string TimestampNow() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm;
  long offset_minutes = 0;
  if (State().local_time.load(std::memory_order_relaxed)) {
    localtime_r(&secs, &tm);
    offset_minutes = tm.tm_gmtoff / 60;
  } else {
    gmtime_r(&secs, &tm);
  }
  const char sign = offset_minutes < 0 ? '-' : '+';
  if (offset_minutes < 0) offset_minutes = -offset_minutes;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%c%02ld:%02ld",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000), sign, offset_minutes / 60, offset_minutes % 60);
  return buf;
}

// Without --logappend an existing log file is moved aside to <path>.<UTC time>, as mongod's
// startup log rotation names it (mongod.log.2026-11-29T08-39-50).
bool RenameExistingLog(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return true;
  std::time_t secs = std::time(nullptr);
  std::tm tm;
  gmtime_r(&secs, &tm);
  char suffix[32];
  std::strftime(suffix, sizeof suffix, ".%Y-%m-%dT%H-%M-%S", &tm);
  return std::rename(path.c_str(), (path + suffix).c_str()) == 0;
}

std::string FormatLine(Severity severity, std::string_view component, int id, std::string_view ctx,
                       std::string_view msg, const bson_t* attr, int debug_level = 1) {
  std::string line;
  line.reserve(160);
  line += "{\"t\":{\"$date\":\"";
  line += TimestampNow();
  line += "\"},\"s\":\"";
  line += static_cast<char>(severity);
  if (severity == Severity::kDebug) line += static_cast<char>('0' + debug_level);
  line += "\",\"c\":";
  AppendJsonString(line, component);
  line += ",\"id\":";
  line += std::to_string(id);
  line += ",\"ctx\":";
  AppendJsonString(line, ctx);
  line += ",\"msg\":";
  AppendJsonString(line, msg);
  if (attr != nullptr && !bson_empty(attr)) {
    size_t len = 0;
    char* json = bson_as_relaxed_extended_json(attr, &len);
    if (json != nullptr) {
      line += ",\"attr\":";
      line.append(json, len);
      bson_free(json);
    }
  }
  line += '}';
  return line;
}

}  // namespace

bool Init(const LogOptions& options, std::string* error) {
  LogState& state = State();
  MutexLock lock(&state.mu);
  std::shared_ptr<spdlog::logger> logger;
  if (options.path.empty()) {
    logger = std::make_shared<spdlog::logger>("cairn",
                                              std::make_shared<spdlog::sinks::stdout_sink_mt>());
  } else {
    if (!options.append && !RenameExistingLog(options.path)) {
      *error = "cannot rename the existing log file " + options.path;
      return false;
    }
    try {
      logger = std::make_shared<spdlog::logger>(
          "cairn", std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.path, false));
    } catch (const spdlog::spdlog_ex& e) {
      *error = std::string("cannot open the log file: ") + e.what();
      return false;
    }
  }
  logger->set_pattern("%v");
  logger->set_level(spdlog::level::trace);
  logger->flush_on(spdlog::level::trace);
  state.logger = std::move(logger);
  state.quiet = options.quiet;
  SetGlobalVerbosity(options.verbosity);
  state.local_time.store(options.local_time, std::memory_order_relaxed);
  return true;
}

void Shutdown() {
  LogState& state = State();
  MutexLock lock(&state.mu);
  if (state.logger) state.logger->flush();
}

bool Quiet() { return State().quiet; }

namespace {

// mongod 7.0's components (src/mongo/logv2/log_component.h), parents before children.
constexpr std::string_view kComponents[] = {"accessControl",
                                            "assert",
                                            "command",
                                            "control",
                                            "executor",
                                            "geo",
                                            "globalIndex",
                                            "index",
                                            "network",
                                            "network.connectionPool",
                                            "processHealth",
                                            "query",
                                            "queryStats",
                                            "replication",
                                            "replication.election",
                                            "replication.heartbeats",
                                            "replication.initialSync",
                                            "replication.rollback",
                                            "sharding",
                                            "sharding.rangeDeleter",
                                            "sharding.shardingCatalogRefresh",
                                            "sharding.migration",
                                            "storage",
                                            "storage.recovery",
                                            "storage.journal",
                                            "storage.wt",
                                            "write",
                                            "ftdc",
                                            "tracking",
                                            "transaction",
                                            "tenantMigration",
                                            "test",
                                            "resourceConsumption"};
constexpr size_t kComponentCount = sizeof(kComponents) / sizeof(kComponents[0]);

std::atomic<int>* ComponentLevels() {
  static std::atomic<int>* levels = [] {
    auto* out = new std::atomic<int>[kComponentCount];
    for (size_t i = 0; i < kComponentCount; ++i) out[i].store(-1);
    return out;
  }();
  return levels;
}

int FindComponent(std::string_view component) {
  for (size_t i = 0; i < kComponentCount; ++i) {
    if (kComponents[i] == component) return static_cast<int>(i);
  }
  return -1;
}

// The highest verbosity set anywhere (global or a component): DebugEnabled's answer is "no"
// without walking the components when it is below the level asked, as it is for every
// command's end in the slow-operation check unless someone raised a level.
std::atomic<int> g_highest_level{0};

void RecomputeHighestLevel() {
  int highest = State().verbosity.load(std::memory_order_relaxed);
  for (size_t i = 0; i < kComponentCount; ++i) {
    highest = std::max(highest, ComponentLevels()[i].load(std::memory_order_relaxed));
  }
  g_highest_level.store(highest, std::memory_order_relaxed);
}

// The verbosity that applies to `component`: its own, else its nearest parent's, else global.
int EffectiveVerbosity(std::string_view component) {
  while (!component.empty()) {
    const int i = FindComponent(component);
    if (i >= 0) {
      const int level = ComponentLevels()[i].load(std::memory_order_relaxed);
      if (level >= 0) return level;
    }
    const size_t dot = component.rfind('.');
    component = dot == std::string_view::npos ? std::string_view() : component.substr(0, dot);
  }
  return State().verbosity.load(std::memory_order_relaxed);
}

}  // namespace

bool DebugEnabled(int level, std::string_view component) {
  if (g_highest_level.load(std::memory_order_relaxed) < level) return false;
  return EffectiveVerbosity(component) >= level;
}

const std::vector<std::string_view>& LogComponents() {
  static const std::vector<std::string_view> components(kComponents, kComponents + kComponentCount);
  return components;
}

int GlobalVerbosity() { return State().verbosity.load(std::memory_order_relaxed); }

void SetGlobalVerbosity(int level) {
  State().verbosity.store(level, std::memory_order_relaxed);
  RecomputeHighestLevel();
}

bool ComponentVerbosity(std::string_view component, int* level) {
  const int i = FindComponent(component);
  if (i < 0) return false;
  *level = ComponentLevels()[i].load(std::memory_order_relaxed);
  return true;
}

bool SetComponentVerbosity(std::string_view component, int level) {
  const int i = FindComponent(component);
  if (i < 0) return false;
  ComponentLevels()[i].store(level < 0 ? -1 : level, std::memory_order_relaxed);
  RecomputeHighestLevel();
  return true;
}

namespace {

void Write(std::string line) {
  LogState& state = State();
  MutexLock lock(&state.mu);
  if (!state.logger) {
    state.logger = std::make_shared<spdlog::logger>(
        "cairn", std::make_shared<spdlog::sinks::stdout_sink_mt>());
    state.logger->set_pattern("%v");
    state.logger->flush_on(spdlog::level::trace);
  }
  state.logger->info(line);
  state.recent.push_back(std::move(line));
  if (state.recent.size() > kRecentLines) state.recent.pop_front();
}

}  // namespace

void Log(Severity severity, std::string_view component, int id, std::string_view ctx,
         std::string_view msg, const bson_t* attr) {
  Write(FormatLine(severity, component, id, ctx, msg, attr));
}

void LogDebug(int level, std::string_view component, int id, std::string_view ctx,
              std::string_view msg, const bson_t* attr) {
  if (!DebugEnabled(level)) return;
  Write(FormatLine(Severity::kDebug, component, id, ctx, msg, attr, level));
}

std::vector<std::string> RecentLines() {
  LogState& state = State();
  MutexLock lock(&state.mu);
  return std::vector<std::string>(state.recent.begin(), state.recent.end());
}

std::vector<std::string> StartupWarnings() {
  LogState& state = State();
  MutexLock lock(&state.mu);
  return state.startup_warnings;
}

void AddStartupWarning(std::string_view component, int id, std::string_view msg) {
  std::string line = FormatLine(Severity::kWarning, component, id, "initandlisten", msg, nullptr);
  LogState& state = State();
  MutexLock lock(&state.mu);
  state.startup_warnings.push_back(line);
}

}  // namespace cairn::logging
