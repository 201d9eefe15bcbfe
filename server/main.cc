// cairnd: parses mongod-named flags into ServerOptions/StorageOptions, opens the storage engine
// and runs the Server. Nothing else lives here.
#include <boost/program_options.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "common/logging.h"
#include "server/catalog/index_build.h"
#include "server/exec/sort_stream.h"
#include "server/net/server.h"
#include "server/server_parameters.h"
#include "storage/engine.h"

namespace po = boost::program_options;
using cairn::BsonDoc;

namespace {

// mongod's exit codes: 2 bad options, 100 uncaught/storage failure, 48 cannot bind.
constexpr int kExitBadOptions = 2;
constexpr int kExitStorage = 100;
constexpr int kExitNetwork = 48;

std::vector<std::string> SplitComma(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // Data files, the data directory and the log are private to the server's user, as mongod
  // makes them (its umask 077).
  umask(S_IRWXG | S_IRWXO);
  cairn::server::ServerOptions options;
  for (int i = 0; i < argc; ++i) options.argv.emplace_back(argv[i]);

  po::options_description general("Options");
  std::string bind_ip;
  std::string storage_engine;
  bool auth = false;
  general.add_options()("help,h", "Show this usage information")("version",
                                                                 "Show version information")(
      "port", po::value<int>(&options.port)->default_value(27017), "Specify port number")(
      "bind_ip", po::value<std::string>(&bind_ip)->default_value("127.0.0.1"),
      "Comma separated list of ip addresses to listen on")(
      "dbpath", po::value<std::string>(&options.dbpath)->default_value("/data/db"),
      "Directory for datafiles (created if missing)")(
      "logpath", po::value<std::string>(&options.logpath),
      "Log file to send write to instead of stdout")("quiet", po::bool_switch(&options.quiet),
                                                     "Quieter output")(
      "maxConns", po::value<int>(&options.max_conns),
      "Max number of simultaneous connections (default: 1000000, at most 80% of the "
      "process's file descriptor limit)")(
      "replSet", po::value<std::string>(&options.repl_set),
      "Arg is <setname>: run as a member of this replica set (one member, this server)")(
      "initiate", po::bool_switch(&options.initiate),
      "With --replSet: initiate the set with its default configuration at the first start "
      "(no rs.initiate() step needed; a later replSetInitiate still succeeds once)")(
      "oplogSize", po::value<int64_t>(&options.oplog_size_mb),
      "Size to use (in MB) for the replication oplog (default: 5% of the free disk space)")(
      "setParameter", po::value<std::vector<std::string>>(&options.set_parameters)->composing(),
      "Set a configurable parameter (name=value)")(
      "storageEngine", po::value<std::string>(&storage_engine)->default_value("wiredTiger"),
      "What storage engine to use: wiredTiger, mongod's default engine, is accepted and means "
      "Cairn's own on-disk storage (RocksDB); no other engine is available")(
      "noauth", po::bool_switch(), "Run without security (the default)")(
      "auth", po::bool_switch(&auth), "Run with security: not available (refused)");

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(general).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "Error parsing command line: " << e.what() << "\n"
              << "try '" << argv[0] << " --help' for more information\n";
    return kExitBadOptions;
  }
  if (vm.count("help")) {
    std::cout << "Cairn: a document database that speaks the MongoDB wire protocol.\n\n"
              << "Usage: cairnd [options]\n\n"
              << general << "\n";
    return 0;
  }
  if (vm.count("version")) {
    std::cout << "db version v" << CAIRN_MONGODB_VERSION << "\n"
              << "Cairn version v" << CAIRN_VERSION << "\n";
    return 0;
  }
  // Flags Cairn cannot honour are refused as mongod refuses an invalid one, never ignored.
  if (storage_engine != "wiredTiger") {
    std::cerr << "Error parsing command line: --storageEngine " << storage_engine
              << " is not available: Cairn stores data with its own engine, which the default, "
                 "wiredTiger, names\n";
    return kExitBadOptions;
  }
  if (auth) {
    std::cerr << "Error parsing command line: --auth is not available: this server has no "
                 "authentication\n";
    return kExitBadOptions;
  }
  if (options.port < 0 || options.port > 65535) {
    std::cerr << "Error parsing command line: port number must be between 0 and 65535, got "
              << options.port << "\n";
    return kExitBadOptions;
  }
  if (vm.count("maxConns") && options.max_conns < 1) {
    std::cerr << "Error parsing command line: maxConns must be at least 1, got "
              << options.max_conns << "\n";
    return kExitBadOptions;
  }
  if (options.initiate && options.repl_set.empty()) {
    std::cerr << "Error parsing command line: --initiate needs --replSet\n";
    return kExitBadOptions;
  }
  if (vm.count("oplogSize") && options.oplog_size_mb < 1) {
    std::cerr << "Error parsing command line: --oplogSize must be at least 1 (MB), got "
              << options.oplog_size_mb << "\n";
    return kExitBadOptions;
  }
  options.bind_ips = SplitComma(bind_ip);
  {
    cairn::server::ServerParameters scratch;  // checked here; applied by the server's state
    for (const std::string& assignment : options.set_parameters) {
      cairn::Status status = cairn::server::SetParameterFromString(&scratch, assignment);
      if (!status.ok()) {
        std::cerr << "Error parsing command line: " << status.reason() << "\n";
        return kExitBadOptions;
      }
    }
  }
  if (options.bind_ips.empty()) {
    std::cerr << "Error parsing command line: --bind_ip needs at least one address\n";
    return kExitBadOptions;
  }

  cairn::logging::Init({options.logpath, options.quiet});
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

  cairn::storage::StorageOptions storage_options;
  storage_options.path = options.dbpath;
  auto opened = cairn::storage::Engine::Open(storage_options);
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
  cairn::Status status = server.Run();
  cairn::logging::Shutdown();
  if (!status.ok()) {
    std::cerr << status.ToString() << "\n";
    return kExitNetwork;
  }
  return 0;
}
