// drop: removes a collection, its documents and index entries in one atomic write. Dropping a
// collection that does not exist succeeds (MongoDB 7.0 no longer answers NamespaceNotFound).
#include "common/mutex.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"
#include "server/write/catalog_change.h"

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
    // A replica set logs {drop: <coll>} (o2: the count dropped) in the same write.
    std::vector<CommandEntry> entries(1);
    entries[0].set_collection(*existing);
    BSON_APPEND_UTF8(entries[0].o.get(), "drop", std::string(collection).c_str());
    BSON_APPEND_INT64(entries[0].o2.get(), "numRecords",
                      ctx.state.engine().RecordCount(existing->prefix));
    Status status = CommitCatalogChange(
        ctx.state.writes(), request.db, entries,
        [&](storage::WriteUnit* also) { return catalog.DropCollection(ns, also); });
    if (!status.ok() && status.code() != ErrorCode::kNamespaceNotFound) return status;
  }
  BSON_APPEND_INT32(reply, "nIndexesWas", static_cast<int32_t>(existing->indexes.size()));
  AppendUtf8(reply, "ns", ns);
  return Status::OK();
}

}  // namespace cairn::server
