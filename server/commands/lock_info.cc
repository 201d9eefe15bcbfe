// lockInfo: {lockInfo: [...]} lists the lock manager's resources that have holders or waiters,
// as mongod reports them. Cairn has no lock manager: its only locks are per-collection writer
// mutexes held for the length of one write, and the fsync lock, which holds writes back at the
// dispatcher without a lock of its own (server/write/write_gate.h). So nothing is listed.
#include "server/command.h"

namespace cairn::server {

CommandOutcome HandleLockInfo(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  bson_t locks;
  BSON_APPEND_ARRAY_BEGIN(reply, "lockInfo", &locks);
  bson_append_array_end(reply, &locks);
  return Status::OK();
}

}  // namespace cairn::server
