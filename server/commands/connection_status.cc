// connectionStatus: the authenticated users and roles of this connection (none: Cairn has no
// authentication yet).
#include "server/command.h"

namespace cairn::server {

CommandOutcome HandleConnectionStatus(CommandContext& ctx, const CommandRequest& request,
                                      bson_t* reply) {
  bson_t auth_info, users, roles;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "authInfo", &auth_info);
  BSON_APPEND_ARRAY_BEGIN(&auth_info, "authenticatedUsers", &users);
  bson_append_array_end(&auth_info, &users);
  BSON_APPEND_ARRAY_BEGIN(&auth_info, "authenticatedUserRoles", &roles);
  bson_append_array_end(&auth_info, &roles);
  bson_append_document_end(reply, &auth_info);
  return Status::OK();
}

}  // namespace cairn::server
