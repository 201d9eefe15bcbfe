// getCmdLineOpts: the command line cairnd started with (argv) and the options it parsed from it
// and its config file, in mongod's YAML-config shape (net.port, storage.dbPath, systemLog.*).
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
  // The merged command line and config file, as the startup parser kept them.
  const std::string& parsed = options.parsed_options;
  bson_t parsed_doc;
  if (!parsed.empty() &&
      bson_init_static(&parsed_doc, reinterpret_cast<const uint8_t*>(parsed.data()),
                       parsed.size())) {
    BSON_APPEND_DOCUMENT(reply, "parsed", &parsed_doc);
  } else {
    BsonDoc empty;
    BSON_APPEND_DOCUMENT(reply, "parsed", empty.get());
  }
  return Status::OK();
}

}  // namespace cairn::server
