// convertToCapped: {convertToCapped: <collection>, size: <bytes>}: replaces the collection by a
// capped copy of itself (capped_copy.h: only the _id index remains, as in MongoDB 7.0).
#include <string>

#include "server/capped/capped_copy.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleConvertToCapped(CommandContext& ctx, const CommandRequest& request,
                                     bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args, CommandArgs::Parse(request, {{"size", kArgAny, true}}));
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  bson_iter_t size;
  args.Get("size", &size);
  CappedLimits limits;
  CAIRN_ASSIGN_OR_RETURN(limits.max_bytes, ParseCappedSize(&size, "convertToCapped"));
  return ConvertToCapped(ctx.state.writes(), MakeNamespace(request.db, collection), limits);
}

}  // namespace cairn::server
