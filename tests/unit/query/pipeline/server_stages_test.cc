// Specification of the source stages that report the server's state — $collStats, $currentOp
// and $listLocalSessions — over an in-memory ServerSources standing in for the server: the
// documents they output (and that later stages read), the parsed argument the server gets, and
// MongoDB's argument, namespace and position errors.
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "query/pipeline/pipeline.h"
#include "query/pipeline/server_sources.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::C;
using testing::RunPipeline;

// Answers with fixed documents and records what it was asked.
class FakeServerSources final : public ServerSources {
 public:
  Result<BsonDoc> CollStats(std::string_view ns, const CollStatsSpec& spec) override {
    asked_ns = std::string(ns);
    coll_stats = spec;
    return BsonDoc::FromJson(R"({"ns": ")" + std::string(ns) + R"(", "count": {"count": 3}})");
  }
  Result<std::vector<BsonDoc>> CurrentOp(const CurrentOpSpec& spec) override {
    current_op = spec;
    return testing::Docs({R"({"opid": 1, "active": true})", R"({"opid": 2, "active": false})"});
  }
  Result<std::vector<BsonDoc>> ListLocalSessions(const ListLocalSessionsSpec& spec) override {
    all_users = spec.all_users;
    if (fail_sessions) return Status(ErrorCode::kInternalError, "no sessions");
    return testing::Docs({R"({"_id": {"id": 1}})", R"({"_id": {"id": 2}})"});
  }

  std::string asked_ns;
  CollStatsSpec coll_stats;
  CurrentOpSpec current_op;
  bool all_users = false;
  bool fail_sessions = false;
};

PipelineOptions On(std::string db, std::string collection,
                   std::shared_ptr<FakeServerSources> server) {
  PipelineOptions options;
  options.db = std::move(db);
  options.collection = std::move(collection);
  options.server_sources = std::move(server);
  return options;
}

// The input a source stage ignores (a collection's documents would be).
const std::vector<std::string> kIgnoredInput = {R"({"x": 1})"};

TEST(CollStatsStage, ShouldOutputTheServersDocumentForTheAggregatesCollection) {
  auto server = std::make_shared<FakeServerSources>();
  Result<std::vector<std::string>> out = RunPipeline(
      R"([{"$collStats": {"count": {}, "storageStats": {"scale": 1024}}},
          {"$project": {"_id": 0, "n": "$count.count", "ns": 1}}])",
      kIgnoredInput, On("db", "c", server));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"ns": "db.c", "n": 3})"}));
  EXPECT_EQ(server->asked_ns, "db.c");
  EXPECT_TRUE(server->coll_stats.count);
  EXPECT_TRUE(server->coll_stats.storage_stats);
  EXPECT_EQ(server->coll_stats.scale, 1024);
  EXPECT_FALSE(server->coll_stats.latency_stats);
}

TEST(CurrentOpStage, ShouldOutputTheServersOperationsToLaterStages) {
  auto server = std::make_shared<FakeServerSources>();
  Result<std::vector<std::string>> out =
      RunPipeline(R"([{"$currentOp": {"idleConnections": true, "allUsers": false}},
                      {"$match": {"active": true}}])",
                  kIgnoredInput, On("admin", "", server));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"opid": 1, "active": true})"}));
  EXPECT_TRUE(server->current_op.idle_connections);
  EXPECT_FALSE(server->current_op.all_users);
}

TEST(ListLocalSessionsStage, ShouldOutputTheServersSessions) {
  auto server = std::make_shared<FakeServerSources>();
  Result<std::vector<std::string>> out =
      RunPipeline(R"([{"$listLocalSessions": {"allUsers": true}}, {"$count": "n"}])", kIgnoredInput,
                  On("admin", "", server));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"n": 2})"}));
  EXPECT_TRUE(server->all_users);
}

TEST(ServerSourceStages, ShouldReportTheServersErrorWhenTheyRun) {
  auto server = std::make_shared<FakeServerSources>();
  server->fail_sessions = true;
  Result<std::vector<std::string>> out =
      RunPipeline(R"([{"$listLocalSessions": {}}])", {}, On("admin", "", server));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), ErrorCode::kInternalError);
}

TEST(ServerSourceStages, ShouldFailWhenTheyRunWithoutAServer) {
  Result<std::vector<std::string>> out =
      RunPipeline(R"([{"$collStats": {}}])", {}, On("db", "c", nullptr));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(out.status().reason(), "$collStats is not supported in this context");
}

struct ErrorCase {
  const char* db;
  const char* collection;
  const char* pipeline;
  int code;
  const char* reason;
};

