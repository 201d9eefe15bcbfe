// renameCollection (admin): {renameCollection: "db.a", to: "db.b", dropTarget}. Renames keep the
// collection's key prefix, so no data moves. Across databases it is refused for now with a
// precise error (it would copy every document).
#include <string>

#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"
#include "server/write/catalog_change.h"

namespace cairn::server {

namespace {

Status SplitNamespace(std::string_view ns, std::string_view* db, std::string_view* collection) {
  size_t dot = ns.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= ns.size()) {
    return Status(ErrorCode::kInvalidNamespace,
                  "Invalid namespace specified '" + std::string(ns) + "'");
  }
  *db = ns.substr(0, dot);
  *collection = ns.substr(dot + 1);
  return ValidateCollectionName(*db, *collection);
}

}  // namespace

CommandOutcome HandleRenameCollection(CommandContext& ctx, const CommandRequest& request,
                                      bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view from, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args, CommandArgs::Parse(request, {{"to", kArgString, true},
                                                                        {"dropTarget", kArgAny},
                                                                        {"stayTemp", kArgBool}}));
  std::string_view to = args.GetString("to");
  std::string_view from_db, from_coll, to_db, to_coll;
  CAIRN_RETURN_IF_ERROR(SplitNamespace(from, &from_db, &from_coll));
  CAIRN_RETURN_IF_ERROR(SplitNamespace(to, &to_db, &to_coll));
  if (from_db != to_db) {
    return Status(ErrorCode::kIllegalOperation,
                  "renameCollection across databases is not supported by Cairn yet");
  }
  bson_iter_t drop_target;
  bool drop = args.Get("dropTarget", &drop_target) && bson_iter_as_bool(&drop_target);
  storage::Catalog& catalog = ctx.state.engine().catalog();
  storage::CollectionHandle source = catalog.Find(from);
  if (!source) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "Source collection " + std::string(from) + " does not exist");
  }
  if (from == to) {
    return Status(ErrorCode::kIllegalOperation, "Can't rename a collection to itself");
  }
  // A replica set logs {renameCollection, to, stayTemp, dropTarget} in the same write;
  // dropTarget is the UUID of the collection the rename replaces, when there is one.
  std::vector<CommandEntry> entries(1);
  entries[0].set_collection(*source);
  bson_t* o = entries[0].o.get();
  AppendUtf8(o, "renameCollection", from);
  AppendUtf8(o, "to", to);
  BSON_APPEND_BOOL(o, "stayTemp", args.GetBool("stayTemp", false));
  storage::CollectionHandle target = drop ? catalog.Find(to) : nullptr;
  if (target) {
    BSON_APPEND_BINARY(o, "dropTarget", BSON_SUBTYPE_UUID, target->uuid, sizeof target->uuid);
  }
  Status status = CommitCatalogChange(
      ctx.state.writes(), from_db, entries,
      [&](storage::WriteUnit* also) { return catalog.RenameCollection(from, to, drop, also); });
  if (status.code() == ErrorCode::kNamespaceExists) {
    return Status(ErrorCode::kNamespaceExists, "target namespace exists");
  }
  return status;
}

}  // namespace cairn::server
