// ParseCommandLine (see command_line.h). Every option has one row in kOptions: its flag, its
// path in mongod's YAML config file and its kind. Both sources are read into one map keyed by
// the YAML path (what getCmdLineOpts shows as `parsed`), then checked and applied.
#include "server/startup/command_line.h"

#include <yaml-cpp/yaml.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "common/bson_doc.h"
#include "server/server_parameters.h"

namespace cairn::server {

namespace po = boost::program_options;

namespace {

enum class Kind {
  kString,
  kInt,
  kDouble,
  kSwitch,         // a flag without a value; YAML true/false
  kNegatedSwitch,  // --nounixsocket: the YAML path's value is false when given
  kList,           // --setParameter name=value, repeatable; YAML a map
};

struct OptionSpec {
  const char* flag;  // null: YAML only
  const char* path;  // null: command line only
  Kind kind;
  const char* help;
};

// Cairn's options, mongod's names. Rows with the same path (auth/noauth) set one value.
constexpr OptionSpec kOptions[] = {
    {"port", "net.port", Kind::kInt, "Specify port number - 27017 by default"},
    {"bind_ip", "net.bindIp", Kind::kString,
     "Comma separated list of ip addresses to listen on - localhost by default"},
    {"bind_ip_all", "net.bindIpAll", Kind::kSwitch, "Bind to all ip addresses"},
    {"ipv6", "net.ipv6", Kind::kSwitch, "Enable IPv6 support (disabled by default)"},
    {"maxConns", "net.maxIncomingConnections", Kind::kInt,
     "Max number of simultaneous connections (default: 1000000, at most 80% of the process's "
     "file descriptor limit)"},
    {"unixSocketPrefix", "net.unixDomainSocket.pathPrefix", Kind::kString,
     "Alternative directory for UNIX domain sockets (defaults to /tmp)"},
    {"nounixsocket", "net.unixDomainSocket.enabled", Kind::kNegatedSwitch,
     "Disable listening on unix sockets"},
    {"filePermissions", "net.unixDomainSocket.filePermissions", Kind::kString,
     "Permissions to set on UNIX domain socket file - 0700 by default"},
    {"dbpath", "storage.dbPath", Kind::kString,
     "Directory for datafiles - defaults to /data/db (created if missing)"},
    {"storageEngine", "storage.engine", Kind::kString,
     "What storage engine to use: wiredTiger (the default) means Cairn's own on-disk storage "
     "(RocksDB); inMemory or ephemeralForTest keep everything in memory, nothing persists"},
    {"wiredTigerCacheSizeGB", "storage.wiredTiger.engineConfig.cacheSizeGB", Kind::kDouble,
     "Maximum amount of memory to allocate for cache: sets the size of Cairn's RocksDB block "
     "cache (default 256 MB)"},
    {"logpath", "systemLog.path", Kind::kString,
     "Log file to send write to instead of stdout - has to be a file, not directory"},
    {nullptr, "systemLog.destination", Kind::kString, nullptr},
    {"logappend", "systemLog.logAppend", Kind::kSwitch,
     "Append to logpath instead of over-writing (without it an existing log is renamed)"},
    {"timeStampFormat", "systemLog.timeStampFormat", Kind::kString,
     "Desired format for timestamps in log messages. One of iso8601-utc or iso8601-local"},
    {"quiet", "systemLog.quiet", Kind::kSwitch, "Quieter output"},
    {"verbose", "systemLog.verbosity", Kind::kString,
     "Be more verbose (include multiple times for more verbosity e.g. -vvvvv)"},
    {"fork", "processManagement.fork", Kind::kSwitch, "Fork server process"},
    {"pidfilepath", "processManagement.pidFilePath", Kind::kString, "Full path to pidfile"},
    {"timeZoneInfo", "processManagement.timeZoneInfo", Kind::kString,
     "Full path to time zone info directory, e.g. /usr/share/zoneinfo (must exist)"},
    {"replSet", "replication.replSetName", Kind::kString,
     "Arg is <setname>: run as a member of this replica set (one member, this server)"},
    {"oplogSize", "replication.oplogSizeMB", Kind::kInt,
     "Size to use (in MB) for the replication oplog (default: 5% of the free disk space, 5% "
     "of the memory in the in-memory mode)"},
    {"initiate", "replication.initiate", Kind::kSwitch,
     "With --replSet: initiate the set with its default configuration at the first start (no "
     "rs.initiate() step needed; a later replSetInitiate still succeeds once)"},
    {"auth", "security.authorization", Kind::kSwitch,
     "Run with security: not available yet (refused)"},
    {"noauth", "security.authorization", Kind::kSwitch, "Run without security (the default)"},
    {"setParameter", "setParameter", Kind::kList, "Set a configurable parameter"},
    {"profile", "operationProfiling.mode", Kind::kString, "0=off 1=slow, 2=all"},
    {"slowms", "operationProfiling.slowOpThresholdMs", Kind::kInt,
     "Value of slow for profile and console log (default 100)"},
    {"slowOpSampleRate", "operationProfiling.slowOpSampleRate", Kind::kDouble,
     "Fraction of slow ops to include in the profile and console log (default 1.0)"},
};

const OptionSpec* FindByFlag(std::string_view flag) {
  for (const OptionSpec& spec : kOptions) {
    if (spec.flag != nullptr && flag == spec.flag) return &spec;
  }
  return nullptr;
}

const OptionSpec* FindByPath(std::string_view path) {
  for (const OptionSpec& spec : kOptions) {
    if (spec.path != nullptr && path == spec.path) return &spec;
  }
  return nullptr;
}

// One merged value: a scalar as written (switches "true"/"false"), or setParameter's list.
struct Value {
  std::string scalar;
  std::vector<std::string> list;
  bool from_file = false;
};
using Values = std::map<std::string, Value>;

struct Failure {
  std::string message;
};

// mongod's -v, -vv, ... and --verbose=vvv: the verbosity as a count.
Result<int> Verbosity(const std::string& text) {
  if (text.empty()) return 1;
  if (text.find_first_not_of('v') == std::string::npos) return static_cast<int>(text.size());
  char* end = nullptr;
  long n = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || n < 0 || n > 5) {
    return Status(ErrorCode::kBadValue, "systemLog.verbosity must be 0 to 5, got " + text);
  }
  return static_cast<int>(n);
}

Result<int64_t> ToInt(const std::string& path, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0) {
    return Status(ErrorCode::kBadValue, path + " must be an integer, got \"" + text + "\"");
  }
  return static_cast<int64_t>(n);
}

