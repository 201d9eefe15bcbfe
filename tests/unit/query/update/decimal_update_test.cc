// $inc and $mul with Decimal128 as MongoDB 7.0 applies them (SafeNum): a decimal on either side
// makes the field a decimal, ints join exactly, doubles through 15 significant digits; a missing
// field gets the operand ($inc) or a decimal zero ($mul); an identical result is a no-op.
#include <gtest/gtest.h>

#include "query/update/update.h"
#include "tests/unit/query/bson_test_util.h"

namespace cairn::query {
namespace {

using testing::Canonical;

struct DecimalCase {
  const char* doc;
  const char* update;
  const char* expected;
  bool modified = true;
};

const DecimalCase kDecimalCases[] = {
    {R"({"_id": 1, "a": 1})", R"({"$inc": {"a": {"$numberDecimal": "0.5"}}})",
     R"({"_id": 1, "a": {"$numberDecimal": "1.5"}})"},
    {R"({"_id": 1, "a": {"$numberDecimal": "0.1"}})",
     R"({"$inc": {"a": {"$numberDecimal": "0.2"}}})",
     R"({"_id": 1, "a": {"$numberDecimal": "0.3"}})"},
    {R"({"_id": 1, "a": {"$numberDecimal": "1.00"}})", R"({"$inc": {"a": 2}})",
     R"({"_id": 1, "a": {"$numberDecimal": "3.00"}})"},
    {R"({"_id": 1, "a": 0.1})", R"({"$inc": {"a": {"$numberDecimal": "0.2"}}})",
     R"({"_id": 1, "a": {"$numberDecimal": "0.300000000000000"}})"},
    {R"({"_id": 1, "a": {"$numberLong": "9223372036854775807"}})",
     R"({"$inc": {"a": {"$numberDecimal": "1"}}})",
     R"({"_id": 1, "a": {"$numberDecimal": "9223372036854775808"}})"},
    {R"({"_id": 1})", R"({"$inc": {"a": {"$numberDecimal": "2.50"}}})",
     R"({"_id": 1, "a": {"$numberDecimal": "2.50"}})"},
    {R"({"_id": 1, "a": {"$numberDecimal": "1.5"}})", R"({"$inc": {"a": 0}})",
     R"({"_id": 1, "a": {"$numberDecimal": "1.5"}})", false},
    {R"({"_id": 1, "a": 3})", R"({"$mul": {"a": {"$numberDecimal": "1.10"}}})",
     R"({"_id": 1, "a": {"$numberDecimal": "3.30"}})"},
    {R"({"_id": 1, "a": {"$numberDecimal": "2.5"}})", R"({"$mul": {"a": 2}})",
     R"({"_id": 1, "a": {"$numberDecimal": "5.0"}})"},
    {R"({"_id": 1})", R"({"$mul": {"a": {"$numberDecimal": "2.5"}}})",
     R"({"_id": 1, "a": {"$numberDecimal": "0.0"}})"},
};

TEST(DecimalUpdate, ShouldIncAndMulDecimalsAsMongoDB) {
  for (const DecimalCase& c : kDecimalCases) {
    SCOPED_TRACE(std::string(c.doc) + " " + c.update);
    BsonDoc spec = BsonDoc::FromJson(c.update);
    BsonDoc doc = BsonDoc::FromJson(c.doc);
    Result<Update> update = Update::Parse(spec.view());
    ASSERT_TRUE(update.ok()) << update.status().ToString();
    BsonDoc out;
    Result<bool> applied = update->Apply(doc.view(), out.get(), Update::ApplyOptions{});
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    EXPECT_EQ(*applied, c.modified);
    if (c.modified) {
      EXPECT_EQ(Canonical(out.view()), Canonical(BsonDoc::FromJson(c.expected).view()));
    }
  }
}

}  // namespace
}  // namespace cairn::query
