// Logging in mongod's structured JSON shape, one object per line:
// {"t":{"$date":"…"},"s":"I","c":"NETWORK","id":23016,"ctx":"listener","msg":"…","attr":{…}}
// Backed by one spdlog logger (stdout, or --logpath). Thread-safe.
#pragma once

#include <bson/bson.h>

#include <string>
#include <string_view>
#include <vector>

namespace cairn::logging {

enum class Severity : char {
  kDebug = 'D',
  kInfo = 'I',
  kWarning = 'W',
  kError = 'E',
  kFatal = 'F'
};

struct LogOptions {
  std::string path;    // Default: "" (standard output)
  bool quiet = false;  // Default: false. Quiet drops connection accept/end chatter (like mongod).
  // Default: false: an existing log file is renamed to <path>.<timestamp> at start, as mongod
  // does; true (--logappend) appends to it.
  bool append = false;
  bool local_time = false;  // Default: false (UTC); true: --timeStampFormat iso8601-local
  int verbosity = 0;        // Default: 0; -v .. -vvvvv: debug lines D1 .. D5 are written
};

// Sets up the global logger. Safe to call more than once (tests); the last call wins. False,
// with `error` set, when the log file cannot be moved aside or opened.
bool Init(const LogOptions& options, std::string* error);
// Flushes and closes the log file (before exit).
void Shutdown();
bool Quiet();
// Whether debug lines of `level` (1..5) are written (-v, -vv, ...): for `component` (a
// logComponentVerbosity path such as "command" or "replication.election"), its own verbosity,
// else its parent's, else the global one.
bool DebugEnabled(int level, std::string_view component = {});

// mongod's log components (logComponentVerbosity), parents before their children, as dotted
// paths: "accessControl", "command", "replication", "replication.election", ...
const std::vector<std::string_view>& LogComponents();
// The global verbosity (logLevel, -v), 0..5.
int GlobalVerbosity();
void SetGlobalVerbosity(int level);
// A component's own verbosity: -1 when it inherits. False when there is no such component.
bool ComponentVerbosity(std::string_view component, int* level);
bool SetComponentVerbosity(std::string_view component, int level);

// Writes one log line. `attr` (may be null) becomes the "attr" object in relaxed Extended JSON.
void Log(Severity severity, std::string_view component, int id, std::string_view ctx,
         std::string_view msg, const bson_t* attr = nullptr);
// Writes one debug line ("s":"D<level>") when DebugEnabled(level).
void LogDebug(int level, std::string_view component, int id, std::string_view ctx,
              std::string_view msg, const bson_t* attr = nullptr);

// The startup warnings (getLog "startupWarnings") and the recent lines (getLog "global"):
// the last lines written, oldest first, bounded in memory.
std::vector<std::string> RecentLines();
std::vector<std::string> StartupWarnings();
void AddStartupWarning(std::string_view component, int id, std::string_view msg);

}  // namespace cairn::logging