Result<double> ToDouble(const std::string& path, const std::string& text) {
  char* end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(d)) {
    return Status(ErrorCode::kBadValue, path + " must be a number, got \"" + text + "\"");
  }
  return d;
}

Result<bool> ToBool(const std::string& path, const std::string& text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  return Status(ErrorCode::kBadValue, path + " must be true or false, got \"" + text + "\"");
}

// The YAML file's options into `values`, each under its dotted path. Unknown paths are refused
// as mongod refuses them ("Unrecognized option").
Status ReadYaml(const YAML::Node& node, const std::string& prefix, Values* values) {
  if (!node.IsMap()) {
    return Status(ErrorCode::kBadValue, prefix.empty() ? "the config file is not a YAML mapping"
                                                       : prefix + " must be a mapping");
  }
  for (const auto& entry : node) {
    const std::string path = prefix + (prefix.empty() ? "" : ".") + entry.first.as<std::string>();
    const YAML::Node& child = entry.second;
    if (path == "setParameter") {
      if (!child.IsMap()) return Status(ErrorCode::kBadValue, "setParameter must be a mapping");
      Value& value = (*values)[path];
      for (const auto& parameter : child) {
        if (!parameter.second.IsScalar()) {
          return Status(ErrorCode::kBadValue,
                        "setParameter." + parameter.first.as<std::string>() + " must be a scalar");
        }
        value.list.push_back(parameter.first.as<std::string>() + "=" +
                             parameter.second.as<std::string>());
      }
      value.from_file = true;
      continue;
    }
    const OptionSpec* spec = FindByPath(path);
    if (child.IsMap() && spec == nullptr) {
      CAIRN_RETURN_IF_ERROR(ReadYaml(child, path, values));
      continue;
    }
    if (spec == nullptr) return Status(ErrorCode::kBadValue, "Unrecognized option: " + path);
    if (!child.IsScalar()) return Status(ErrorCode::kBadValue, path + " must be a scalar");
    Value& value = (*values)[path];
    value.scalar = child.as<std::string>();
    value.from_file = true;
  }
  return Status::OK();
}

