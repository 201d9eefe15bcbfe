// listCollections: the database's collections as a cursor (always one batch), each
// {name, type, options, info: {readOnly, uuid}, idIndex}, or {name, type} with nameOnly;
// an optional filter over those documents.
#include <string>

#include "query/matcher/matcher.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleListCollections(CommandContext& ctx, const CommandRequest& request,
                                     bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"filter", kArgDocument},
                                                      {"nameOnly", kArgBool},
                                                      {"authorizedCollections", kArgBool},
                                                      {"cursor", kArgDocument}}));
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(request.db));
  CAIRN_ASSIGN_OR_RETURN(query::Matcher filter, query::Matcher::Parse(args.GetDocument("filter")));
  bool name_only = args.GetBool("nameOnly", false);

  bson_t cursor, batch;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "cursor", &cursor);
  BSON_APPEND_INT64(&cursor, "id", 0);
  std::string ns = std::string(request.db) + ".$cmd.listCollections";
  AppendUtf8(&cursor, "ns", ns);
  BSON_APPEND_ARRAY_BEGIN(&cursor, "firstBatch", &batch);
  int index = 0;
  for (const auto& collection : ctx.state.engine().catalog().ListCollections(request.db)) {
    BsonDoc entry;
    AppendUtf8(entry.get(), "name", collection->collection());
    BSON_APPEND_UTF8(entry.get(), "type", "collection");
    if (!name_only) {
      BSON_APPEND_DOCUMENT(entry.get(), "options", collection->options.get());
      bson_t info;
      BSON_APPEND_DOCUMENT_BEGIN(entry.get(), "info", &info);
      BSON_APPEND_BOOL(&info, "readOnly", false);
      bson_append_binary(&info, "uuid", 4, BSON_SUBTYPE_UUID, collection->uuid, 16);
      bson_append_document_end(entry.get(), &info);
      BSON_APPEND_DOCUMENT(entry.get(), "idIndex", collection->indexes[0].spec.get());
    }
    CAIRN_ASSIGN_OR_RETURN(bool matched, filter.Matches(entry.view()));
    if (!matched) continue;
    std::string key = std::to_string(index++);
    BSON_APPEND_DOCUMENT(&batch, key.c_str(), entry.get());
  }
  bson_append_array_end(&cursor, &batch);
  bson_append_document_end(reply, &cursor);
  return Status::OK();
}

}  // namespace cairn::server
