// Client metadata (client_metadata.h).
#include "server/admin/client_metadata.h"

namespace cairn::server {

std::string_view ApplicationName(BsonView client_metadata) {
  bson_iter_t app, name;
  if (client_metadata.Find("application", &app) && BSON_ITER_HOLDS_DOCUMENT(&app) &&
      IterDocument(&app).Find("name", &name) && BSON_ITER_HOLDS_UTF8(&name)) {
    return IterUtf8(&name);
  }
  return {};
}

}  // namespace cairn::server
