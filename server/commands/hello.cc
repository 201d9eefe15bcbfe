// hello / isMaster / ismaster: the handshake every driver starts with. Standalone server,
// MongoDB 7.0's limits and wire versions; no topologyVersion (so drivers poll rather than use
// the streaming protocol) and no compression (none is negotiated).
#include <chrono>

#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

CommandOutcome HandleHello(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  bson_iter_t it;
  bool hello_ok = false;
  if (request.body.Find("helloOk", &it)) hello_ok = bson_iter_as_bool(&it);
  if (!ctx.connection.saw_hello && request.body.Find("client", &it) &&
      BSON_ITER_HOLDS_DOCUMENT(&it)) {
    ctx.connection.client_metadata = BsonDoc(IterDocument(&it));
  }
  ctx.connection.saw_hello = true;

  if (request.name == "hello") {
    BSON_APPEND_BOOL(reply, "isWritablePrimary", true);
  } else {
    if (hello_ok) BSON_APPEND_BOOL(reply, "helloOk", true);
    BSON_APPEND_BOOL(reply, "ismaster", true);
  }
  BSON_APPEND_INT32(reply, "maxBsonObjectSize", kMaxBsonObjectSize);
  BSON_APPEND_INT32(reply, "maxMessageSizeBytes", kMaxMessageSizeBytes);
  BSON_APPEND_INT32(reply, "maxWriteBatchSize", kMaxWriteBatchSize);
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  BSON_APPEND_DATE_TIME(reply, "localTime", now);
  BSON_APPEND_INT32(reply, "logicalSessionTimeoutMinutes", 30);
  BSON_APPEND_INT64(reply, "connectionId", ctx.connection.id);
  BSON_APPEND_INT32(reply, "minWireVersion", 0);
  BSON_APPEND_INT32(reply, "maxWireVersion", 21);
  BSON_APPEND_BOOL(reply, "readOnly", false);
  return Status::OK();
}

}  // namespace cairn::server
