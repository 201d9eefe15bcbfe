// killCursors: closes cursors by id and reports which were killed and which were not found.
#include <vector>

#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleKillCursors(CommandContext& ctx, const CommandRequest& request,
                                 bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"cursors", kArgArray, true}}));
  std::vector<int64_t> killed, not_found;
  bson_iter_t it, element;
  args.Get("cursors", &it);
  bson_iter_recurse(&it, &element);
  while (bson_iter_next(&element)) {
    if (bson_iter_type(&element) != BSON_TYPE_INT64) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'killCursors.cursors' is the wrong type '" +
                        std::string(BsonTypeName(bson_iter_type(&element))) +
                        "', expected type 'long'");
    }
    int64_t id = bson_iter_int64(&element);
    (ctx.state.cursors().Kill(id) ? killed : not_found).push_back(id);
  }
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(request.db));
  (void)collection;  // cursors are found by id; MongoDB checks the namespace only for auth
  auto append_list = [reply](const char* name, const std::vector<int64_t>& ids) {
    bson_t array;
    BSON_APPEND_ARRAY_BEGIN(reply, name, &array);
    for (size_t i = 0; i < ids.size(); ++i) {
      std::string key = std::to_string(i);
      BSON_APPEND_INT64(&array, key.c_str(), ids[i]);
    }
    bson_append_array_end(reply, &array);
  };
  append_list("cursorsKilled", killed);
  append_list("cursorsNotFound", not_found);
  append_list("cursorsAlive", {});
  append_list("cursorsUnknown", {});
  return Status::OK();
}

}  // namespace cairn::server
