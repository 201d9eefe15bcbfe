// The declarative argument extractor: unknown fields, wrong types and missing required fields
// answer as MongoDB's IDL parsers do; generic driver fields are always accepted.
#include "server/commands/command_args.h"

#include <gtest/gtest.h>

namespace cairn::server {
namespace {

CommandRequest Request(const BsonDoc& body) {
  CommandRequest request;
  bson_iter_t it;
  body.view().Init(&it);
  bson_iter_next(&it);
  request.name = IterKey(&it);
  request.db = "test";
  request.body = body.view();
  return request;
}

TEST(CommandArgs, ShouldRefuseAnUnknownFieldWith40415) {
  BsonDoc body = BsonDoc::FromJson(R"({"find": "c", "foo": 1})");
  auto args = CommandArgs::Parse(Request(body), {{"filter", kArgDocument}});
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.status().code_number(), 40415);
  EXPECT_EQ(args.status().reason(), "BSON field 'find.foo' is an unknown field.");
}

TEST(CommandArgs, ShouldRefuseAWrongTypeWithTypeMismatch) {
  BsonDoc body = BsonDoc::FromJson(R"({"find": "c", "limit": "ten"})");
  auto args = CommandArgs::Parse(Request(body), {{"limit", kArgNumber}});
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.status().code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(args.status().reason(),
            "BSON field 'find.limit' is the wrong type 'string', expected types "
            "'[long, int, decimal, double]'");
}

TEST(CommandArgs, ShouldRefuseAMissingRequiredFieldWith40414) {
  BsonDoc body = BsonDoc::FromJson(R"({"insert": "c"})");
  auto args = CommandArgs::Parse(Request(body), {{"documents", kArgArray, true}});
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.status().code_number(), 40414);
  EXPECT_EQ(args.status().reason(),
            "BSON field 'insert.documents' is missing but a required field");
}

TEST(CommandArgs, ShouldAcceptTheGenericFieldsDriversAttach) {
  BsonDoc body = BsonDoc::FromJson(
      R"({"find": "c", "$db": "test", "lsid": {"id": 1}, "$clusterTime": {}, "comment": "x",
          "$readPreference": {"mode": "primary"}, "apiVersion": "1", "maxTimeMS": 5,
          "readConcern": {}, "writeConcern": {"w": 1}})");
  EXPECT_TRUE(CommandArgs::Parse(Request(body), {}).ok());
}

TEST(CommandArgs, ShouldConvertNumbersAndBooleans) {
  BsonDoc body = BsonDoc::FromJson(
      R"({"find": "c", "limit": {"$numberLong": "7"}, "skip": 2.0, "singleBatch": 1})");
  auto args = CommandArgs::Parse(
      Request(body), {{"limit", kArgNumber}, {"skip", kArgNumber}, {"singleBatch", kArgBool}});
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->GetInt("limit", 0), 7);
  EXPECT_EQ(args->GetInt("skip", 0), 2);
  EXPECT_TRUE(args->GetBool("singleBatch", false));
  EXPECT_EQ(args->GetInt("batchSize", 101), 101);
}

}  // namespace
}  // namespace cairn::server
