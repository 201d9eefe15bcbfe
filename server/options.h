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
  int64_t oplog_size_mb = 0;  // Default: 0 = 5% of the free disk, 990 MB to 50 GB (--oplogSize)
  // Default: false (--storageEngine inMemory or ephemeralForTest: nothing persists).
  bool in_memory = false;
  bool ipv6 = false;  // Default: false (--ipv6: IPv6 addresses may be bound)
  // The unix domain socket <prefix>/mongodb-<port>.sock, as mongod's. Default: on, in /tmp,
  // mode 0700 (--nounixsocket, --unixSocketPrefix, --filePermissions).
  bool unix_socket = true;
  std::string unix_socket_prefix = "/tmp";
  int unix_socket_permissions = 0700;
  std::vector<std::string> extra_unix_sockets;  // Default: none (--bind_ip paths ending .sock)
  // Operations slower than this are logged ("Slow query"). Default: 100 (--slowms).
  int slow_ms = 100;
  int profile_level = 0;  // --profile / operationProfiling.mode: every database's, until set
  double slow_op_sample_rate = 1.0;  // Default: 1.0 (--slowOpSampleRate)
  std::vector<std::string> argv;     // the command line, for getCmdLineOpts
  std::string parsed_options;        // BSON: the merged options in YAML shape (getCmdLineOpts)
  std::vector<std::string> set_parameters;  // Default: none (--setParameter name=value)
  // Default: true: the server owns its process (cairnd), so it handles SIGINT/SIGTERM and raises
  // the descriptor limit. libcairn (server/embedded/) runs inside an application's process,
  // whose signals and limits are the application's: false there.
  bool owns_process = true;
};

}  // namespace cairn::server
