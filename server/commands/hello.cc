// hello / isMaster / ismaster: the handshake every driver starts with, and the topology it
// monitors. A standalone, an uninitiated --replSet member and a primary answer as the mongod in
// that state does (server/repl/replication_coordinator.h), MongoDB 7.0's limits and wire
// versions, and topologyVersion. Awaitable hello: a request carrying the current topologyVersion
// and maxAwaitTimeMS is answered when the topology changes or maxAwaitTimeMS passes; the wait is
// handed to the connection loop (kAwaitTopology), which holds no thread meanwhile. With OP_MSG's
// exhaustAllowed the replies stream (moreToCome): one per topology change or maxAwaitTimeMS.
#include <chrono>

#include "server/commands/hello.h"

#include "common/wall_clock.h"
#include "server/commands/command_args.h"
#include "server/repl/replication_coordinator.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

void AppendTopologyVersion(ServerState& state, int64_t counter, bson_t* reply) {
  bson_t version;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "topologyVersion", &version);
  BSON_APPEND_OID(&version, "processId", &state.repl().process_id());
  BSON_APPEND_INT64(&version, "counter", counter);
  bson_append_document_end(reply, &version);
}

void AppendWritablePrimary(bool is_hello, bool hello_ok, bool value, bson_t* reply) {
  if (is_hello) {
    BSON_APPEND_BOOL(reply, "isWritablePrimary", value);
  } else {
    if (hello_ok) BSON_APPEND_BOOL(reply, "helloOk", true);
    BSON_APPEND_BOOL(reply, "ismaster", value);
  }
}

// The member's replica-set fields (none on a standalone but isWritablePrimary).
void AppendMemberFields(ServerState& state, const Topology& topology, bool is_hello, bool hello_ok,
                        bson_t* reply) {
  switch (topology.state) {
    case MemberState::kStandalone:
      AppendWritablePrimary(is_hello, hello_ok, true, reply);
      break;
    case MemberState::kUninitiated:
      AppendWritablePrimary(is_hello, hello_ok, false, reply);
      BSON_APPEND_BOOL(reply, "secondary", false);
      AppendUtf8(reply, "info", "Does not have a valid replica set config");
      BSON_APPEND_BOOL(reply, "isreplicaset", true);
      break;
    case MemberState::kPrimary: {
      const ReplSetConfig& config = *topology.config;
      bson_t hosts;
      BSON_APPEND_ARRAY_BEGIN(reply, "hosts", &hosts);
      AppendUtf8(&hosts, "0", config.member.host);
      bson_append_array_end(reply, &hosts);
      AppendUtf8(reply, "setName", config.set_name);
      BSON_APPEND_INT32(reply, "setVersion", config.version);
      AppendWritablePrimary(is_hello, hello_ok, true, reply);
      BSON_APPEND_BOOL(reply, "secondary", false);
      AppendUtf8(reply, "primary", config.member.host);
      AppendUtf8(reply, "me", config.member.host);
      bson_oid_t election_id = ElectionId(topology.term);
      BSON_APPEND_OID(reply, "electionId", &election_id);
      bson_t last_write;
      BSON_APPEND_DOCUMENT_BEGIN(reply, "lastWrite", &last_write);
      const Timestamp applied = state.repl().last_applied();
      const int64_t applied_wall = state.repl().last_applied_wall_ms();
      AppendOpTime(&last_write, "opTime", applied, topology.term);
      BSON_APPEND_DATE_TIME(&last_write, "lastWriteDate", applied_wall / 1000 * 1000);
      AppendOpTime(&last_write, "majorityOpTime", applied, topology.term);
      BSON_APPEND_DATE_TIME(&last_write, "majorityWriteDate", applied_wall / 1000 * 1000);
      bson_append_document_end(reply, &last_write);
      break;
    }
  }
}

// The whole reply, as of now. Returns the topology counter the reply shows.
int64_t AppendHello(CommandContext& ctx, bool is_hello, bool hello_ok, bson_t* reply) {
  ServerState& state = ctx.state;
  std::shared_ptr<const Topology> topology = state.repl().topology();
  AppendTopologyVersion(state, topology->counter, reply);
  AppendMemberFields(state, *topology, is_hello, hello_ok, reply);
  BSON_APPEND_INT32(reply, "maxBsonObjectSize", kMaxBsonObjectSize);
  BSON_APPEND_INT32(reply, "maxMessageSizeBytes", kMaxMessageSizeBytes);
  BSON_APPEND_INT32(reply, "maxWriteBatchSize", kMaxWriteBatchSize);
  auto now = WallClockMillis();
  BSON_APPEND_DATE_TIME(reply, "localTime", now);
  BSON_APPEND_INT32(reply, "logicalSessionTimeoutMinutes", 30);
  BSON_APPEND_INT64(reply, "connectionId", ctx.connection.id);
  BSON_APPEND_INT32(reply, "minWireVersion", 0);
  BSON_APPEND_INT32(reply, "maxWireVersion", 21);
  BSON_APPEND_BOOL(reply, "readOnly", false);
  return topology->counter;
}

