// collStats: {collStats: <collection>, scale}: the collection's counts and sizes as MongoDB 7.0
// answers (collection_stats.h says what is approximated). A collection that does not exist
// answers zeros, as MongoDB 7.0 does.
#include <string>

#include "server/catalog/collection_stats.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleCollStats(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"scale", kArgNumber},
                                                      {"verbose", kArgBool},
                                                      {"indexDetails", kArgBool},
                                                      {"indexDetailsKey", kArgDocument},
                                                      {"indexDetailsName", kArgString}}));
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  int64_t scale = args.GetInt("scale", 1);
  if (scale < 1) return Status(ErrorCode::kBadValue, "scale has to be > 0");
  std::string ns = MakeNamespace(request.db, collection);
  AppendUtf8(reply, "ns", ns);
  AppendStorageStats(ctx.state, ctx.state.engine().catalog().Find(ns), scale, reply);
  return Status::OK();
}

}  // namespace cairn::server
