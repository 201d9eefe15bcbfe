// cairnd: reads mongod's command line and config file (startup/command_line.h), forks when
// asked, opens the storage engine and runs the Server; or, with --ping or --load-json, pings or
// loads documents into the server the options describe (net/ping.h, net/load_json.h). Nothing
// else lives here.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "common/logging.h"
#include "server/catalog/index_build.h"
#include "server/exec/sort_stream.h"
#include "server/net/load_json.h"
#include "server/net/ping.h"
#include "server/net/server.h"
#include "server/startup/command_line.h"
#include "server/startup/daemon.h"
#include "storage/engine.h"

using cairn::BsonDoc;
using cairn::server::kExitBadOptions;
using cairn::server::kExitNetwork;
using cairn::server::kExitStorage;

int main(int argc, char** argv) {
  // Data files, the data directory and the log are private to the server's user, as mongod
  // makes them (its umask 077).
  umask(S_IRWXG | S_IRWXO);
  // --ping (net/ping.h) and --load-json NS FILE (net/load_json.h) are Cairn's own: the other
  // options say which server to ping or load into.
  std::vector<std::string> args(argv, argv + argc);
  const auto ping = std::find(args.begin() + 1, args.end(), "--ping");
  const bool ping_only = ping != args.end();
  if (ping_only) args.erase(ping);
  std::string load_ns, load_path;
  const auto load = std::find(args.begin() + 1, args.end(), "--load-json");
  const bool load_only = load != args.end();
  if (load_only) {
    if (args.end() - load < 3) {
      std::cerr << "cairnd --load-json: expected DATABASE.COLLECTION FILE\n";
      return kExitBadOptions;
    }
    load_ns = load[1];
    load_path = load[2];
    args.erase(load, load + 3);
  }
  cairn::server::ParsedCommandLine parsed = cairn::server::ParseCommandLine(args);
  std::cout << parsed.out;
  std::cerr << parsed.err;
  if (!parsed.config) return parsed.exit_code;
  cairn::server::StartupConfig& config = *parsed.config;
  cairn::server::ServerOptions& options = config.server;
  if (ping_only) {
    std::string error;
    const int status = cairn::server::PingServer(options, &error);
    if (status != cairn::server::kPingHealthy) std::cerr << "cairnd --ping: " << error << "\n";
    return status;
  }
  if (load_only) {
    std::string error;
    int64_t inserted = 0;
    const int status = cairn::server::LoadJsonFile(options, load_ns, load_path, &inserted, &error);
    std::cout << "cairnd --load-json: " << inserted << " document(s) inserted into " << load_ns
              << " from " << load_path << "\n";
    if (status != cairn::server::kLoadJsonDone)
      std::cerr << "cairnd --load-json: " << error << "\n";
    return status;
  }

  std::string error;
  // Before any thread starts (the storage engine's, the server's).
  if (config.fork && !cairn::server::ForkServer(&error)) {
    std::cerr << error << "\n";
    return kExitBadOptions;
  }
  if (!cairn::logging::Init(config.log, &error)) {
    std::cerr << error << "\n";
    return kExitBadOptions;
  }
  {
    BsonDoc attr;
    BSON_APPEND_INT32(attr.get(), "pid", static_cast<int32_t>(getpid()));
    BSON_APPEND_INT32(attr.get(), "port", options.port);
    cairn::AppendUtf8(attr.get(), "dbPath", options.dbpath);
    cairn::AppendUtf8(attr.get(), "version", CAIRN_MONGODB_VERSION);
    cairn::AppendUtf8(attr.get(), "cairnVersion", CAIRN_VERSION);
    cairn::logging::Log(cairn::logging::Severity::kInfo, "CONTROL", 4615611, "initandlisten",
                        "Cairn starting", attr.get());
  }

  std::error_code fs_error;
  std::filesystem::create_directories(options.dbpath, fs_error);
  if (fs_error) {
    BsonDoc attr;
    cairn::AppendUtf8(attr.get(), "dbPath", options.dbpath);
    cairn::AppendUtf8(attr.get(), "error", fs_error.message());
    cairn::logging::Log(cairn::logging::Severity::kFatal, "STORAGE", 20557, "initandlisten",
                        "Cannot create the data directory", attr.get());
    cairn::logging::Shutdown();
    return kExitStorage;
  }

  if (!config.pid_file.empty() && !cairn::server::WritePidFile(config.pid_file, &error)) {
    BsonDoc attr;
    cairn::AppendUtf8(attr.get(), "error", error);
    cairn::logging::Log(cairn::logging::Severity::kFatal, "CONTROL", 20574, "initandlisten",
                        "Error during global initialization", attr.get());
    cairn::logging::Shutdown();
    return kExitBadOptions;
  }
  auto opened = cairn::storage::Engine::Open(config.storage);
  if (!opened.ok()) {
    BsonDoc attr;
    cairn::AppendUtf8(attr.get(), "dbPath", options.dbpath);
    cairn::AppendUtf8(attr.get(), "error", opened.status().ToString());
    cairn::logging::Log(cairn::logging::Severity::kFatal, "STORAGE", 28595, "initandlisten",
                        "Cannot open the storage engine", attr.get());
    cairn::logging::Shutdown();
    return kExitStorage;
  }

  // Sort runs a killed process left behind.
  cairn::server::RemoveStaleSpillFiles(cairn::server::SpillDirectory(options.dbpath));
  // Index builds a killed process left unfinished (createIndexes never answered): dropped.
  cairn::server::DropUnfinishedIndexes(*opened.value()).IgnoreError();
  cairn::server::Server server(std::move(options), std::move(opened).value());
  cairn::Status status = server.Run([] { cairn::server::NotifyForkedParent(); });
  cairn::logging::Shutdown();
  if (!status.ok()) {
    std::cerr << status.ToString() << "\n";
    return kExitNetwork;
  }
  return 0;
}
