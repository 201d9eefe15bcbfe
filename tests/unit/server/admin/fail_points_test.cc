// FailPoint: configureFailPoint's modes parsed with mongod's errors, how each mode counts passes
// (times, skip, activationProbability), that passes a predicate refuses count for nothing, and
// failCommand's rules for which commands and connections it catches.
#include "server/admin/fail_points.h"

#include <gtest/gtest.h>

#include <string>

#include "common/bson_doc.h"

namespace cairn::server {
namespace {

FailPointSettings Parse(const char* json) {
  Result<FailPointSettings> settings = ParseFailPointSettings(BsonDoc::FromJson(json).view());
  EXPECT_TRUE(settings.ok()) << json << ": " << settings.status().ToString();
  return settings.ok() ? std::move(settings.value()) : FailPointSettings{};
}

ErrorCode ParseError(const char* json) {
  Result<FailPointSettings> settings = ParseFailPointSettings(BsonDoc::FromJson(json).view());
  return settings.ok() ? ErrorCode::kOK : settings.status().code();
}

std::string Hits(FailPoint& point, int passes) {
  std::string out;
  for (int i = 0; i < passes; ++i) out += point.Evaluate() ? 'x' : '.';
  return out;
}

TEST(FailPointSettings, ShouldRefuseWhatMongodRefuses) {
  EXPECT_EQ(ParseError(R"({"configureFailPoint": "failCommand"})"), ErrorCode::kIllegalOperation);
  EXPECT_EQ(ParseError(R"({"mode": "sometimes"})"), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"mode": 1})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseError(R"({"mode": {"times": -1}})"), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"mode": {"times": 3000000000}})"), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"mode": {"times": "2"}})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseError(R"({"mode": {"times": 1.5}})"), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"mode": {"skip": -2}})"), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"mode": {"activationProbability": 1.5}})"), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"mode": {"activationProbability": "1"}})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseError(R"({"mode": {"period": 2}})"), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"mode": "alwaysOn", "data": 3})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseError(R"({"mode": "off"})"), ErrorCode::kOK);
}

TEST(FailPoint, ShouldCountEachModesPasses) {
  FailPoint point("test");
  EXPECT_EQ(Hits(point, 3), "...");  // off at first
  EXPECT_EQ(point.Configure(Parse(R"({"mode": "alwaysOn"})")), 0);
  EXPECT_EQ(Hits(point, 3), "xxx");
  EXPECT_EQ(point.Configure(Parse(R"({"mode": {"times": 2}})")), 3);
  EXPECT_EQ(Hits(point, 4), "xx..");
  EXPECT_EQ(point.Configure(Parse(R"({"mode": {"skip": 2}})")), 5);
  EXPECT_EQ(Hits(point, 5), "..xxx");
  EXPECT_EQ(point.Configure(Parse(R"({"mode": {"activationProbability": 0}})")), 8);
  EXPECT_EQ(Hits(point, 100), std::string(100, '.'));
  point.Configure(Parse(R"({"mode": {"activationProbability": 1}})"));
  EXPECT_EQ(Hits(point, 100), std::string(100, 'x'));
  EXPECT_EQ(point.Configure(Parse(R"({"mode": "off"})")), 108);
  EXPECT_EQ(Hits(point, 2), "..");
  EXPECT_EQ(point.times_entered(), 108);
}

TEST(FailPoint, ShouldNotCountPassesItsPredicateRefuses) {
  FailPoint point("test");
  point.Configure(Parse(R"({"mode": {"times": 1}, "data": {"x": 1}})"));
  EXPECT_FALSE(point.Evaluate([](BsonView) { return false; }));
  std::shared_ptr<const BsonDoc> data = point.Evaluate([](BsonView data) {
    bson_iter_t it;
    return data.Find("x", &it);
  });
  ASSERT_TRUE(data);
  EXPECT_EQ(data->ToJson(), R"({ "x" : 1 })");
  EXPECT_FALSE(point.Evaluate());  // its one time is used
  EXPECT_EQ(point.times_entered(), 1);
}

CommandOutcome Handler(CommandContext&, const CommandRequest&, bson_t*) { return Status::OK(); }
CommandOutcome OtherHandler(CommandContext&, const CommandRequest&, bson_t*) {
  return Status::OK();
}

const CommandDef kHello{"hello", Handler, false, false, ""};
const CommandDef kIsMaster{"isMaster", Handler, false, false, ""};
const CommandDef kFind{"find", OtherHandler, false, true, ""};
const CommandDef kConfigure{"configureFailPoint", OtherHandler, true, false, ""};

const CommandDef* FindTestCommand(std::string_view name) {
  for (const CommandDef* def : {&kHello, &kIsMaster, &kFind, &kConfigure}) {
    if (def->name == name) return def;
  }
  return nullptr;
}

