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
};

// Sets up the global logger. Safe to call more than once (tests); the last call wins.
void Init(const LogOptions& options);
// Flushes and closes the log file (before exit).
void Shutdown();
bool Quiet();

// Writes one log line. `attr` (may be null) becomes the "attr" object in relaxed Extended JSON.
void Log(Severity severity, std::string_view component, int id, std::string_view ctx,
         std::string_view msg, const bson_t* attr = nullptr);

// The startup warnings (getLog "startupWarnings") and the recent lines (getLog "global"):
// the last lines written, oldest first, bounded in memory.
std::vector<std::string> RecentLines();
std::vector<std::string> StartupWarnings();
void AddStartupWarning(std::string_view component, int id, std::string_view msg);

}  // namespace cairn::logging
