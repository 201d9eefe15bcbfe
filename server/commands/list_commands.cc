// listCommands: generated from the command table (name, help, adminOnly, requiresAuth); test
// commands only with enableTestCommands, as mongod lists them.
#include <string>

#include "server/commands/command_table.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleListCommands(CommandContext& ctx, const CommandRequest& request,
                                  bson_t* reply) {
  bson_t commands;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "commands", &commands);
  for (const CommandDef& def : AllCommands()) {
    if (def.test_only && !ctx.state.parameters().enable_test_commands.load()) continue;
    std::string name(def.name);
    bson_t entry;
    bson_append_document_begin(&commands, name.data(), static_cast<int>(name.size()), &entry);
    AppendUtf8(&entry, "help", def.help);
    BSON_APPEND_BOOL(&entry, "requiresAuth", def.requires_auth);
    BSON_APPEND_BOOL(&entry, "adminOnly", def.admin_only);
    bson_append_document_end(&commands, &entry);
  }
  bson_append_document_end(reply, &commands);
  return Status::OK();
}

}  // namespace cairn::server
