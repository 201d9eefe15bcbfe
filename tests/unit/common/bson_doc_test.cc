// Specification of common/bson_doc helpers: the shell-style rendering used by E11000 messages,
// and the numeric accessors. (Validation: bson_validate_test.cc.)
#include "common/bson_doc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/status.h"

namespace cairn {
namespace {

// ---- ToShellString ----

TEST(ToShellString, ShouldRenderAsMongoDBDupKeyMessages) {
  BsonDoc doc =
      BsonDoc::FromJson(R"({"_id": 1, "a": "x", "o": {"$oid": "0123456789abcdef01234567"}})");
  EXPECT_EQ(ToShellString(doc.view()),
            "{ _id: 1, a: \"x\", o: ObjectId('0123456789abcdef01234567') }");
}

TEST(ToShellString, ShouldRenderNullForAMissingFieldKey) {
  EXPECT_EQ(ToShellString(BsonDoc::FromJson(R"({"x": null})").view()), "{ x: null }");
}

TEST(ToShellString, ShouldRenderEmptyNestedAndArrayValues) {
  EXPECT_EQ(ToShellString(BsonView()), "{}");
  EXPECT_EQ(ToShellString(
                BsonDoc::FromJson(R"({"a": [1, 2], "b": {}, "c": [], "d": {"e": true}})").view()),
            "{ a: [ 1, 2 ], b: {}, c: [], d: { e: true } }");
}

TEST(ToShellString, ShouldRenderNumbersAsTheShellDoes) {
  EXPECT_EQ(ToShellString(BsonDoc::FromJson(
                              R"({"i": 5, "l": {"$numberLong": "6"}, "d": 1.5, "w": 2.0, "n": -3})")
                              .view()),
            "{ i: 5, l: 6, d: 1.5, w: 2.0, n: -3 }");
}

// ---- IterAsInt64 / IterAsDouble ----

bool AsInt64(const BsonDoc& doc, int64_t* out) {
  bson_iter_t it;
  EXPECT_TRUE(doc.view().Find("v", &it));
  return IterAsInt64(&it, out);
}

BsonDoc DoubleDoc(double d) {
  BsonDoc doc;
  bson_append_double(doc.get(), "v", 1, d);
  return doc;
}

TEST(IterAsInt64, ShouldReturnIntegersExactly) {
  int64_t v = 0;
  EXPECT_TRUE(AsInt64(BsonDoc::FromJson(R"({"v": 7})"), &v));
  EXPECT_EQ(v, 7);
  EXPECT_TRUE(AsInt64(BsonDoc::FromJson(R"({"v": {"$numberLong": "-9223372036854775808"}})"), &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(AsInt64(BsonDoc::FromJson(R"({"v": {"$numberLong": "9223372036854775807"}})"), &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::max());
}

TEST(IterAsInt64, ShouldAcceptIntegralDoublesInRange) {
  int64_t v = 0;
  EXPECT_TRUE(AsInt64(DoubleDoc(3.0), &v));
  EXPECT_EQ(v, 3);
  EXPECT_TRUE(AsInt64(DoubleDoc(-0.0), &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(AsInt64(DoubleDoc(-9223372036854775808.0), &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::min());
}

TEST(IterAsInt64, ShouldRejectFractionsOutOfRangeAndNonNumbers) {
  int64_t v = 0;
  EXPECT_FALSE(AsInt64(DoubleDoc(1.5), &v));
  EXPECT_FALSE(AsInt64(DoubleDoc(9223372036854775808.0), &v));  // 2^63
  EXPECT_FALSE(AsInt64(DoubleDoc(std::nan("")), &v));
  EXPECT_FALSE(AsInt64(DoubleDoc(std::numeric_limits<double>::infinity()), &v));
  EXPECT_FALSE(AsInt64(BsonDoc::FromJson(R"({"v": "1"})"), &v));
  EXPECT_FALSE(AsInt64(BsonDoc::FromJson(R"({"v": null})"), &v));
}

TEST(IterAsDouble, ShouldConvertEveryNumericType) {
  for (const char* json : {R"({"v": 2})", R"({"v": {"$numberLong": "2"}})", R"({"v": 2.0})",
                           R"({"v": {"$numberDecimal": "2.0"}})"}) {
    BsonDoc doc = BsonDoc::FromJson(json);
    bson_iter_t it;
    ASSERT_TRUE(doc.view().Find("v", &it));
    double d = 0;
    EXPECT_TRUE(IterIsNumber(&it)) << json;
    EXPECT_TRUE(IterAsDouble(&it, &d)) << json;
    EXPECT_EQ(d, 2.0) << json;
  }
  BsonDoc s = BsonDoc::FromJson(R"({"v": "2"})");
  bson_iter_t it;
  ASSERT_TRUE(s.view().Find("v", &it));
  double d = 0;
  EXPECT_FALSE(IterIsNumber(&it));
  EXPECT_FALSE(IterAsDouble(&it, &d));
}

// ---- BsonView / BsonDoc ----

TEST(BsonView, ShouldFindTopLevelFieldsAndCountKeys) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": 1, "b": {"c": 2}})");
  bson_iter_t it;
  EXPECT_TRUE(doc.view().Find("b", &it));
  EXPECT_TRUE(BSON_ITER_HOLDS_DOCUMENT(&it));
  EXPECT_FALSE(doc.view().Find("c", &it));
  EXPECT_FALSE(doc.view().Find("A", &it));
  EXPECT_EQ(doc.view().CountKeys(), 2u);
  EXPECT_TRUE(BsonView().empty());
  EXPECT_EQ(BsonView().CountKeys(), 0u);
}

TEST(BsonDoc, ShouldCloneAndMove) {
  BsonDoc a = BsonDoc::FromJson(R"({"a": 1})");
  BsonDoc b = a.Clone();
  BsonDoc c = std::move(a);
  EXPECT_EQ(b.view().size(), c.view().size());
  EXPECT_EQ(std::memcmp(b.view().data(), c.view().data(), b.view().size()), 0);
}

}  // namespace
}  // namespace cairn
