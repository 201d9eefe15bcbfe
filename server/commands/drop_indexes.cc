// dropIndexes: drops indexes by name, by key pattern, a list of names, or "*" (every index but
// _id), under the collection lock; each drop removes the catalog entry and DeleteRanges the
// index's entries in one atomic write. As MongoDB 7.0: the _id index cannot be dropped
// (InvalidOptions 72), an unknown name is IndexNotFound 27, a list is checked whole before any
// index goes, and the reply is {nIndexesWas, msg?}.
#include <string>
#include <vector>

#include "common/bson_compare.h"
#include "common/mutex.h"
#include "server/catalog/index_build.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"
#include "server/write/catalog_change.h"

namespace cairn::server {

namespace {

Status CannotDropId() { return Status(ErrorCode::kInvalidOptions, "cannot drop _id index"); }

// The index names a key pattern designates (exactly one, not _id).
Result<std::string> NameByKeyPattern(const storage::CollectionEntry& collection, BsonView pattern) {
  std::vector<const storage::IndexEntry*> found;
  for (const storage::IndexEntry& entry : collection.indexes) {
    bson_iter_t key;
    if (entry.spec.view().Find("key", &key) && BSON_ITER_HOLDS_DOCUMENT(&key) &&
        CompareDocuments(IterDocument(&key), pattern) == 0) {
      found.push_back(&entry);
    }
  }
  if (found.empty()) {
    return Status(ErrorCode::kIndexNotFound,
                  "can't find index with key: " + ToShellString(pattern));
  }
  if (found.size() > 1) {
    return Status(
        ErrorCode::kAmbiguousIndexKeyPattern,
        std::to_string(found.size()) + " indexes found for key: " + ToShellString(pattern) +
            ", identify by name instead. Conflicting indexes: " +
            ToShellString(found[0]->spec.view()) + ", " + ToShellString(found[1]->spec.view()));
  }
  if (found[0] == &collection.indexes[0]) return CannotDropId();
  return found[0]->name;
}

}  // namespace

CommandOutcome HandleDropIndexes(CommandContext& ctx, const CommandRequest& request,
                                 bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(
      CommandArgs args,
      CommandArgs::Parse(request, {{"index", kArgString | kArgDocument | kArgArray, true},
                                   {"collectionUUID", kArgAny}}));
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(request.db));
  ctx.state.opcounters().command++;
  std::string ns = MakeNamespace(request.db, collection);
  storage::Catalog& catalog = ctx.state.engine().catalog();
  storage::CollectionHandle handle = catalog.Find(ns);
  if (!handle) return Status(ErrorCode::kNamespaceNotFound, "ns not found " + ns);
  MutexLock lock(&ctx.state.writes().CollectionLock(handle->prefix));
  handle = catalog.Find(ns);
  if (!handle) return Status(ErrorCode::kNamespaceNotFound, "ns not found " + ns);

  bson_iter_t index;
  args.Get("index", &index);
  std::vector<std::string> names;
  bool all = false;
  if (BSON_ITER_HOLDS_UTF8(&index)) {
    std::string_view name = IterUtf8(&index);
    if (name == "*") {
      all = true;
    } else {
      names.emplace_back(name);
    }
  } else if (BSON_ITER_HOLDS_DOCUMENT(&index)) {
    CAIRN_ASSIGN_OR_RETURN(std::string name, NameByKeyPattern(*handle, IterDocument(&index)));
    names.push_back(std::move(name));
  } else {
    bson_iter_t element;
    bson_iter_recurse(&index, &element);
    while (bson_iter_next(&element)) {
      if (!BSON_ITER_HOLDS_UTF8(&element)) {
        return Status(ErrorCode::kTypeMismatch,
                      "dropIndexes " + ns + " (" + UuidString(handle->uuid) +
                          ") failed to drop multiple indexes " + ValueToShellString(&index) +
                          ": index name must be a string");
      }
      names.emplace_back(IterUtf8(&element));
    }
  }
  if (all) {
    for (size_t i = 1; i < handle->indexes.size(); ++i) names.push_back(handle->indexes[i].name);
  } else {
    // The whole list is checked before any index is dropped.
    for (const std::string& name : names) {
      bool found = false;
      for (size_t i = 0; i < handle->indexes.size(); ++i) {
        if (handle->indexes[i].name != name) continue;
        if (i == 0) return CannotDropId();
        found = true;
      }
      if (!found) {
        return Status(ErrorCode::kIndexNotFound, "index not found with name [" + name + "]");
      }
    }
  }
  // A replica set logs each as {dropIndexes: <coll>, index: <name>} (o2: its spec) in the same
  // write.
  for (const std::string& name : names) {
    storage::CollectionHandle current = catalog.Find(ns);
    if (!current) return Status(ErrorCode::kNamespaceNotFound, "ns not found " + ns);
    std::vector<CommandEntry> entries(1);
    entries[0].set_collection(*current);
    AppendUtf8(entries[0].o.get(), "dropIndexes", current->collection());
    AppendUtf8(entries[0].o.get(), "index", name);
    for (const storage::IndexEntry& index : current->indexes) {
      if (index.name == name) bson_concat(entries[0].o2.get(), index.spec.get());
    }
    CAIRN_RETURN_IF_ERROR(CommitCatalogChange(
        ctx.state.writes(), request.db, entries,
        [&](storage::WriteUnit* also) { return catalog.DropIndex(ns, name, also); }));
  }
  BSON_APPEND_INT32(reply, "nIndexesWas", static_cast<int32_t>(handle->indexes.size()));
  if (all) AppendUtf8(reply, "msg", "non-_id indexes dropped for collection");
  return Status::OK();
}

}  // namespace cairn::server
