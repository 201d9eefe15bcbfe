// cairnd's startup settings from mongod's command line and mongod's YAML config file
// (--config/-f): one table of options, each with its flag and its YAML path, merged as mongod
// merges them (a flag given on the command line wins over the file), checked, and turned into
// ServerOptions, StorageOptions and LogOptions. What Cairn cannot honour is refused with
// mongod's exit status for bad options (2), never accepted silently.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/logging.h"
#include "server/options.h"
#include "storage/options.h"

namespace cairn::server {

// mongod's exit codes: 2 bad options, 100 storage failure, 48 cannot bind.
constexpr int kExitBadOptions = 2;
constexpr int kExitStorage = 100;
constexpr int kExitNetwork = 48;

struct StartupConfig {
  ServerOptions server;
  storage::StorageOptions storage;
  logging::LogOptions log;
  bool fork = false;     // Default: false (--fork / processManagement.fork)
  std::string pid_file;  // Default: none (--pidfilepath / processManagement.pidFilePath)
};

// The outcome of parsing: a configuration to run with, or an exit right away (--help,
// --version, a bad option) with what to print.
struct ParsedCommandLine {
  std::optional<StartupConfig> config;  // set when the server should start
  int exit_code = 0;                    // when `config` is empty
  std::string out;                      // to standard output (help, version)
  std::string err;                      // to standard error (the reason for exit status 2)
};

ParsedCommandLine ParseCommandLine(const std::vector<std::string>& args);

}  // namespace cairn::server
