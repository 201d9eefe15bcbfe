// ServerOptions: cairnd's settings, from mongod-named flags (main.cc). Network and process only;
// storage settings are storage::StorageOptions.
#pragma once

#include <string>
#include <vector>

namespace cairn::server {

struct ServerOptions {
  int port = 27017;                                // Default: 27017 (--port)
  std::vector<std::string> bind_ips{"127.0.0.1"};  // Default: 127.0.0.1 (--bind_ip, comma list)
  std::string dbpath = "/data/db";                 // Default: /data/db (--dbpath), as mongod
  std::string logpath;                             // Default: "" = standard output (--logpath)
  bool quiet = false;                              // Default: false (--quiet)
  int io_threads = 2;               // Default: 2 (one per core on the target machine)
  int cursor_timeout_minutes = 10;  // Default: 10, as cursorTimeoutMillis 600000
  // Default: 0 = mongod's 1,000,000 bounded by 80% of the descriptor limit (--maxConns).
  int max_conns = 0;
  // Default: "" = a standalone (--replSet NAME: a replica set of one member, this server).
  std::string repl_set;
  // Default: false (--initiate: with --replSet, initiate with the default configuration at the
  // first start, so no rs.initiate() step is needed).
  bool initiate = false;
  int64_t oplog_size_mb = 0;      // Default: 0 = 5% of the free disk, 990 MB to 50 GB (--oplogSize)
  std::vector<std::string> argv;  // the command line, for getCmdLineOpts
  std::vector<std::string> set_parameters;  // Default: none (--setParameter name=value)
};

}  // namespace cairn::server