// The awaitable-hello arguments: the topologyVersion the client has seen and maxAwaitTimeMS,
// checked as mongod checks them. *wait is set when the client's version is the current one;
// *max_await_ms stays -1 when the request is not awaitable.
Status ParseAwait(ServerState& state, const CommandRequest& request, bool* wait,
                  int64_t* max_await_ms, int64_t* counter) {
  bson_iter_t version_it, max_it;
  const bool has_version = request.body.Find("topologyVersion", &version_it);
  const bool has_max = request.body.Find("maxAwaitTimeMS", &max_it);
  *wait = false;
  *max_await_ms = -1;
  if (!has_version && !has_max) return Status::OK();
  if (has_version && !has_max) {
    return Status(ErrorCode::kLocation31368,
                  "A request with a 'topologyVersion' must include 'maxAwaitTimeMS'");
  }
  if (!has_version) {
    return Status(ErrorCode::kLocation31370,
                  "A request with 'maxAwaitTimeMS' must include a 'topologyVersion'");
  }
  if (!IterAsInt64(&max_it, max_await_ms)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'maxAwaitTimeMS' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&max_it))) +
                                                "', expected type 'long'");
  }
  if (*max_await_ms < 0) {
    return Status(ErrorCode::kLocation31373, "maxAwaitTimeMS must be a non-negative integer");
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(&version_it)) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'topologyVersion' is the wrong type '" +
                      std::string(BsonTypeName(bson_iter_type(&version_it))) +
                      "', expected type 'object'");
  }
  BsonView version = IterDocument(&version_it);
  bson_iter_t process_it, counter_it;
  if (!version.Find("processId", &process_it) || !BSON_ITER_HOLDS_OID(&process_it) ||
      !version.Find("counter", &counter_it) || !IterAsInt64(&counter_it, counter)) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'TopologyVersion.processId' or 'TopologyVersion.counter' is missing "
                  "but a required field");
  }
  if (!bson_oid_equal(bson_iter_oid(&process_it), &state.repl().process_id())) {
    return Status::OK();  // another process: answer at once
  }
  const int64_t current = state.repl().topology()->counter;
  if (*counter > current) {
    return Status(ErrorCode::kLocation31382,
                  "Received a topology version with the same process ID and a higher counter. "
                  "Received: " +
                      std::to_string(*counter) + ", current: " + std::to_string(current));
  }
  *wait = *counter == current;
  return Status::OK();
}

// What follows a streamed reply that showed topology counter `shown`: the next reply, after the
// topology moves past it or the wait passes.
Continuation StreamAfter(Continuation next, int64_t shown) {
  next.kind = Continuation::Kind::kNone;
  next.version = static_cast<uint64_t>(shown);
  return next;
}

CommandOutcome ResumeHello(CommandContext& ctx, const Continuation& self, bson_t* reply) {
  const int64_t shown = AppendHello(ctx, self.ns == "hello", self.batch_size != 0, reply);
  if (!self.exhaust) return Status::OK();
  return StreamAfter(self, shown);
}

}  // namespace

CommandOutcome HandleHello(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  bson_iter_t it;
  bool hello_ok = false;
  if (request.body.Find("helloOk", &it)) hello_ok = bson_iter_as_bool(&it);
  if (!ctx.connection.saw_hello && request.body.Find("client", &it) &&
      BSON_ITER_HOLDS_DOCUMENT(&it)) {
    ctx.connection.client_metadata = BsonDoc(IterDocument(&it));
  }
  ctx.connection.saw_hello = true;
  // A cluster member introduces itself so (mongod tags the session kInternalClient).
  if (request.body.Find("internalClient", &it)) ctx.connection.internal_client = true;
  bool wait = false;
  int64_t max_await_ms = 0, counter = 0;
  Status status = ParseAwait(ctx.state, request, &wait, &max_await_ms, &counter);
  if (!status.ok()) return status;
  const bool is_hello = request.name == "hello";
  const int64_t shown = AppendHello(ctx, is_hello, hello_ok, reply);
  // OP_QUERY runs hello alone and takes no continuation (the legacy handshake never awaits).
  // An awaitable hello that allows exhaust streams its replies, as mongod's does.
  const bool stream = request.exhaust_allowed && !request.from_op_query && max_await_ms >= 0;
  if ((!wait && !stream) || request.from_op_query) return Status::OK();
  Continuation next;
  next.kind = Continuation::Kind::kAwaitTopology;
  next.version = static_cast<uint64_t>(counter);
  next.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(max_await_ms);
  next.ns = is_hello ? "hello" : "isMaster";
  next.batch_size = hello_ok ? 1 : 0;
  next.resume = ResumeHello;
  next.exhaust = stream;
  next.await_ms = max_await_ms;
  return wait ? next : StreamAfter(next, shown);
}

void AppendReplStatus(ServerState& state, bson_t* out) {
  std::shared_ptr<const Topology> topology = state.repl().topology();
  AppendTopologyVersion(state, topology->counter, out);
  AppendMemberFields(state, *topology, /*is_hello=*/true, /*hello_ok=*/false, out);
}

}  // namespace cairn::server
