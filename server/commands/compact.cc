// compact: {compact: <collection>, force}: storage rewrites the files holding the collection's
// documents and index entries (Engine::CompactPrefixes), dropping deleted and overwritten
// versions; the reply is mongod 7.0's {bytesFreed} (files before minus after, 0 when they grew).
// As mongod, a replica set primary refuses without force: true (IllegalOperation), a missing
// database or collection is NamespaceNotFound, and CRUD goes on meanwhile; fsyncLock holds it.
#include <string>
#include <vector>

#include "common/logging.h"
#include "server/capped/capped_options.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleCompact(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  bson_iter_t it;
  const bool force = request.body.Find("force", &it) && bson_iter_as_bool(&it);
  if (ctx.state.repl().primary() && !force) {
    return Status(ErrorCode::kIllegalOperation,
                  "will not run compact on an active replica set primary as this will slow down "
                  "other running operations. use force:true to force");
  }
  const std::string ns = MakeNamespace(request.db, collection);
  storage::Catalog& catalog = ctx.state.engine().catalog();
  storage::CollectionHandle handle = catalog.Find(ns);
  if (!handle) {
    if (catalog.ListCollections(request.db).empty()) {
      return Status(ErrorCode::kNamespaceNotFound, "database does not exist");
    }
    return Status(ErrorCode::kNamespaceNotFound, "collection does not exist");
  }
  const std::string log_context = "conn" + std::to_string(ctx.connection.id);
  {
    BsonDoc attr;
    AppendUtf8(attr.get(), "namespace", ns);
    logging::Log(logging::Severity::kInfo, "COMMAND", 20284, log_context, "Compact begin",
                 attr.get());
  }
  std::vector<storage::Prefix> indexes;
  for (const storage::IndexEntry& entry : handle->indexes) indexes.push_back(entry.prefix);
  CAIRN_ASSIGN_OR_RETURN(int64_t freed,
                         ctx.state.engine().CompactPrefixes(handle->prefix, indexes));
  if (freed < 0) freed = 0;  // writes came meanwhile
  {
    BsonDoc attr;
    AppendUtf8(attr.get(), "namespace", ns);
    BSON_APPEND_INT64(attr.get(), "bytesFreed", freed);
    logging::Log(logging::Severity::kInfo, "COMMAND", 20286, log_context, "Compact end",
                 attr.get());
  }
  AppendNumberAsMongoDB(reply, "bytesFreed", freed);
  return Status::OK();
}

}  // namespace cairn::server