struct Target {
  BsonDoc body;
  CommandRequest request;
  ConnectionInfo connection;
  FailCommandTarget target;
  Target(const CommandDef& def, const char* body_json, const char* client_json = nullptr)
      : body(BsonDoc::FromJson(body_json)) {
    request.name = def.name;
    request.db = "test";
    request.body = body.view();
    connection.id = 7;
    if (client_json != nullptr) {
      connection.client_metadata = BsonDoc::FromJson(client_json);
      connection.saw_hello = true;
    }
    target = {&def, &request, &connection, FindTestCommand};
  }
};

bool Applies(const char* data, const Target& target) {
  return FailCommandApplies(BsonDoc::FromJson(data).view(), target.target);
}

TEST(FailCommand, ShouldCatchListedCommandsAndTheirAliases) {
  Target find(kFind, R"({"find": "c"})");
  Target hello(kHello, R"({"hello": 1})");
  EXPECT_TRUE(Applies(R"({"failCommands": ["find"]})", find));
  EXPECT_FALSE(Applies(R"({"failCommands": ["insert"]})", find));
  EXPECT_FALSE(Applies(R"({"errorCode": 2})", find));
  EXPECT_TRUE(Applies(R"({"failCommands": ["isMaster"]})", hello));
  EXPECT_TRUE(Applies(R"({"failAllCommands": true})", hello));
  Target configure(kConfigure, R"({"configureFailPoint": "failCommand"})");
  EXPECT_FALSE(Applies(R"({"failCommands": ["configureFailPoint"]})", configure));
  EXPECT_FALSE(Applies(R"({"failAllCommands": true})", configure));
}

TEST(FailCommand, ShouldCatchOnlyTheNamedClientAndNamespace) {
  Target app(kFind, R"({"find": "c"})", R"({"application": {"name": "app"}})");
  Target anonymous(kFind, R"({"find": "c"})");
  EXPECT_TRUE(Applies(R"({"failCommands": ["find"], "appName": "app"})", app));
  EXPECT_FALSE(Applies(R"({"failCommands": ["find"], "appName": "app"})", anonymous));
  EXPECT_TRUE(Applies(R"({"failCommands": ["find"], "threadName": "conn7"})", app));
  EXPECT_FALSE(Applies(R"({"failCommands": ["find"], "threadName": "conn8"})", app));
  EXPECT_TRUE(Applies(R"({"failCommands": ["find"], "namespace": "test.c"})", app));
  EXPECT_FALSE(Applies(R"({"failCommands": ["find"], "namespace": "test.d"})", app));
  // The first hello's own client metadata counts, as mongod records it before looking.
  Target first_hello(kHello, R"({"hello": 1, "client": {"application": {"name": "app"}}})");
  EXPECT_TRUE(Applies(R"({"failCommands": ["hello"], "appName": "app"})", first_hello));
  // Internal clients only with failInternalCommands.
  app.connection.internal_client = true;
  EXPECT_FALSE(Applies(R"({"failCommands": ["find"]})", app));
  EXPECT_TRUE(Applies(R"({"failCommands": ["find"], "failInternalCommands": true})", app));
}

TEST(FailCommand, ShouldReadWhatAHitDoes) {
  FailCommandHit hit = FailCommandHit::FromData(std::make_shared<const BsonDoc>(
      BsonDoc::FromJson(R"({"errorCode": 91, "blockConnection": true, "blockTimeMS": 20})")));
  EXPECT_TRUE(hit.block_connection);
  EXPECT_FALSE(hit.close_connection);
  ASSERT_TRUE(hit.BlockTimeMs().ok());
  EXPECT_EQ(*hit.BlockTimeMs(), 20);
  ConnectionInfo connection;
  Status outcome = hit.Outcome(&connection);
  EXPECT_EQ(outcome.code_number(), 91);
  EXPECT_EQ(outcome.reason(), "Failing command via 'failCommand' failpoint");
  EXPECT_FALSE(connection.end_session);

  FailCommandHit close = FailCommandHit::FromData(
      std::make_shared<const BsonDoc>(BsonDoc::FromJson(R"({"closeConnection": true})")));
  EXPECT_EQ(close.Outcome(&connection).code_number(), 50985);
  EXPECT_TRUE(connection.end_session);

  FailCommandHit no_time = FailCommandHit::FromData(
      std::make_shared<const BsonDoc>(BsonDoc::FromJson(R"({"blockConnection": true})")));
  EXPECT_EQ(no_time.BlockTimeMs().status().code(), ErrorCode::kInvalidOptions);
}

}  // namespace
}  // namespace cairn::server
