// explain: {explain: {<command>...}, verbosity}. Runs the explained command's own handler with
// CommandContext::explain set, so the command validates its arguments exactly as when it runs,
// then answers with its plan (server/exec/explain.h) instead of executing. Explainable: aggregate,
// find, count, distinct, update, delete, findAndModify. As MongoDB 7.0: an unknown command is
// CommandNotFound 59 "Explain failed due to unknown command: x", others are IllegalOperation 20
// "Cannot explain cmd: x", verbosity defaults to allPlansExecution, a write explain takes one
// statement.
#include <string>

#include "server/commands/command_args.h"
#include "server/commands/command_table.h"
#include "server/exec/explain.h"

namespace cairn::server {

namespace {

constexpr std::string_view kExplainable[] = {
    "aggregate", "count", "delete", "distinct", "find", "findAndModify", "findandmodify", "update"};

}  // namespace

CommandOutcome HandleExplain(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  bson_iter_t first;
  request.body.Init(&first);
  bson_iter_next(&first);
  if (!BSON_ITER_HOLDS_DOCUMENT(&first)) {
    return Status(ErrorCode::kBadValue, "explain command requires a nested object");
  }
  CAIRN_ASSIGN_OR_RETURN(
      CommandArgs args,
      CommandArgs::Parse(request, {{"verbosity", kArgString}, {"maxTimeMS", kArgNumber}}));
  ExplainOptions options;
  std::string_view verbosity = args.GetString("verbosity", "allPlansExecution");
  if (verbosity == "queryPlanner") {
    options.verbosity = ExplainVerbosity::kQueryPlanner;
  } else if (verbosity == "executionStats") {
    options.verbosity = ExplainVerbosity::kExecutionStats;
  } else if (verbosity == "allPlansExecution") {
    options.verbosity = ExplainVerbosity::kAllPlansExecution;
  } else {
    return Status(ErrorCode::kBadValue, "Enumeration value '" + std::string(verbosity) +
                                            "' for field 'verbosity' is not a valid value.");
  }
  BsonView inner = IterDocument(&first);
  bson_iter_t inner_first;
  if (!inner.Init(&inner_first) || !bson_iter_next(&inner_first)) {
    return Status(ErrorCode::kBadValue, "explain command requires a nested object");
  }
  std::string_view name = IterKey(&inner_first);
  const CommandDef* def = FindCommand(name);
  if (def == nullptr) {
    return Status(ErrorCode::kCommandNotFound,
                  "Explain failed due to unknown command: " + std::string(name));
  }
  bool explainable = false;
  for (std::string_view candidate : kExplainable) explainable = explainable || candidate == name;
  if (!explainable) {
    return Status(ErrorCode::kIllegalOperation, "Cannot explain cmd: " + std::string(name));
  }
  options.command = inner;
  options.reply = reply;
  CommandRequest explained;
  explained.name = name;
  explained.db = request.db;
  explained.body = inner;
  CommandContext explained_ctx{ctx.state, ctx.connection, &options, nullptr, ctx.interrupt};
  // An explained command runs no cursor, so it asks for no continuation.
  return def->handler(explained_ctx, explained, reply).status();
}

}  // namespace cairn::server
