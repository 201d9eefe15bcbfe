// reIndex: {reIndex: <collection>}: every index of the collection (the _id index included)
// rebuilt from its documents, on a standalone only, as mongod 7.0 (on a replica set member,
// IllegalOperation "reIndex is only allowed on a standalone mongod instance ..."). Reply:
// nIndexesWas, nIndexes, indexes (each spec with v: 2, mongod's default index version).
// Under the collection's write lock every entry of every index is deleted and the entries the
// documents make are put, in one atomic write, so readers see the old entries or the new ones.
#include <string>
#include <vector>

#include "common/logging.h"
#include "server/catalog/collection_indexes.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// The spec as reIndex rebuilds it: every field kept, `v` set to the default version 2.
BsonDoc RebuiltSpec(BsonView spec) {
  BsonDoc out;
  bson_iter_t it;
  spec.Init(&it);
  while (bson_iter_next(&it)) {
    if (IterKey(&it) == "v") {
      BSON_APPEND_INT32(out.get(), "v", 2);
    } else {
      AppendIter(out.get(), IterKey(&it), &it);
    }
  }
  return out;
}

Status Rebuild(ServerState& state, const CollectionIndexes& indexes,
               const InterruptSlot* interrupt) {
  storage::Engine& engine = state.engine();
  const storage::CollectionHandle& collection = indexes.collection();
  storage::WriteUnit unit = engine.BeginWrite();
  for (const IndexHandle& index : indexes.all()) {
    auto cursor = engine.ScanIndex(index.prefix, {}, {});
    while (cursor->Next()) {
      CAIRN_RETURN_IF_ERROR(CheckInterrupt(interrupt));
      unit.DeleteIndexEntry(index.prefix, cursor->key());
    }
    CAIRN_RETURN_IF_ERROR(cursor->status());
  }
  index::KeySet keys;
  index::MultikeyPaths paths;
  auto records = engine.ScanRecords(collection->prefix);
  while (records->Next()) {
    CAIRN_RETURN_IF_ERROR(CheckInterrupt(interrupt));
    const storage::RecordId id = records->id();
    for (size_t i = 0; i < indexes.all().size(); ++i) {
      const IndexHandle& index = indexes.all()[i];
      paths.clear();
      CAIRN_RETURN_IF_ERROR(index.descriptor->GetKeys(records->value(), &keys, &paths));
      const bool unique = i == 0 || index.descriptor->unique();
      for (const std::string& key : keys) {
        unit.PutIndexEntry(index.prefix, IndexEntryKey(unique, key, id),
                           IndexEntryValue(unique, id));
      }
    }
  }
  CAIRN_RETURN_IF_ERROR(records->status());
  return unit.Commit();
}

}  // namespace

CommandOutcome HandleReIndex(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  const std::string ns = MakeNamespace(request.db, collection);
  {
    BsonDoc attr;
    AppendUtf8(attr.get(), "namespace", ns);
    logging::Log(logging::Severity::kWarning, "COMMAND", 6508600,
                 "conn" + std::to_string(ctx.connection.id),
                 "The reIndex command is deprecated. For more information, see "
                 "https://mongodb.com/docs/manual/reference/command/reIndex/",
                 nullptr);
    logging::Log(logging::Severity::kInfo, "COMMAND", 20457,
                 "conn" + std::to_string(ctx.connection.id), "CMD reIndex", attr.get());
  }
  if (ctx.state.repl().enabled()) {
    return Status(ErrorCode::kIllegalOperation,
                  "reIndex is only allowed on a standalone mongod instance. Cannot reIndex '" + ns +
                      "' while replication is active");
  }
  storage::Catalog& catalog = ctx.state.engine().catalog();
  storage::CollectionHandle handle = catalog.Find(ns);
  if (!handle) return Status(ErrorCode::kNamespaceNotFound, "collection does not exist");
  MutexLock lock(&ctx.state.writes().CollectionLock(handle->prefix));
  handle = catalog.Find(ns);
  if (!handle) return Status(ErrorCode::kNamespaceNotFound, "collection does not exist");
  // Index builds hold the collection lock too: none is running now.
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionIndexes> indexes, IndexesOf(handle));
  std::vector<BsonDoc> specs;
  for (const storage::IndexEntry& entry : handle->indexes) {
    specs.push_back(RebuiltSpec(entry.spec.view()));
  }
  BSON_APPEND_INT32(reply, "nIndexesWas", static_cast<int32_t>(specs.size()));
  CAIRN_RETURN_IF_ERROR(Rebuild(ctx.state, *indexes, ctx.interrupt.get()));
  BSON_APPEND_INT32(reply, "nIndexes", static_cast<int32_t>(specs.size()));
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(reply, "indexes", &array);
  for (size_t i = 0; i < specs.size(); ++i) {
    BSON_APPEND_DOCUMENT(&array, std::to_string(i).c_str(), specs[i].get());
  }
  bson_append_array_end(reply, &array);
  return Status::OK();
}

}  // namespace cairn::server
