// top: {totals: {note: "all times in microseconds", "<db>.<coll>": {total, readLock, writeLock,
// queries, getmore, insert, update, remove, commands}}}, each {time, count}: mongod's Top, fed
// as each command ends (server/admin/top.h). Admin only.
#include "server/command.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleTop(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  bson_t totals;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "totals", &totals);
  BSON_APPEND_UTF8(&totals, "note", "all times in microseconds");
  ctx.state.ops().top().Append(&totals);
  bson_append_document_end(reply, &totals);
  return Status::OK();
}

}  // namespace cairn::server
