// The `{_id: <scalar>}` fast path of find (find_by_id.cc says what it accepts and why).
#pragma once

#include <optional>

#include "server/command.h"

namespace cairn::server {

// Answers `request` into `reply` when it is a plain find by _id that the fast path serves (the
// handler's status, which may be an error), or nullopt when the general find must answer it.
std::optional<Status> TryFindById(CommandContext& ctx, const CommandRequest& request,
                                  bson_t* reply);

}  // namespace cairn::server