// The merged options as mongod's `parsed` document (nested by path, typed by kind).
struct Tree {
  std::map<std::string, Tree> children;
  const Value* value = nullptr;
  const OptionSpec* spec = nullptr;
};

void AppendTree(const Tree& tree, bson_t* out) {
  for (const auto& [name, child] : tree.children) {
    if (child.value == nullptr) {
      bson_t sub;
      bson_append_document_begin(out, name.data(), static_cast<int>(name.size()), &sub);
      AppendTree(child, &sub);
      bson_append_document_end(out, &sub);
      continue;
    }
    const Value& value = *child.value;
    const Kind kind = child.spec->kind;
    const char* key = name.c_str();
    switch (kind) {
      case Kind::kList: {
        bson_t sub;
        BSON_APPEND_DOCUMENT_BEGIN(out, key, &sub);
        for (const std::string& assignment : value.list) {
          const size_t eq = assignment.find('=');
          AppendUtf8(&sub, std::string_view(assignment).substr(0, eq),
                     eq == std::string::npos ? std::string_view() : assignment.substr(eq + 1));
        }
        bson_append_document_end(out, &sub);
        break;
      }
      case Kind::kInt:
        BSON_APPEND_INT32(out, key, static_cast<int32_t>(std::atoll(value.scalar.c_str())));
        break;
      case Kind::kDouble:
        BSON_APPEND_DOUBLE(out, key, std::atof(value.scalar.c_str()));
        break;
      case Kind::kSwitch:
      case Kind::kNegatedSwitch:
        BSON_APPEND_BOOL(out, key, value.scalar == "true" || value.scalar == "1");
        break;
      case Kind::kString:
        // The verbosity, kept as its count, is an int in mongod's parsed options.
        if (std::string_view(child.spec->path) == "systemLog.verbosity") {
          BSON_APPEND_INT32(out, key, static_cast<int32_t>(std::atoll(value.scalar.c_str())));
        } else {
          AppendUtf8(out, key, value.scalar);
        }
        break;
    }
  }
}

std::string ParsedDocument(const Values& values, const std::string& config_path) {
  Tree root;
  for (const auto& [path, value] : values) {
    Tree* node = &root;
    std::stringstream parts(path);
    std::string part;
    while (std::getline(parts, part, '.')) node = &node->children[part];
    node->value = &value;
    node->spec = FindByPath(path);
  }
  BsonDoc doc;
  if (!config_path.empty()) AppendUtf8(doc.get(), "config", config_path);
  AppendTree(root, doc.get());
  return std::string(reinterpret_cast<const char*>(bson_get_data(doc.get())), doc.get()->len);
}

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

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<int64_t>(pages) * page_size : 0;
}

