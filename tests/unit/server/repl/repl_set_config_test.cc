// Replica set configurations as replSetInitiate/replSetReconfig take them and rs.conf() prints
// them (server/repl/repl_set_config.h).
#include "server/repl/repl_set_config.h"

#include <gtest/gtest.h>

namespace cairn::server {
namespace {

Result<ReplSetConfig> Parse(const char* json) {
  bson_oid_t id;
  bson_oid_init(&id, nullptr);
  BsonDoc doc = BsonDoc::FromJson(json);
  return ParseReplSetConfig(doc.view(), "rs0", id);
}

TEST(ReplSetConfig, ShouldFillMongoDBsDefaults) {
  Result<ReplSetConfig> config = Parse(R"({"_id": "rs0", "members": [{"_id": 0, "host": "h"}]})");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->version, 1);
  EXPECT_EQ(config->member.host, "h:27017");
  BsonDoc printed = config->ToBson();
  bson_iter_t it;
  ASSERT_TRUE(printed.view().Find("settings", &it));
  bson_iter_t field;
  EXPECT_TRUE(IterDocument(&it).Find("replicaSetId", &field));
  EXPECT_TRUE(IterDocument(&it).Find("electionTimeoutMillis", &field));
  EXPECT_TRUE(printed.view().Find("protocolVersion", &field));
}

TEST(ReplSetConfig, ShouldRefuseAnotherSetName) {
  Result<ReplSetConfig> config =
      Parse(R"({"_id": "other", "members": [{"_id": 0, "host": "h:1"}]})");
  EXPECT_EQ(config.status().code(), ErrorCode::kInvalidReplicaSetConfig);
}

TEST(ReplSetConfig, ShouldRefuseMoreThanOneMember) {
  Result<ReplSetConfig> config =
      Parse(R"({"_id": "rs0", "members": [{"_id": 0, "host": "a:1"}, {"_id": 1, "host": "b:1"}]})");
  EXPECT_EQ(config.status().code(), ErrorCode::kNodeNotFound);
}

TEST(ReplSetConfig, ShouldRefuseAnUnelectableSoleMember) {
  EXPECT_EQ(Parse(R"({"_id": "rs0", "members": [{"_id": 0, "host": "a:1", "priority": 0}]})")
                .status()
                .code(),
            ErrorCode::kInvalidReplicaSetConfig);
  EXPECT_EQ(Parse(R"({"_id": "rs0", "members": [{"_id": 0, "host": "a:1", "arbiterOnly": true}]})")
                .status()
                .code(),
            ErrorCode::kInvalidReplicaSetConfig);
}

TEST(ReplSetConfig, ShouldRefuseUnknownFields) {
  EXPECT_EQ(
      Parse(R"({"_id": "rs0", "members": [{"_id": 0, "host": "a:1"}], "x": 1})").status().code(),
      ErrorCode::kLocation40415);
  EXPECT_EQ(
      Parse(R"({"_id": "rs0", "members": [{"_id": 0, "host": "a:1", "y": 1}]})").status().code(),
      ErrorCode::kLocation40415);
}

TEST(ReplSetConfig, ShouldNormaliseHostsWithoutAPort) {
  EXPECT_EQ(NormalizeHostAndPort("localhost"), "localhost:27017");
  EXPECT_EQ(NormalizeHostAndPort("localhost:27018"), "localhost:27018");
  EXPECT_EQ(NormalizeHostAndPort("[::1]"), "[::1]:27017");
  EXPECT_EQ(NormalizeHostAndPort("[::1]:5"), "[::1]:5");
}

}  // namespace
}  // namespace cairn::server
