// drop: removes a collection, its documents and index entries in one atomic write. Dropping a
// collection that does not exist succeeds (MongoDB 7.0 no longer answers NamespaceNotFound).
#include "common/mutex.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleDrop(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_RETURN_IF_ERROR(CommandArgs::Parse(request, {}).status());  // validation only
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(request.db));
  std::string ns = MakeNamespace(request.db, collection);
  storage::Catalog& catalog = ctx.state.engine().catalog();
  storage::CollectionHandle existing = catalog.Find(ns);
  if (!existing) return Status::OK();
  {
    // Wait for in-flight writes to this collection before its ranges go.
    MutexLock lock(&ctx.state.writes().CollectionLock(existing->prefix));
    Status status = catalog.DropCollection(ns);
    if (!status.ok() && status.code() != ErrorCode::kNamespaceNotFound) return status;
  }
  BSON_APPEND_INT32(reply, "nIndexesWas", static_cast<int32_t>(existing->indexes.size()));
  AppendUtf8(reply, "ns", ns);
  return Status::OK();
}

}  // namespace cairn::server
