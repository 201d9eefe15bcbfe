// cloneCollectionAsCapped: {cloneCollectionAsCapped: <source>, toCollection: <target>, size}:
// copies a collection into a new capped one in the same database (capped_copy.h).
#include <string>

#include "server/capped/capped_copy.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleCloneCollectionAsCapped(CommandContext& ctx, const CommandRequest& request,
                                             bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view source, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"toCollection", kArgString, true},
                                                      {"size", kArgAny, true},
                                                      {"temp", kArgBool}}));
  std::string_view target = args.GetString("toCollection");
  if (source.empty() || target.empty()) {
    return Status(ErrorCode::kInvalidNamespace, "invalid source or target collection name");
  }
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, source));
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, target));
  bson_iter_t size;
  args.Get("size", &size);
  CappedLimits limits;
  CAIRN_ASSIGN_OR_RETURN(limits.max_bytes, ParseCappedSize(&size, "cloneCollectionAsCapped"));
  return CopyIntoNewCapped(ctx.state.writes(), MakeNamespace(request.db, source),
                           MakeNamespace(request.db, target), limits);
}

}  // namespace cairn::server
