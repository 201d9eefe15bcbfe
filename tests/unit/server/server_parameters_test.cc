// Specification of server/server_parameters: MongoDB's defaults, coercion and validators for the
// runtime-settable parameters (ttlMonitorEnabled, ttlMonitorSleepSecs), from setParameter values
// and from --setParameter strings, and the errors for names MongoDB does not know.
#include "server/server_parameters.h"

#include <gtest/gtest.h>

#include "common/bson_validate.h"

#include "common/bson_doc.h"

namespace cairn::server {
namespace {

// setParameter of `name` to the value of {"v": ...} in `json`.
Status Set(ServerParameters* parameters, const char* name, const char* json) {
  BsonDoc doc = BsonDoc::FromJson(json);
  bson_iter_t it;
  EXPECT_TRUE(doc.view().Find("v", &it));
  return SetParameterValue(parameters, name, &it);
}

TEST(ServerParameters, ShouldStartWithMongoDBsDefaults) {
  ServerParameters parameters;
  EXPECT_TRUE(parameters.ttl_monitor_enabled.load());
  EXPECT_EQ(parameters.ttl_monitor_sleep_secs.load(), 60);
  EXPECT_EQ(parameters.internal_query_max_blocking_sort_memory_usage_bytes.load(), 100 << 20);
  EXPECT_EQ(parameters.internal_document_source_group_max_memory_bytes.load(), 100 << 20);
  EXPECT_EQ(parameters.internal_query_collection_max_data_size_bytes_to_choose_hash_join.load(),
            100 << 20);
  EXPECT_EQ(parameters.transaction_lifetime_limit_seconds.load(), 60);
  EXPECT_EQ(SettableParameterNames(),
            (std::vector<std::string_view>{
                "enableTestCommands", "internalDocumentSourceGroupMaxMemoryBytes",
                "internalQueryCollectionMaxDataSizeBytesToChooseHashJoin",
                "internalQueryMaxBlockingSortMemoryUsageBytes", "maxBSONDepth",
                "transactionLifetimeLimitSeconds", "ttlMonitorEnabled", "ttlMonitorSleepSecs"}));
  BsonDoc out;
  EXPECT_TRUE(AppendParameterValue(parameters, "ttlMonitorSleepSecs", "was", out.get()));
  EXPECT_TRUE(AppendParameterValue(parameters, "ttlMonitorEnabled", "e", out.get()));
  EXPECT_FALSE(AppendParameterValue(parameters, "nope", "x", out.get()));
  EXPECT_EQ(ToShellString(out.view()), "{ was: 60, e: true }");
}

TEST(ServerParameters, ShouldTakeMaxBsonDepthAtStartupOnly) {
  ServerParameters parameters;
  BsonDoc out;
  EXPECT_TRUE(AppendParameterValue(parameters, "maxBSONDepth", "maxBSONDepth", out.get()));
  EXPECT_EQ(ToShellString(out.view()), "{ maxBSONDepth: 200 }");
  Status at_runtime = Set(&parameters, "maxBSONDepth", R"({"v": 50})");
  EXPECT_EQ(at_runtime.code(), ErrorCode::kIllegalOperation);
  EXPECT_EQ(at_runtime.reason(), "not allowed to change [maxBSONDepth] at runtime");
  EXPECT_EQ(SetParameterFromString(&parameters, "maxBSONDepth=5").code(), ErrorCode::kBadValue);
  EXPECT_TRUE(SetParameterFromString(&parameters, "maxBSONDepth=50").ok());
  EXPECT_EQ(MaxBsonDepth(), 50);
  EXPECT_TRUE(SetParameterFromString(&parameters, "maxBSONDepth=200").ok());
}

TEST(ServerParameters, ShouldTakeEnableTestCommandsAtStartupOnly) {
  ServerParameters parameters;
  EXPECT_FALSE(parameters.enable_test_commands.load());
  EXPECT_TRUE(SetParameterFromString(&parameters, "enableTestCommands=1").ok());
  EXPECT_TRUE(parameters.enable_test_commands.load());
  Status at_runtime = Set(&parameters, "enableTestCommands", R"({"v": false})");
  EXPECT_EQ(at_runtime.code(), ErrorCode::kIllegalOperation);
  EXPECT_EQ(at_runtime.reason(), "not allowed to change [enableTestCommands] at runtime");
  EXPECT_TRUE(parameters.enable_test_commands.load());
}

TEST(ServerParameters, ShouldCoerceAndValidateCommandValues) {
  ServerParameters parameters;
  EXPECT_TRUE(Set(&parameters, "ttlMonitorSleepSecs", R"({"v": 5})").ok());
  EXPECT_EQ(parameters.ttl_monitor_sleep_secs.load(), 5);
  EXPECT_TRUE(Set(&parameters, "ttlMonitorSleepSecs", R"({"v": 2.9})").ok());
  EXPECT_EQ(parameters.ttl_monitor_sleep_secs.load(), 2);  // truncated, as numberInt()
  EXPECT_TRUE(Set(&parameters, "ttlMonitorSleepSecs", R"({"v": {"$numberLong": "7"}})").ok());
  EXPECT_EQ(parameters.ttl_monitor_sleep_secs.load(), 7);

  Status zero = Set(&parameters, "ttlMonitorSleepSecs", R"({"v": 0})");
  EXPECT_EQ(zero.code(), ErrorCode::kBadValue);
  EXPECT_EQ(zero.reason(),
            "Invalid value for parameter ttlMonitorSleepSecs: 0 is not greater than 0");
  Status text = Set(&parameters, "ttlMonitorSleepSecs", R"({"v": "5"})");
  EXPECT_EQ(text.code(), ErrorCode::kBadValue);
  EXPECT_EQ(text.reason(), "Can't coerce value");
  EXPECT_EQ(parameters.ttl_monitor_sleep_secs.load(), 7);  // unchanged by the failures

  EXPECT_TRUE(Set(&parameters, "ttlMonitorEnabled", R"({"v": 0})").ok());
  EXPECT_FALSE(parameters.ttl_monitor_enabled.load());
  EXPECT_TRUE(Set(&parameters, "ttlMonitorEnabled", R"({"v": "yes"})").ok());  // truthiness
  EXPECT_TRUE(parameters.ttl_monitor_enabled.load());

  Status unknown = Set(&parameters, "nope", R"({"v": 1})");
  EXPECT_EQ(unknown.code(), ErrorCode::kInvalidOptions);
  EXPECT_EQ(unknown.reason(),
            "attempted to set unrecognized parameter [nope], use help:true to see options ");
}

TEST(ServerParameters, ShouldParseCommandLineAssignments) {
  ServerParameters parameters;
  EXPECT_TRUE(SetParameterFromString(&parameters, "ttlMonitorSleepSecs=1").ok());
  EXPECT_EQ(parameters.ttl_monitor_sleep_secs.load(), 1);
  EXPECT_TRUE(SetParameterFromString(&parameters, "ttlMonitorEnabled=false").ok());
  EXPECT_FALSE(parameters.ttl_monitor_enabled.load());
  EXPECT_TRUE(SetParameterFromString(&parameters, "ttlMonitorEnabled=1").ok());
  EXPECT_TRUE(parameters.ttl_monitor_enabled.load());

  EXPECT_EQ(SetParameterFromString(&parameters, "ttlMonitorEnabled=maybe").code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(SetParameterFromString(&parameters, "ttlMonitorSleepSecs=x").code(),
            ErrorCode::kFailedToParse);
  EXPECT_EQ(SetParameterFromString(&parameters, "ttlMonitorSleepSecs=-3").code(),
            ErrorCode::kBadValue);
  Status unknown = SetParameterFromString(&parameters, "nope=1");
  EXPECT_EQ(unknown.code(), ErrorCode::kBadValue);
  EXPECT_EQ(unknown.reason(), "Illegal --setParameter parameter: \"nope\"");
  EXPECT_EQ(parameters.ttl_monitor_sleep_secs.load(), 1);
}

}  // namespace
}  // namespace cairn::server
