// listDatabases: databases with at least one collection, with sizeOnDisk and empty, or names
// only; an optional filter over {name, sizeOnDisk, empty}.
#include <vector>

#include "query/matcher/matcher.h"
#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleListDatabases(CommandContext& ctx, const CommandRequest& request,
                                   bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"filter", kArgDocument},
                                                      {"nameOnly", kArgBool},
                                                      {"authorizedDatabases", kArgBool}}));
  CAIRN_ASSIGN_OR_RETURN(query::Matcher filter, query::Matcher::Parse(args.GetDocument("filter")));
  bool name_only = args.GetBool("nameOnly", false);
  storage::Engine& engine = ctx.state.engine();
  int64_t total = 0;
  bson_t databases;
  BSON_APPEND_ARRAY_BEGIN(reply, "databases", &databases);
  int index = 0;
  for (const std::string& db : engine.catalog().ListDatabases()) {
    int64_t size = 0;
    if (!name_only) {
      for (const auto& collection : engine.catalog().ListCollections(db)) {
        std::vector<storage::Prefix> indexes;
        for (const auto& entry : collection->indexes) indexes.push_back(entry.prefix);
        size += static_cast<int64_t>(engine.ApproximateSize(collection->prefix, indexes));
      }
    }
    BsonDoc entry;
    AppendUtf8(entry.get(), "name", db);
    if (!name_only) {
      BSON_APPEND_INT64(entry.get(), "sizeOnDisk", size);
      BSON_APPEND_BOOL(entry.get(), "empty", false);
    }
    CAIRN_ASSIGN_OR_RETURN(bool matched, filter.Matches(entry.view()));
    if (!matched) continue;
    total += size;
    std::string key = std::to_string(index++);
    BSON_APPEND_DOCUMENT(&databases, key.c_str(), entry.get());
  }
  bson_append_array_end(reply, &databases);
  if (!name_only) {
    BSON_APPEND_INT64(reply, "totalSize", total);
    BSON_APPEND_INT64(reply, "totalSizeMb", total / (1024 * 1024));
  }
  return Status::OK();
}

}  // namespace cairn::server
