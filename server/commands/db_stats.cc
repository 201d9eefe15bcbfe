// dbStats: counts and sizes of one database (collections, objects, data and index sizes).
#include <vector>

#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleDbStats(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(
      CommandArgs args,
      CommandArgs::Parse(request, {{"scale", kArgNumber}, {"freeStorage", kArgNumber}}));
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(request.db));
  int64_t scale = args.GetInt("scale", 1);
  if (scale <= 0) return Status(ErrorCode::kBadValue, "Scale factor must be a positive integer");
  storage::Engine& engine = ctx.state.engine();
  int64_t collections = 0, objects = 0, data_size = 0, storage_size = 0, indexes = 0;
  for (const auto& collection : engine.catalog().ListCollections(request.db)) {
    ++collections;
    objects += engine.RecordCount(collection->prefix);
    data_size += engine.DataSize(collection->prefix);
    storage_size += static_cast<int64_t>(engine.ApproximateSize(collection->prefix, {}));
    indexes += static_cast<int64_t>(collection->indexes.size());
  }
  AppendUtf8(reply, "db", request.db);
  BSON_APPEND_INT64(reply, "collections", collections);
  BSON_APPEND_INT64(reply, "views", 0);
  BSON_APPEND_INT64(reply, "objects", objects);
  BSON_APPEND_DOUBLE(reply, "avgObjSize", objects ? static_cast<double>(data_size) / objects : 0.0);
  BSON_APPEND_DOUBLE(reply, "dataSize", static_cast<double>(data_size) / scale);
  BSON_APPEND_DOUBLE(reply, "storageSize", static_cast<double>(storage_size) / scale);
  BSON_APPEND_INT64(reply, "indexes", indexes);
  BSON_APPEND_DOUBLE(reply, "totalSize", static_cast<double>(storage_size) / scale);
  BSON_APPEND_INT64(reply, "scaleFactor", scale);
  return Status::OK();
}

}  // namespace cairn::server
