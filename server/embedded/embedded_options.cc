// EmbeddedConfig: JSON options -> cairnd's command line -> StartupConfig. Going through
// ParseCommandLine rather than filling the structs keeps one table of options, their checks and
// their error messages for cairnd and libcairn alike.
#include "server/embedded/embedded_options.h"

#include <bson/bson.h>

#include <array>
#include <cstdio>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"

namespace cairn::embedded {

namespace {

// Flags the library sets itself: a caller's value would contradict cairn_open's path or
// cairn_serve's addresses, or take over the application's process.
constexpr std::array<std::string_view, 19> kReserved = {"dbpath",
                                                        "storageEngine",
                                                        "port",
                                                        "bind_ip",
                                                        "bind_ip_all",
                                                        "ipv6",
                                                        "unixSocketPrefix",
                                                        "nounixsocket",
                                                        "filePermissions",
                                                        "fork",
                                                        "pidfilepath",
                                                        "config",
                                                        "f",
                                                        "help",
                                                        "h",
                                                        "version",
                                                        "ping",
                                                        "logappend",
                                                        "maxConns"};

// One JSON value as the text of a flag's argument; false when it cannot be one.
bool ScalarText(const bson_iter_t* it, std::string* out) {
  char number[64];
  switch (bson_iter_type(it)) {
    case BSON_TYPE_UTF8:
      *out = IterUtf8(it);
      return true;
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
      *out = std::to_string(bson_iter_as_int64(it));
      return true;
    case BSON_TYPE_DOUBLE:
      std::snprintf(number, sizeof number, "%.17g", bson_iter_double(it));
      *out = number;
      return true;
    case BSON_TYPE_BOOL:
      *out = bson_iter_bool(it) ? "true" : "false";
      return true;
    default:
      return false;
  }
}

// Appends the flags one JSON member stands for to `args`.
Status AppendFlag(std::string_view name, bson_iter_t* it, std::vector<std::string>* args) {
  const std::string flag = "--" + std::string(name);
  std::string text;
  if (BSON_ITER_HOLDS_BOOL(it)) {
    if (bson_iter_bool(it)) args->push_back(flag);  // false: the flag is left out
    return Status::OK();
  }
  if (BSON_ITER_HOLDS_DOCUMENT(it) || BSON_ITER_HOLDS_ARRAY(it)) {
    const bool pairs = BSON_ITER_HOLDS_DOCUMENT(it);
    bson_iter_t child;
    bson_iter_recurse(it, &child);
    while (bson_iter_next(&child)) {
      if (!ScalarText(&child, &text)) {
        return Status(ErrorCode::kBadValue, "option " + std::string(name) + ": a value of " +
                                                std::string(IterKey(&child)) + " is not a scalar");
      }
      args->push_back(flag);
      args->push_back(pairs ? std::string(IterKey(&child)) + "=" + text : text);
    }
    return Status::OK();
  }
  if (!ScalarText(it, &text)) {
    return Status(ErrorCode::kBadValue, "option " + std::string(name) + " is not a scalar");
  }
  args->push_back(flag);
  args->push_back(text);
  return Status::OK();
}

}  // namespace

Result<server::StartupConfig> EmbeddedConfig(const std::string& path, const std::string& spill_dir,
                                             const std::string& options_json) {
  const bool in_memory = path == kMemoryPath;
  std::vector<std::string> args = {"libcairn", "--dbpath", in_memory ? spill_dir : path, "--port",
                                   "0"};
  if (in_memory) {
    args.push_back("--storageEngine");
    args.push_back("inMemory");
  }
  bool has_logpath = false;
  if (!options_json.empty()) {
    bson_error_t error;
    bson_t options;
    if (!bson_init_from_json(&options, options_json.data(),
                             static_cast<ssize_t>(options_json.size()), &error)) {
      return Status(ErrorCode::kBadValue,
                    std::string("options are not a JSON object: ") + error.message);
    }
    // Copied out so the bson_t is destroyed on every path below.
    const BsonDoc owned{BsonView(&options)};
    bson_destroy(&options);
    bson_iter_t it;
    owned.view().Init(&it);
    while (bson_iter_next(&it)) {
      const std::string_view name = IterKey(&it);
      for (std::string_view reserved : kReserved) {
        if (name == reserved) {
          return Status(ErrorCode::kBadValue,
                        "option " + std::string(name) + " is set by libcairn itself");
        }
      }
      has_logpath = has_logpath || name == "logpath";
      CAIRN_RETURN_IF_ERROR(AppendFlag(name, &it, &args));
    }
  }
  server::ParsedCommandLine parsed = server::ParseCommandLine(args);
  if (!parsed.config) {
    std::string why = parsed.err.empty() ? parsed.out : parsed.err;
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return Status(ErrorCode::kBadValue, why);
  }
  server::StartupConfig config = std::move(*parsed.config);
  // An embedded database listens only where cairn_serve says (Server::Listen), and leaves the
  // application's signals and descriptor limit alone.
  config.server.bind_ips.clear();
  config.server.unix_socket = false;
  config.server.owns_process = false;
  // The application's standard output is its own: logs go where "logpath" says, else nowhere.
  // (Appending: /dev/null cannot be renamed aside as a fresh log file is.)
  if (!has_logpath) {
    config.log.path = "/dev/null";
    config.log.append = true;
  }
  return config;
}

}  // namespace cairn::embedded
