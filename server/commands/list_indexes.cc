// listIndexes: a collection's indexes as a cursor (one batch), each spec as MongoDB prints it
// (v, unique, hidden, key, name, then the options as given). Indexes still being built are not
// listed. NamespaceNotFound 26 for a collection that does not exist, as MongoDB answers.
#include <string>

#include "index/index_descriptor.h"

#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleListIndexes(CommandContext& ctx, const CommandRequest& request,
                                 bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_RETURN_IF_ERROR(
      CommandArgs::Parse(request, {{"cursor", kArgDocument}}).status());  // validation only
  std::string ns = MakeNamespace(request.db, collection);
  storage::CollectionHandle handle = ctx.state.engine().catalog().Find(ns);
  if (!handle) return Status(ErrorCode::kNamespaceNotFound, "ns does not exist: " + ns);
  bson_t cursor, batch;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "cursor", &cursor);
  BSON_APPEND_INT64(&cursor, "id", 0);
  AppendUtf8(&cursor, "ns", ns);
  BSON_APPEND_ARRAY_BEGIN(&cursor, "firstBatch", &batch);
  size_t listed = 0;
  for (const storage::IndexEntry& entry : handle->indexes) {
    if (!index::DecodeIndexState(entry.state.view(), 0).ready) continue;
    std::string key = std::to_string(listed++);
    BSON_APPEND_DOCUMENT(&batch, key.c_str(), entry.spec.get());
  }
  bson_append_array_end(&cursor, &batch);
  bson_append_document_end(reply, &cursor);
  return Status::OK();
}

}  // namespace cairn::server
