// getCmdLineOpts: the command line cairnd started with (argv) and the options it parsed, in
// mongod's YAML-config shape (net.port, net.bindIp, storage.dbPath, systemLog.*).
#include <string>

#include "server/command.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleGetCmdLineOpts(CommandContext& ctx, const CommandRequest& request,
                                    bson_t* reply) {
  const ServerOptions& options = ctx.state.options();
  bson_t argv;
  BSON_APPEND_ARRAY_BEGIN(reply, "argv", &argv);
  for (size_t i = 0; i < options.argv.size(); ++i) {
    std::string key = std::to_string(i);
    BSON_APPEND_UTF8(&argv, key.c_str(), options.argv[i].c_str());
  }
  bson_append_array_end(reply, &argv);
  bson_t parsed, net, storage, log;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "parsed", &parsed);
  BSON_APPEND_DOCUMENT_BEGIN(&parsed, "net", &net);
  std::string bind_ip;
  for (const std::string& ip : options.bind_ips) {
    if (!bind_ip.empty()) bind_ip += ",";
    bind_ip += ip;
  }
  BSON_APPEND_UTF8(&net, "bindIp", bind_ip.c_str());
  BSON_APPEND_INT32(&net, "port", options.port);
  bson_append_document_end(&parsed, &net);
  if (!options.set_parameters.empty()) {
    // mongod shows each --setParameter as a string under its name.
    bson_t set_parameter;
    BSON_APPEND_DOCUMENT_BEGIN(&parsed, "setParameter", &set_parameter);
    for (const std::string& assignment : options.set_parameters) {
      size_t eq = assignment.find('=');
      std::string value = eq == std::string::npos ? std::string() : assignment.substr(eq + 1);
      AppendUtf8(&set_parameter, std::string_view(assignment).substr(0, eq), value);
    }
    bson_append_document_end(&parsed, &set_parameter);
  }
  BSON_APPEND_DOCUMENT_BEGIN(&parsed, "storage", &storage);
  BSON_APPEND_UTF8(&storage, "dbPath", options.dbpath.c_str());
  bson_append_document_end(&parsed, &storage);
  if (!options.logpath.empty() || options.quiet) {
    BSON_APPEND_DOCUMENT_BEGIN(&parsed, "systemLog", &log);
    if (!options.logpath.empty()) {
      BSON_APPEND_UTF8(&log, "destination", "file");
      BSON_APPEND_UTF8(&log, "path", options.logpath.c_str());
    }
    if (options.quiet) BSON_APPEND_BOOL(&log, "quiet", true);
    bson_append_document_end(&parsed, &log);
  }
  bson_append_document_end(reply, &parsed);
  return Status::OK();
}

}  // namespace cairn::server
