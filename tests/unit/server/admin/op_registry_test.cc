// Specification of the OpRegistry behind $currentOp: a connection is listed while it runs a
// command (with the command, its namespace and op kind) and only when asked while idle, and it
// disappears when its connection goes.
#include "server/admin/op_registry.h"

#include <gtest/gtest.h>

#include <string>

namespace cairn::server {
namespace {

struct Request {
  BsonDoc body;
  CommandRequest request;
  Request(const char* json, std::string_view db) : body(BsonDoc::FromJson(json)) {
    request.body = body.view();
    request.db = db;
    bson_iter_t it;
    body.view().Init(&it);
    bson_iter_next(&it);
    request.name = IterKey(&it);
  }
};

std::string Field(const BsonDoc& doc, const char* name) {
  bson_iter_t it;
  if (!doc.view().Find(name, &it)) return "<missing>";
  if (BSON_ITER_HOLDS_UTF8(&it)) return std::string(IterUtf8(&it));
  if (BSON_ITER_HOLDS_BOOL(&it)) return bson_iter_bool(&it) ? "true" : "false";
  return ValueToShellString(&it);
}

ConnectionInfo Connection(int64_t id) {
  ConnectionInfo connection;
  connection.id = id;
  connection.remote = "127.0.0.1:" + std::to_string(50000 + id);
  return connection;
}

TEST(OpRegistry, ShouldListARunningCommandWithItsNamespaceAndKind) {
  struct Case {
    const char* command;
    const char* db;
    const char* ns;
    const char* op;
  };
  const Case cases[] = {
      {R"({"find": "orders", "filter": {}})", "shop", "shop.orders", "query"},
      {R"({"aggregate": 1, "pipeline": []})", "admin", "admin.$cmd.aggregate", "command"},
      {R"({"getMore": {"$numberLong": "5"}, "collection": "orders"})", "shop", "shop.orders",
       "getmore"},
      {R"({"insert": "orders", "documents": []})", "shop", "shop.orders", "insert"},
      {R"({"delete": "orders", "deletes": []})", "shop", "shop.orders", "remove"},
      {R"({"ping": 1})", "admin", "admin.$cmd", "command"},
  };
  for (const Case& c : cases) {
    OpRegistry registry;
    ConnectionInfo connection = Connection(7);
    Request request(c.command, c.db);
    OpScope running(registry, connection, request.request, nullptr);
    auto ops = registry.Report({});
    ASSERT_EQ(ops.size(), 1u) << c.command;
    EXPECT_EQ(Field(ops[0], "type"), "op");
    EXPECT_EQ(Field(ops[0], "desc"), "conn7");
    EXPECT_EQ(Field(ops[0], "client"), "127.0.0.1:50007");
    EXPECT_EQ(Field(ops[0], "active"), "true");
    EXPECT_EQ(Field(ops[0], "ns"), c.ns) << c.command;
    EXPECT_EQ(Field(ops[0], "op"), c.op) << c.command;
    bson_iter_t command;
    ASSERT_TRUE(ops[0].view().Find("command", &command));
    EXPECT_EQ(ToShellString(IterDocument(&command)), ToShellString(request.body.view()))
        << c.command;
  }
}

TEST(OpRegistry, ShouldListIdleConnectionsOnlyWhenAskedAndForgetClosedOnes) {
  OpRegistry registry;
  ConnectionInfo idle = Connection(1);
  {
    Request ping(R"({"ping": 1})", "admin");
    OpScope once(registry, idle, ping.request, nullptr);
  }
  EXPECT_TRUE(registry.Report({}).empty());
  OpRegistry::ReportOptions with_idle;
  with_idle.idle_connections = true;
  auto ops = registry.Report(with_idle);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(Field(ops[0], "active"), "false");
  EXPECT_EQ(Field(ops[0], "command"), "<missing>");
  EXPECT_EQ(Field(ops[0], "opid"), "<missing>");
  idle.op_entry.reset();  // the connection closed
  EXPECT_TRUE(registry.Report(with_idle).empty());
}

TEST(OpRegistry, ShouldKillTheRunningOperationWithThatOpid) {
  OpRegistry registry;
  ConnectionInfo first = Connection(1), second = Connection(2);
  Request find(R"({"find": "orders"})", "shop"), ping(R"({"ping": 1})", "admin");
  Interruptible find_op, ping_op;
  OpScope running_find(registry, first, find.request, &find_op);
  OpScope running_ping(registry, second, ping.request, &ping_op);
  const int64_t find_opid = first.op_entry->opid;
  EXPECT_FALSE(registry.Kill(find_opid + 100, ErrorCode::kInterrupted));
  EXPECT_TRUE(registry.Kill(find_opid, ErrorCode::kInterrupted));
  EXPECT_EQ(find_op.Check().code(), ErrorCode::kInterrupted);
  EXPECT_TRUE(ping_op.Check().ok());
  registry.KillAll(ErrorCode::kInterruptedAtShutdown);
  EXPECT_EQ(ping_op.Check().code(), ErrorCode::kInterruptedAtShutdown);
}

TEST(OpRegistry, ShouldNotKillAnOperationThatHasEnded) {
  OpRegistry registry;
  ConnectionInfo connection = Connection(3);
  Request find(R"({"find": "orders"})", "shop");
  Interruptible op;
  int64_t opid = 0;
  {
    OpScope running(registry, connection, find.request, &op);
    opid = connection.op_entry->opid;
  }
  EXPECT_FALSE(registry.Kill(opid, ErrorCode::kInterrupted));
  EXPECT_TRUE(op.Check().ok());
}

}  // namespace
}  // namespace cairn::server