void PrintTo(const ErrorCase& row, std::ostream* os) {
  *os << row.db << "." << row.collection << " " << row.pipeline;
}

class ServerStageErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ServerStageErrors, ShouldAnswerMongoDBsError) {
  const ErrorCase& c = GetParam();
  auto server = std::make_shared<FakeServerSources>();
  Result<std::vector<std::string>> out =
      RunPipeline(c.pipeline, kIgnoredInput, On(c.db, c.collection, server));
  ASSERT_FALSE(out.ok()) << c.pipeline << " unexpectedly succeeded";
  EXPECT_EQ(out.status().code_number(), c.code) << c.pipeline << ": " << out.status().ToString();
  EXPECT_EQ(out.status().reason(), c.reason) << c.pipeline;
}

INSTANTIATE_TEST_SUITE_P(
    Rows, ServerStageErrors,
    ::testing::Values(
        // $collStats
        ErrorCase{"db", "c", R"([{"$collStats": 1}])", 2,
                  "$collStats must take a nested object but found: { $collStats: 1 }"},
        ErrorCase{"db", "c", R"([{"$collStats": {"bogus": {}}}])", 40415,
                  "BSON field '$collStats.bogus' is an unknown field."},
        ErrorCase{"db", "c", R"([{"$collStats": {"count": 1}}])", 14,
                  "BSON field '$collStats.count' is the wrong type 'int', expected type "
                  "'object'"},
        ErrorCase{"db", "c", R"([{"$collStats": {"storageStats": {"scale": 0}}}])", 2,
                  "scale has to be > 0"},
        ErrorCase{"db", "c", R"([{"$match": {}}, {"$collStats": {}}])", 40602,
                  "$collStats is only valid as the first stage in a pipeline"},
        ErrorCase{"db", "c", R"([{"$facet": {"a": [{"$collStats": {}}]}}])", 40600,
                  "$collStats is not allowed to be used within a $facet stage"},
        ErrorCase{"db", "c",
                  R"([{"$lookup": {"from": "f", "pipeline": [{"$collStats": {}}], "as": "x"}}])", 2,
                  "$collStats is not supported by Cairn yet"},
        // $currentOp: the lite parse's type checks, then the namespace, then the options.
        ErrorCase{"admin", "", R"([{"$currentOp": 1}])", 14,
                  "$currentOp options must be specified in an object, but found: int"},
        ErrorCase{"test", "", R"([{"$currentOp": {"localOps": 1}}])", 14,
                  "The 'localOps' parameter of the $currentOp stage must be a boolean value, but "
                  "found: int"},
        ErrorCase{"test", "", R"([{"$currentOp": {}}])", 73,
                  "$currentOp must be run against the 'admin' database with {aggregate: 1}"},
        ErrorCase{"admin", "c", R"([{"$currentOp": {"bogus": 1}}])", 73,
                  "$currentOp must be run against the 'admin' database with {aggregate: 1}"},
        ErrorCase{"admin", "", R"([{"$currentOp": {"idleCursors": 1}}])", 9,
                  "The 'idleCursors' parameter of the $currentOp stage must be a boolean value, "
                  "but found: int"},
        ErrorCase{"admin", "", R"([{"$currentOp": {"bogus": true}}])", 9,
                  "Unrecognized option 'bogus' in $currentOp stage."},
        ErrorCase{"admin", "", R"([{"$documents": []}, {"$currentOp": {}}])", 40602,
                  "$currentOp is only valid as the first stage in a pipeline"},
        // $listLocalSessions
        ErrorCase{"admin", "", R"([{"$listLocalSessions": 1}])", 14,
                  "$listLocalSessions options must be specified in an object, but found: int"},
        ErrorCase{"admin", "", R"([{"$listLocalSessions": {"users": {}}}])", 14,
                  "BSON field '$listLocalSessions.users' is the wrong type 'object', expected "
                  "type 'array'"},
        ErrorCase{"admin", "", R"([{"$listLocalSessions": {"bogus": 1}}])", 40415,
                  "BSON field '$listLocalSessions.bogus' is an unknown field."},
        ErrorCase{"admin", "c", R"([{"$listLocalSessions": {}}])", 73,
                  "$listLocalSessions must be run against the database with {aggregate: 1}, not "
                  "a collection"},
        ErrorCase{"admin", "", R"([{"$documents": []}, {"$listLocalSessions": {}}])", 40602,
                  "$listLocalSessions is only valid as the first stage in a pipeline"}));

}  // namespace
}  // namespace cairn::query
