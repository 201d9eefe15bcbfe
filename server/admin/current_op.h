// $currentOp (a leading stage of {aggregate: 1} on admin) and the currentOp command: the
// server's connections and running commands from its OpRegistry, in MongoDB's shape. Cairn has
// no authentication (allUsers changes nothing), no multi-document transactions (idleSessions
// lists nothing) and no shards (localOps changes nothing); idleCursors is accepted and lists
// nothing yet.
#pragma once

#include <optional>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/exec/leading_stage.h"

namespace cairn::server {

class ServerState;

// nullopt when the pipeline has no $currentOp; otherwise its documents and the stages after it.
// Errors as MongoDB: a spec that is not an object, or allUsers/localOps not bool, TypeMismatch
// 14; not on admin with {aggregate: 1} InvalidNamespace 73; another option not bool or an
// unknown option FailedToParse 9; $currentOp anywhere but first 40602.
Result<std::optional<LeadingStageSource>> TakeLeadingCurrentOp(ServerState& state,
                                                               std::string_view db,
                                                               bool collectionless,
                                                               BsonView pipeline);

// The "host" field of server reports: "<hostname>:<port>".
std::string ServerHostAndPort(const ServerState& state);

}  // namespace cairn::server
