// dropDatabase: drops every collection of the database in one atomic write.
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"
#include "server/write/catalog_change.h"

namespace cairn::server {

CommandOutcome HandleDropDatabase(CommandContext& ctx, const CommandRequest& request,
                                  bson_t* reply) {
  CAIRN_RETURN_IF_ERROR(CommandArgs::Parse(request, {}).status());  // validation only
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(request.db));
  storage::Catalog& catalog = ctx.state.engine().catalog();
  // A replica set logs a drop of each collection, then {dropDatabase: 1}, in the same write (as
  // mongod's entries, which it writes one by one). Nothing is logged for a database with none.
  std::vector<CommandEntry> entries;
  for (const storage::CollectionHandle& collection : catalog.ListCollections(request.db)) {
    CommandEntry& drop = entries.emplace_back();
    drop.set_collection(*collection);
    AppendUtf8(drop.o.get(), "drop", collection->collection());
    BSON_APPEND_INT64(drop.o2.get(), "numRecords",
                      ctx.state.engine().RecordCount(collection->prefix));
  }
  if (!entries.empty()) BSON_APPEND_INT32(entries.emplace_back().o.get(), "dropDatabase", 1);
  CAIRN_RETURN_IF_ERROR(
      CommitCatalogChange(ctx.state.writes(), request.db, entries, [&](storage::WriteUnit* also) {
        return catalog.DropDatabase(request.db, entries.empty() ? nullptr : also);
      }));
  AppendUtf8(reply, "dropped", request.db);
  return Status::OK();
}

}  // namespace cairn::server
