// readConcern as mongod parses it and the levels each command takes
// (server/commands/read_concern.h).
#include "server/commands/read_concern.h"

#include <gtest/gtest.h>

#include <string>

namespace cairn::server {
namespace {

Result<ReadConcern> Parse(const char* json) {
  BsonDoc holder = BsonDoc::FromJson(std::string(R"({"readConcern": )").append(json).append("}"));
  bson_iter_t it;
  holder.view().Init(&it);
  bson_iter_next(&it);
  return ParseReadConcern(&it);
}

TEST(ReadConcern, ShouldParseLevelsAndClusterTimes) {
  Result<ReadConcern> concern =
      Parse(R"({"level": "majority", "afterClusterTime": {"$timestamp": {"t": 5, "i": 1}}})");
  ASSERT_TRUE(concern.ok());
  EXPECT_EQ(concern->level, ReadConcernLevel::kMajority);
  EXPECT_EQ(*concern->after_cluster_time, Timestamp::Of(5, 1));
  EXPECT_TRUE(Parse("{}")->empty());
  EXPECT_EQ(Parse(R"({"level": "snapshot"})")->level, ReadConcernLevel::kSnapshot);
}

TEST(ReadConcern, ShouldRefuseWhatMongodRefuses) {
  EXPECT_EQ(Parse(R"("local")").status().code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(Parse(R"({"level": "fast"})").status().code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(Parse(R"({"level": 1})").status().code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(Parse(R"({"x": 1})").status().code(), ErrorCode::kInvalidOptions);
  EXPECT_EQ(Parse(R"({"level": "local", "atClusterTime": {"$timestamp": {"t": 5, "i": 1}}})")
                .status()
                .code(),
            ErrorCode::kInvalidOptions);
  EXPECT_EQ(Parse(R"({"level": "linearizable",
                      "afterClusterTime": {"$timestamp": {"t": 5, "i": 1}}})")
                .status()
                .code(),
            ErrorCode::kInvalidOptions);
  EXPECT_EQ(Parse(R"({"afterClusterTime": {"$timestamp": {"t": 0, "i": 0}}})").status().code(),
            ErrorCode::kInvalidOptions);
}

TEST(ReadConcern, ShouldLetOnlyReadsTakeLevelsOtherThanLocal) {
  ReadConcern majority = *Parse(R"({"level": "majority"})");
  EXPECT_TRUE(CheckCommandSupports("find", BsonView(), majority).ok());
  EXPECT_TRUE(CheckCommandSupports("aggregate", BsonView(), majority).ok());
  Status refused = CheckCommandSupports("insert", BsonView(), majority);
  EXPECT_EQ(refused.code(), ErrorCode::kInvalidOptions);
  EXPECT_EQ(refused.reason(),
            "Command insert does not support { readConcern: { level: \"majority\", provenance: "
            "\"clientSupplied\" } } :: caused by :: read concern not supported");
  EXPECT_TRUE(CheckCommandSupports("insert", BsonView(), *Parse(R"({"level": "local"})")).ok());
  EXPECT_FALSE(CheckCommandSupports("count", BsonView(), *Parse(R"({"level": "snapshot"})")).ok());
  ReadConcern linearizable = *Parse(R"({"level": "linearizable"})");
  BsonDoc out = BsonDoc::FromJson(R"({"aggregate": "c", "pipeline": [{"$out": "d"}]})");
  Status refused_out = CheckCommandSupports("aggregate", out.view(), linearizable);
  EXPECT_EQ(refused_out.code(), ErrorCode::kInvalidOptions);
  EXPECT_NE(refused_out.reason().find(
                ":: caused by :: $out cannot be used with a 'linearizable' read concern level"),
            std::string::npos);
  BsonDoc read = BsonDoc::FromJson(R"({"aggregate": "c", "pipeline": [{"$match": {}}]})");
  EXPECT_TRUE(CheckCommandSupports("aggregate", read.view(), linearizable).ok());
}

}  // namespace
}  // namespace cairn::server
