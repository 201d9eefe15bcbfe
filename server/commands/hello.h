// What hello and serverStatus share: the member's replica-set fields as hello reports them.
#pragma once

#include <bson/bson.h>

namespace cairn::server {

class ServerState;

// serverStatus's `repl` section: topologyVersion, then hello's replica-set fields (hosts,
// setName, setVersion, isWritablePrimary, secondary, primary, me, electionId, lastWrite).
void AppendReplStatus(ServerState& state, bson_t* out);

}  // namespace cairn::server
