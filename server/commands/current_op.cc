// currentOp (admin only): {currentOp: 1, $all?: bool, $ownOps?: bool, <filter fields>...} answers
// {inprog: [...]}: the $currentOp documents (idle connections too with $all: true) that match
// the filter the command's other fields make, as MongoDB runs it ($currentOp + $match).
#include <string_view>

#include "query/matcher/matcher.h"
#include "server/admin/current_op.h"
#include "server/command.h"
#include "server/commands/command_args.h"
#include "server/commands/handlers.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// Fields of the command that are not part of its filter: its own options and the generic
// arguments every command may carry.
bool IsCommandOption(std::string_view name) {
  return name == "currentOp" || name == "$all" || name == "$ownOps" || name == "$truncateOps" ||
         IsGenericArgument(name);
}

}  // namespace

CommandOutcome HandleCurrentOp(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  OpRegistry::ReportOptions options;
  BsonDoc filter;
  bson_iter_t it;
  request.body.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    if (name == "$all") {
      options.idle_connections = bson_iter_as_bool(&it);
    } else if (!IsCommandOption(name)) {
      AppendIter(filter.get(), name, &it);
    }
  }
  CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter.view()));
  options.host = ServerHostAndPort(ctx.state);
  bson_t inprog;
  BSON_APPEND_ARRAY_BEGIN(reply, "inprog", &inprog);
  int index = 0;
  for (const BsonDoc& op : ctx.state.ops().Report(options)) {
    CAIRN_ASSIGN_OR_RETURN(bool matched, matcher.Matches(op.view()));
    if (!matched) continue;
    bson_t doc = op.view().AsBson();
    std::string key = std::to_string(index++);
    bson_append_document(&inprog, key.c_str(), static_cast<int>(key.size()), &doc);
  }
  bson_append_array_end(reply, &inprog);
  if (ctx.state.writes().gate().locked()) {
    BSON_APPEND_BOOL(reply, "fsyncLock", true);
    BSON_APPEND_UTF8(reply, "info",
                     "use db.fsyncUnlock() to terminate the fsync write/snapshot lock");
  }
  return Status::OK();
}

}  // namespace cairn::server