// The merged options into the configuration, every value checked.
Status Apply(const Values& values, StartupConfig* config) {
  auto get = [&](const char* path) -> const std::string* {
    auto it = values.find(path);
    return it == values.end() ? nullptr : &it->second.scalar;
  };
  auto flag = [&](const char* path) -> Result<bool> {
    const std::string* text = get(path);
    if (text == nullptr) return false;
    return ToBool(path, *text);
  };
  ServerOptions& server = config->server;
  storage::StorageOptions& storage = config->storage;

  if (const std::string* port = get("net.port")) {
    CAIRN_ASSIGN_OR_RETURN(int64_t n, ToInt("net.port", *port));
    if (n < 0 || n > 65535) {
      return Status(ErrorCode::kBadValue,
                    "port number must be between 0 and 65535, got " + std::to_string(n));
    }
    server.port = static_cast<int>(n);
  }
  CAIRN_ASSIGN_OR_RETURN(server.ipv6, flag("net.ipv6"));
  CAIRN_ASSIGN_OR_RETURN(bool bind_all, flag("net.bindIpAll"));
  if (bind_all) {
    server.bind_ips = {"0.0.0.0"};
    if (server.ipv6) server.bind_ips.push_back("::");
  } else if (const std::string* bind_ip = get("net.bindIp")) {
    server.bind_ips.clear();
    for (const std::string& address : SplitComma(*bind_ip)) {
      if (address == "localhost") {
        server.bind_ips.push_back("127.0.0.1");
        if (server.ipv6) server.bind_ips.push_back("::1");
      } else if (address.size() > 5 && address.compare(address.size() - 5, 5, ".sock") == 0) {
        server.extra_unix_sockets.push_back(address);  // mongod listens on such paths too
      } else {
        if (address.find(':') != std::string::npos && !server.ipv6) {
          return Status(ErrorCode::kBadValue, "net.bindIp " + address +
                                                  " is an IPv6 address: listening on IPv6 "
                                                  "needs --ipv6 (net.ipv6)");
        }
        server.bind_ips.push_back(address);
      }
    }
    if (server.bind_ips.empty() && server.extra_unix_sockets.empty()) {
      return Status(ErrorCode::kBadValue, "--bind_ip needs at least one address");
    }
  }
  if (const std::string* max_conns = get("net.maxIncomingConnections")) {
    CAIRN_ASSIGN_OR_RETURN(int64_t n, ToInt("net.maxIncomingConnections", *max_conns));
    if (n < 1 || n > INT32_MAX) {
      return Status(ErrorCode::kBadValue, "maxConns must be at least 1, got " + *max_conns);
    }
    server.max_conns = static_cast<int>(n);
  }
  if (const std::string* enabled = get("net.unixDomainSocket.enabled")) {
    CAIRN_ASSIGN_OR_RETURN(server.unix_socket, ToBool("net.unixDomainSocket.enabled", *enabled));
  }
  if (const std::string* prefix = get("net.unixDomainSocket.pathPrefix")) {
    server.unix_socket_prefix = *prefix;
  }
  if (const std::string* permissions = get("net.unixDomainSocket.filePermissions")) {
    char* end = nullptr;
    long mode = std::strtol(permissions->c_str(), &end, 8);
    if (permissions->empty() || *end != '\0' || mode < 0 || mode > 0777) {
      return Status(ErrorCode::kBadValue,
                    "filePermissions must be an octal mode such as 0700, got " + *permissions);
    }
    server.unix_socket_permissions = static_cast<int>(mode);
  }

  if (const std::string* dbpath = get("storage.dbPath")) server.dbpath = *dbpath;
  storage.path = server.dbpath;
  if (const std::string* engine = get("storage.engine")) {
    if (*engine == "inMemory" || *engine == "ephemeralForTest") {
      storage.in_memory = true;
    } else if (*engine != "wiredTiger") {
      return Status(ErrorCode::kBadValue,
                    "--storageEngine " + *engine +
                        " is not available: Cairn has wiredTiger (its own on-disk storage) and "
                        "inMemory (or ephemeralForTest)");
    }
  }
  server.in_memory = storage.in_memory;
  if (const std::string* cache = get("storage.wiredTiger.engineConfig.cacheSizeGB")) {
    CAIRN_ASSIGN_OR_RETURN(double gb, ToDouble("wiredTigerCacheSizeGB", *cache));
    if (gb < 0.25 || gb > 10000) {
      return Status(ErrorCode::kBadValue,
                    "wiredTigerCacheSizeGB must be between 0.25 and 10000, got " + *cache);
    }
    storage.block_cache_bytes = static_cast<size_t>(gb * 1024 * 1024 * 1024);
  }

  const std::string* destination = get("systemLog.destination");
  if (destination != nullptr && *destination == "syslog") {
    return Status(ErrorCode::kBadValue,
                  "systemLog.destination syslog is not available: log to a file (file) or to "
                  "standard output");
  }
  if (destination != nullptr && *destination != "file") {
    return Status(ErrorCode::kBadValue, "Bad value for systemLog.destination: " + *destination);
  }
  if (const std::string* path = get("systemLog.path")) server.logpath = *path;
  if (destination != nullptr && server.logpath.empty()) {
    return Status(ErrorCode::kBadValue,
                  "systemLog.path is required if systemLog.destination is to a file");
  }
  config->log.path = server.logpath;
  CAIRN_ASSIGN_OR_RETURN(config->log.append, flag("systemLog.logAppend"));
  CAIRN_ASSIGN_OR_RETURN(server.quiet, flag("systemLog.quiet"));
  config->log.quiet = server.quiet;
  if (const std::string* format = get("systemLog.timeStampFormat")) {
    if (*format != "iso8601-utc" && *format != "iso8601-local") {
      return Status(ErrorCode::kBadValue,
                    "Value of logTimestampFormat must be one of iso8601-utc or iso8601-local; "
                    "not \"" +
                        *format + "\".");
    }
    config->log.local_time = *format == "iso8601-local";
  }
  if (const std::string* verbosity = get("systemLog.verbosity")) {
    CAIRN_ASSIGN_OR_RETURN(config->log.verbosity, Verbosity(*verbosity));
  }

  CAIRN_ASSIGN_OR_RETURN(config->fork, flag("processManagement.fork"));
  if (config->fork && server.logpath.empty()) {
    return Status(ErrorCode::kBadValue, "--fork has to be used with --logpath or --syslog");
  }
  if (const std::string* pid_file = get("processManagement.pidFilePath")) {
    config->pid_file = *pid_file;
  }
  if (const std::string* zone_info = get("processManagement.timeZoneInfo")) {
    // Accepted when it exists: Cairn's date operators read the same zone rules (ICU's).
    struct stat st;
    if (stat(zone_info->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Status(ErrorCode::kBadValue,
                    "Failed to create service context: time zone info directory " + *zone_info +
                        " does not exist");
    }
  }

  if (const std::string* set_name = get("replication.replSetName")) server.repl_set = *set_name;
  CAIRN_ASSIGN_OR_RETURN(server.initiate, flag("replication.initiate"));
  if (server.initiate && server.repl_set.empty()) {
    return Status(ErrorCode::kBadValue, "--initiate needs --replSet");
  }
  if (const std::string* oplog = get("replication.oplogSizeMB")) {
    CAIRN_ASSIGN_OR_RETURN(server.oplog_size_mb, ToInt("oplogSize", *oplog));
    if (server.oplog_size_mb < 1) {
      return Status(ErrorCode::kBadValue, "--oplogSize must be at least 1 (MB), got " +
                                              std::to_string(server.oplog_size_mb));
    }
  } else if (storage.in_memory) {
    // mongod's in-memory default: 5% of the physical memory, at least 50 MB.
    server.oplog_size_mb = std::max<int64_t>(50, PhysicalMemoryBytes() / 20 / (1024 * 1024));
  }

  if (const std::string* auth = get("security.authorization")) {
    if (*auth == "enabled") {
      return Status(ErrorCode::kBadValue,
                    "--auth (security.authorization: enabled) is not available: this server has "
                    "no authentication yet");
    }
    if (*auth != "disabled") {
      return Status(ErrorCode::kBadValue, "Bad value for security.authorization: " + *auth);
    }
  }

  if (auto it = values.find("setParameter"); it != values.end()) {
    server.set_parameters = it->second.list;
    ServerParameters scratch;  // checked here; applied by the server's state
    for (const std::string& assignment : server.set_parameters) {
      CAIRN_RETURN_IF_ERROR(SetParameterFromString(&scratch, assignment));
    }
  }

  if (const std::string* mode = get("operationProfiling.mode")) {
    if (*mode == "off") {
      server.profile_level = 0;
    } else if (*mode == "slowOp") {
      server.profile_level = 1;
    } else if (*mode == "all") {
      server.profile_level = 2;
    } else {
      return Status(ErrorCode::kBadValue, "Bad value for operationProfiling.mode: " + *mode);
    }
  }
  if (const std::string* slow_ms = get("operationProfiling.slowOpThresholdMs")) {
    CAIRN_ASSIGN_OR_RETURN(int64_t n, ToInt("slowms", *slow_ms));
    server.slow_ms = static_cast<int>(std::clamp<int64_t>(n, INT32_MIN, INT32_MAX));
  }
  if (const std::string* rate = get("operationProfiling.slowOpSampleRate")) {
    CAIRN_ASSIGN_OR_RETURN(double r, ToDouble("slowOpSampleRate", *rate));
    if (r < 0 || r > 1) {
      return Status(ErrorCode::kBadValue, "slowOpSampleRate must be between 0 and 1, got " + *rate);
    }
    server.slow_op_sample_rate = r;
  }
  return Status::OK();
}

std::string Help(const po::options_description& described) {
  std::stringstream out;
  out << "Cairn: a document database that speaks the MongoDB wire protocol.\n\n"
      << "Usage: cairnd [options]\n\n"
      << described << "\n"
      << "Options are mongod's; a YAML config file (--config) takes mongod's paths (net.port, "
         "storage.dbPath, systemLog.path, replication.replSetName, setParameter, ...).\n";
  return out.str();
}

// -v, -vv, ...: boost reads "-vv" as -v with the value "v"; made --verbose=<count> first.
std::vector<std::string> NormaliseVerbosity(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    if (arg.size() >= 2 && arg[0] == '-' && arg[1] == 'v' &&
        arg.find_first_not_of('v', 1) == std::string::npos) {
      out.push_back("--verbose=" + std::to_string(arg.size() - 1));
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

}  // namespace

ParsedCommandLine ParseCommandLine(const std::vector<std::string>& args) {
  ParsedCommandLine parsed;
  auto fail = [&](const std::string& message) {
    parsed.exit_code = kExitBadOptions;
    parsed.err = "Error parsing command line: " + message + "\n" + "try '" +
                 (args.empty() ? std::string("cairnd") : args[0]) +
                 " --help' for more information\n";
    return parsed;
  };

  po::options_description described("Options");
  described.add_options()("help,h", "Show this usage information")(
      "version", "Show version information")("config,f", po::value<std::string>(),
                                             "Configuration file specifying additional options");
  for (const OptionSpec& spec : kOptions) {
    if (spec.flag == nullptr) continue;
    std::string names = spec.flag;
    if (names == "verbose") {
      described.add_options()("verbose,v", po::value<std::string>()->implicit_value("v"),
                              spec.help);
      continue;
    }
    switch (spec.kind) {
      case Kind::kSwitch:
      case Kind::kNegatedSwitch:
        described.add_options()(spec.flag, po::bool_switch(), spec.help);
        break;
      case Kind::kList:
        described.add_options()(spec.flag, po::value<std::vector<std::string>>()->composing(),
                                spec.help);
        break;
      default:
        described.add_options()(spec.flag, po::value<std::string>(), spec.help);
    }
  }

  po::variables_map vm;
  try {
    std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
    po::store(po::command_line_parser(NormaliseVerbosity(rest)).options(described).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return fail(e.what());
  }
  if (vm.count("help")) {
    parsed.out = Help(described);
    return parsed;
  }
  if (vm.count("version")) {
    parsed.out = std::string("db version v") + CAIRN_MONGODB_VERSION + "\n" + "Cairn version v" +
                 CAIRN_VERSION + "\n";
    return parsed;
  }

  Values values;
  for (const OptionSpec& spec : kOptions) {
    if (spec.flag == nullptr || !vm.count(spec.flag)) continue;
    const po::variable_value& given = vm[spec.flag];
    if (spec.kind == Kind::kSwitch || spec.kind == Kind::kNegatedSwitch) {
      if (!given.as<bool>()) continue;  // bool_switch's default: not given
    }
    std::string path = spec.path;
    Value value;
    switch (spec.kind) {
      case Kind::kSwitch:
        value.scalar = "true";
        if (path == "security.authorization") {
          value.scalar = std::string(spec.flag) == "auth" ? "enabled" : "disabled";
          if (values.count(path)) return fail("--auth and --noauth cannot both be given");
        }
        break;
      case Kind::kNegatedSwitch:
        value.scalar = "false";
        break;
      case Kind::kList:
        value.list = given.as<std::vector<std::string>>();
        break;
      default:
        value.scalar = given.as<std::string>();
        if (path == "operationProfiling.mode") {
          if (value.scalar == "0")
            value.scalar = "off";
          else if (value.scalar == "1")
            value.scalar = "slowOp";
          else if (value.scalar == "2")
            value.scalar = "all";
          else
            return fail("--profile must be 0, 1 or 2, got " + value.scalar);
        }
        if (path == "systemLog.verbosity") {
          Result<int> level = Verbosity(value.scalar);
          if (!level.ok()) return fail(level.status().reason());
          value.scalar = std::to_string(*level);
        }
    }
    values[path] = std::move(value);
  }
  if (values.count("net.bindIp") && values.count("net.bindIpAll")) {
    return fail("--bind_ip and --bind_ip_all cannot both be given");
  }

  std::string config_path;
  if (vm.count("config")) {
    config_path = vm["config"].as<std::string>();
    Values from_file;
    try {
      Status read = ReadYaml(YAML::LoadFile(config_path), "", &from_file);
      if (!read.ok()) return fail(read.reason());
    } catch (const YAML::Exception& e) {
      return fail("cannot read the config file " + config_path + ": " + e.what());
    }
    // The command line wins; --bind_ip_all and net.bindIp override each other.
    const bool cli_binds = values.count("net.bindIp") || values.count("net.bindIpAll");
    if (from_file.count("net.bindIp") && from_file.count("net.bindIpAll")) {
      return fail("net.bindIp and net.bindIpAll cannot both be given");
    }
    for (auto& [path, value] : from_file) {
      if (cli_binds && (path == "net.bindIp" || path == "net.bindIpAll")) continue;
      if (path == "setParameter" && values.count(path)) {
        // Both sources' parameters apply; the command line's come last and win.
        std::vector<std::string> merged = value.list;
        for (std::string& p : values[path].list) merged.push_back(std::move(p));
        values[path].list = std::move(merged);
        continue;
      }
      values.emplace(path, std::move(value));
    }
  }

  StartupConfig config;
  config.server.argv = args;
  Status applied = Apply(values, &config);
  if (!applied.ok()) return fail(applied.reason());
  config.server.parsed_options = ParsedDocument(values, config_path);
  parsed.config = std::move(config);
  return parsed;
}

}  // namespace cairn::server
