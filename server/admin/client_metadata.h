// What a client said about itself in its first hello (the `client` document drivers send):
// the readers $currentOp, the profiler, the slow-query line and failCommand's appName share.
#pragma once

#include <string_view>

#include "common/bson_doc.h"

namespace cairn::server {

// The application name in `client_metadata` (client.application.name); empty when none.
// A view into `client_metadata`.
std::string_view ApplicationName(BsonView client_metadata);

}  // namespace cairn::server
