// createIndexes: validates every requested spec (index/index_spec.h, MongoDB's codes and
// messages), creates the collection when missing, resolves each spec against the existing
// indexes — identical: nothing to do ("all indexes already exist"); same name or same key with
// other options: IndexKeySpecsConflict 86 / IndexOptionsConflict 85 — and builds the new ones
// over the existing documents under the collection lock (server/catalog/index_build.h). Reply
// {numIndexesBefore, numIndexesAfter, createdCollectionAutomatically?, note?}.
#include <string>
#include <vector>

#include "common/mutex.h"
#include "index/index_descriptor.h"
#include "index/index_spec.h"
#include "server/catalog/index_build.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"
#include "server/write/catalog_change.h"

namespace cairn::server {

namespace {

// MongoDB's limit on indexes per collection (IndexCatalogImpl kMaxNumIndexesAllowed).
constexpr size_t kMaxIndexes = 64;

// Stored-form spec of an index of the catalog entry.
struct ExistingIndex {
  std::string name;
  BsonView spec;
};

// The error when `stored` cannot be built beside `existing` (or OK: build it), and whether it is
// already there (*exists).
Status ResolveAgainst(const std::vector<ExistingIndex>& existing, BsonView stored,
                      std::string_view name, bool* exists) {
  *exists = false;
  for (const ExistingIndex& e : existing) {
    if (e.name != name) continue;
    switch (index::CompareIndexSpecs(stored, e.spec)) {
      case index::SpecMatch::kIdentical:
        *exists = true;
        return Status::OK();
      case index::SpecMatch::kEquivalent:
        return Status(ErrorCode::kIndexOptionsConflict,
                      "An equivalent index already exists with the same name but different "
                      "options. Requested index: " +
                          ToShellString(stored) + ", existing index: " + ToShellString(e.spec));
      case index::SpecMatch::kDifferent:
        return Status(ErrorCode::kIndexKeySpecsConflict,
                      "An existing index has the same name as the requested index. When index "
                      "names are not specified, they are auto generated and can cause conflicts. "
                      "Please refer to our documentation. Requested index: " +
                          ToShellString(stored) + ", existing index: " + ToShellString(e.spec));
    }
  }
  for (const ExistingIndex& e : existing) {
    switch (index::CompareIndexSpecs(stored, e.spec)) {
      case index::SpecMatch::kIdentical:
        return Status(ErrorCode::kIndexOptionsConflict,
                      "Index already exists with a different name: " + e.name);
      case index::SpecMatch::kEquivalent:
        return Status(ErrorCode::kIndexOptionsConflict,
                      "An equivalent index already exists with a different name and options. "
                      "Requested index: " +
                          ToShellString(stored) + ", existing index: " + ToShellString(e.spec));
      case index::SpecMatch::kDifferent:
        break;
    }
  }
  return Status::OK();
}

std::string_view SpecName(BsonView spec) {
  bson_iter_t it;
  return spec.Find("name", &it) && BSON_ITER_HOLDS_UTF8(&it) ? IterUtf8(&it) : std::string_view();
}

// In a transaction, as in 7.0, new indexes only on a collection created in it (by this command
// or an earlier one) and still empty: the index is built at once, outside the transaction, so
// there must be nothing of the transaction's to index.
Status CheckIndexBuildInTransaction(CommandContext& ctx, const storage::CollectionEntry& collection,
                                    bool created_now) {
  TransactionWrites* writes = WritesFor(ctx);
  const bool created_in_transaction =
      created_now || (writes != nullptr && writes->created.count(collection.prefix) > 0);
  if (!created_in_transaction) {
    return Status(ErrorCode::kOperationNotSupportedInTransaction,
                  "Cannot create new indexes on existing collection " + collection.ns +
                      " in a multi-document transaction.");
  }
  if (ReaderFor(ctx).ScanRecords(collection.prefix)->Next()) {
    return Status(ErrorCode::kOperationNotSupportedInTransaction,
                  "Cannot create new indexes on non-empty collection " + collection.ns +
                      " in a multi-document transaction.");
  }
  return Status::OK();
}

}  // namespace

CommandOutcome HandleCreateIndexes(CommandContext& ctx, const CommandRequest& request,
                                   bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(
      CommandArgs args,
      CommandArgs::Parse(request, {{"indexes", kArgArray, true},
                                   {"commitQuorum", kArgString | kArgNumber | kArgDocument},
                                   {"ignoreUnknownIndexOptions", kArgBool},
                                   {"isTimeseriesNamespace", kArgBool},
                                   {"collectionUUID", kArgAny}}));
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  ctx.state.opcounters().command++;
  const bool ignore_unknown = args.GetBool("ignoreUnknownIndexOptions", false);

  // Every spec is checked before anything changes.
  std::vector<BsonDoc> requested;
  std::vector<BsonDoc> validated;
  bson_iter_t indexes_it;
  args.Get("indexes", &indexes_it);
  bson_iter_t element;
  bson_iter_recurse(&indexes_it, &element);
  while (bson_iter_next(&element)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&element)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'createIndexes.indexes." + std::string(IterKey(&element)) +
                        "' is the wrong type '" +
                        std::string(BsonTypeName(bson_iter_type(&element))) +
                        "', expected type 'object'");
    }
    BsonDoc spec = ignore_unknown ? index::RemoveUnknownIndexSpecFields(IterDocument(&element))
                                  : BsonDoc(IterDocument(&element));
    CAIRN_ASSIGN_OR_RETURN(BsonDoc checked, index::ValidateIndexSpec(spec.view()));
    requested.push_back(std::move(spec));
    validated.push_back(std::move(checked));
  }
  if (validated.empty()) {
    return Status(ErrorCode::kBadValue, "Must specify at least one index to create");
  }
  if (args.Has("commitQuorum")) {
    return Status(ErrorCode::kBadValue, "Standalones can't specify commitQuorum");
  }
  for (const BsonDoc& spec : requested) {
    CAIRN_RETURN_IF_ERROR(index::ValidateIndexSpecTtl(spec.view()));
  }
  std::vector<BsonDoc> stored_specs;
  for (const BsonDoc& spec : validated) {
    CAIRN_ASSIGN_OR_RETURN(BsonDoc stored, index::FinalizeIndexSpec(spec.view()));
    stored_specs.push_back(std::move(stored));
  }

  std::string ns = MakeNamespace(request.db, collection);
  storage::Catalog& catalog = ctx.state.engine().catalog();
  storage::CollectionHandle handle = catalog.Find(ns);
  bool created_collection = false;
  if (!handle) {
    Result<storage::CollectionHandle> created =
        CreateCollectionLogged(ctx.state.writes(), ns, BsonView());
    if (created.ok()) {
      handle = created.value();
      created_collection = true;
      if (TransactionWrites* writes = WritesFor(ctx)) writes->created.insert(handle->prefix);
    } else if (created.status().code() == ErrorCode::kNamespaceExists) {
      handle = catalog.Find(ns);  // another connection created it first
    } else {
      return created.status();
    }
    if (!handle) return Status(ErrorCode::kNamespaceNotFound, "ns not found " + ns);
  }
  // Writers wait for the build: every document is indexed exactly once.
  MutexLock lock(&ctx.state.writes().CollectionLock(handle->prefix));
  handle = catalog.Find(ns);
  if (!handle) return Status(ErrorCode::kNamespaceNotFound, "ns not found " + ns);

  std::vector<ExistingIndex> existing;
  for (const storage::IndexEntry& entry : handle->indexes) {
    existing.push_back({entry.name, entry.spec.view()});
  }
  const size_t before = existing.size();
  std::vector<BsonDoc> to_build;
  for (BsonDoc& stored : stored_specs) {
    std::string name(SpecName(stored.view()));
    bool exists = false;
    CAIRN_RETURN_IF_ERROR(ResolveAgainst(existing, stored.view(), name, &exists));
    if (exists) continue;
    if (existing.size() >= kMaxIndexes) {
      bson_iter_t key;
      stored.view().Find("key", &key);
      return Status(ErrorCode::kCannotCreateIndex, "add index fails, too many indexes for " + ns +
                                                       " key:" + ToShellString(IterDocument(&key)));
    }
    to_build.push_back(std::move(stored));
    existing.push_back({name, to_build.back().view()});
  }

  if (!to_build.empty() && ctx.txn != nullptr) {
    CAIRN_RETURN_IF_ERROR(CheckIndexBuildInTransaction(ctx, *handle, created_collection));
  }
  if (!to_build.empty()) {
    std::vector<std::string> names;
    index::IndexState building;
    building.ready = false;
    BsonDoc state = index::EncodeIndexState(building);
    for (const BsonDoc& spec : to_build) {
      std::string name(SpecName(spec.view()));
      // A replica set logs {createIndexes: <coll>, ...spec} in the same write.
      std::vector<CommandEntry> entries(1);
      entries[0].set_collection(*handle);
      AppendUtf8(entries[0].o.get(), "createIndexes", collection);
      bson_concat(entries[0].o.get(), spec.get());
      Result<storage::CollectionHandle> added = Status(ErrorCode::kInternalError, "not created");
      Status logged = CommitCatalogChange(
          ctx.state.writes(), request.db, entries, [&](storage::WriteUnit* also) -> Status {
            added = catalog.CreateIndex(ns, name, spec.view(), state.view(), also);
            return added.status();
          });
      if (!logged.ok()) added = logged;
      if (!added.ok()) {
        for (const std::string& done : names) catalog.DropIndex(ns, done).IgnoreError();
        return added.status();
      }
      names.push_back(std::move(name));
    }
    CAIRN_RETURN_IF_ERROR(BuildIndexes(ctx.state.writes(), ns, names,
                                       "conn" + std::to_string(ctx.connection.id),
                                       ctx.interrupt.get()));
  }

  const size_t after = before + to_build.size();
  BSON_APPEND_INT32(reply, "numIndexesBefore", static_cast<int32_t>(before));
  BSON_APPEND_INT32(reply, "numIndexesAfter", static_cast<int32_t>(after));
  if (!to_build.empty() || created_collection) {
    BSON_APPEND_BOOL(reply, "createdCollectionAutomatically", created_collection);
  }
  if (after == before) {
    AppendUtf8(reply, "note", "all indexes already exist");
  } else if (after < before + validated.size()) {
    AppendUtf8(reply, "note", "index already exists");
  }
  return Status::OK();
}

}  // namespace cairn::server
