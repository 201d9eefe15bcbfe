// Specification of common/bson_doc helpers: validation of untrusted bytes, the shell-style
// rendering used by E11000 messages, and the numeric accessors.
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

std::vector<uint8_t> Bytes(const BsonDoc& doc) {
  return std::vector<uint8_t>(doc.view().data(), doc.view().data() + doc.view().size());
}

void SetLength(std::vector<uint8_t>* bytes, size_t at, int32_t len) {
  uint32_t le = BSON_UINT32_TO_LE(static_cast<uint32_t>(len));
  std::memcpy(bytes->data() + at, &le, 4);
}

// ---- ValidateBson ----

TEST(ValidateBson, ShouldAcceptValidDocuments) {
  for (const char* json : {"{}", R"({"a": 1})", R"({"a": {"b": [1, "x", {"c": null}]}, "d": 1.5})",
                           R"({"_id": {"$oid": "0123456789abcdef01234567"}, "t": true})"}) {
    BsonDoc doc = BsonDoc::FromJson(json);
    std::vector<uint8_t> b = Bytes(doc);
    EXPECT_TRUE(ValidateBson(b.data(), b.size()).ok()) << json;
  }
}

TEST(ValidateBson, ShouldAcceptEmbeddedNulsInStrings) {
  BsonDoc doc;
  AppendUtf8(doc.get(), "s", std::string_view("a\0b", 3));
  std::vector<uint8_t> b = Bytes(doc);
  EXPECT_TRUE(ValidateBson(b.data(), b.size()).ok());
}

TEST(ValidateBson, ShouldRejectTooShortBuffers) {
  const uint8_t four[4] = {4, 0, 0, 0};
  Status s = ValidateBson(four, sizeof four);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidBSON);
  EXPECT_EQ(ValidateBson(four, 0).code(), ErrorCode::kInvalidBSON);
}

TEST(ValidateBson, ShouldRejectTruncatedDocuments) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": "hello", "b": 2})");
  std::vector<uint8_t> b = Bytes(doc);
  for (size_t cut = 1; cut < b.size(); ++cut) {
    EXPECT_EQ(ValidateBson(b.data(), b.size() - cut).code(), ErrorCode::kInvalidBSON) << cut;
  }
}

TEST(ValidateBson, ShouldRejectADeclaredLengthThatDisagreesWithTheBuffer) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": 1})");
  std::vector<uint8_t> b = Bytes(doc);
  std::vector<uint8_t> longer = b;
  SetLength(&longer, 0, static_cast<int32_t>(b.size()) + 1);
  EXPECT_EQ(ValidateBson(longer.data(), longer.size()).code(), ErrorCode::kInvalidBSON);
  std::vector<uint8_t> shorter = b;
  SetLength(&shorter, 0, static_cast<int32_t>(b.size()) - 1);
  EXPECT_EQ(ValidateBson(shorter.data(), shorter.size()).code(), ErrorCode::kInvalidBSON);
  std::vector<uint8_t> negative = b;
  SetLength(&negative, 0, -1);
  EXPECT_EQ(ValidateBson(negative.data(), negative.size()).code(), ErrorCode::kInvalidBSON);
  // A buffer with trailing bytes beyond the declared document.
  std::vector<uint8_t> trailing = b;
  trailing.push_back(0);
  EXPECT_EQ(ValidateBson(trailing.data(), trailing.size()).code(), ErrorCode::kInvalidBSON);
}

TEST(ValidateBson, ShouldRejectALyingStringLength) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": "xyz"})");
  std::vector<uint8_t> b = Bytes(doc);
  // Layout: int32 len | 0x02 'a' 0x00 | int32 strlen | "xyz\0" | 0x00
  ASSERT_EQ(b[4], 0x02);
  SetLength(&b, 7, 100);
  EXPECT_EQ(ValidateBson(b.data(), b.size()).code(), ErrorCode::kInvalidBSON);
}

TEST(ValidateBson, ShouldRejectALyingNestedDocumentLength) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": {"b": 1}, "c": 2})");
  std::vector<uint8_t> b = Bytes(doc);
  // Layout: int32 len | 0x03 'a' 0x00 | nested document at offset 7.
  ASSERT_EQ(b[4], 0x03);
  SetLength(&b, 7, 40);
  EXPECT_EQ(ValidateBson(b.data(), b.size()).code(), ErrorCode::kInvalidBSON);
}

TEST(ValidateBson, ShouldRejectAMissingTerminator) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": 1})");
  std::vector<uint8_t> b = Bytes(doc);
  b.back() = 1;
  EXPECT_EQ(ValidateBson(b.data(), b.size()).code(), ErrorCode::kInvalidBSON);
}

// Validation is structural, as mongod's: it checks neither field names nor string values for
// UTF-8 (drivers meet such bytes on read).
TEST(ValidateBson, ShouldAcceptInvalidUtf8InFieldNamesAsMongodDoes) {
  BsonDoc doc;
  bson_append_int32(doc.get(), "\xff", 1, 1);
  std::vector<uint8_t> b = Bytes(doc);
  EXPECT_TRUE(ValidateBson(b.data(), b.size()).ok());
}

TEST(ValidateBson, ShouldAcceptInvalidUtf8InStringValuesAsMongodDoes) {
  BsonDoc doc;
  AppendUtf8(doc.get(), "s", "\xff\xfe");
  std::vector<uint8_t> b = Bytes(doc);
  EXPECT_TRUE(ValidateBson(b.data(), b.size()).ok());
}

// ---- ToShellString ----

TEST(ToShellString, ShouldRenderAsMongoDBDupKeyMessages) {
  BsonDoc doc = BsonDoc::FromJson(
      R"({"_id": 1, "a": "x", "o": {"$oid": "0123456789abcdef01234567"}})");
  EXPECT_EQ(ToShellString(doc.view()), "{ _id: 1, a: \"x\", o: ObjectId('0123456789abcdef01234567') }");
}

TEST(ToShellString, ShouldRenderNullForAMissingFieldKey) {
  EXPECT_EQ(ToShellString(BsonDoc::FromJson(R"({"x": null})").view()), "{ x: null }");
}

TEST(ToShellString, ShouldRenderEmptyNestedAndArrayValues) {
  EXPECT_EQ(ToShellString(BsonView()), "{}");
  EXPECT_EQ(ToShellString(BsonDoc::FromJson(R"({"a": [1, 2], "b": {}, "c": [], "d": {"e": true}})").view()),
            "{ a: [ 1, 2 ], b: {}, c: [], d: { e: true } }");
}

TEST(ToShellString, ShouldRenderNumbersAsTheShellDoes) {
  EXPECT_EQ(ToShellString(BsonDoc::FromJson(
                R"({"i": 5, "l": {"$numberLong": "6"}, "d": 1.5, "w": 2.0, "n": -3})").view()),
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

namespace cairn {
namespace {

// Randomly corrupted documents: whatever ValidateBson accepts must be safe to walk completely
// (rendering to JSON touches every element, nested ones included; it may refuse invalid UTF-8,
// which validation deliberately lets through, but must never read out of bounds); run under
// ASan this is a memory-safety check of the validator. (It is stricter than libbson's
// bson_validate without flags, which lets some corrupt nested documents through.)
TEST(ValidateBson, ShouldOnlyAcceptCorruptionsThatAreSafeToRead) {
  BsonDoc base = BsonDoc::FromJson(
      R"({"_id": 1, "s": "hello", "d": {"x": [1, 2, {"y": "z"}], "b": true},
          "bin": {"$binary": {"base64": "AQID", "subType": "00"}}, "r": {"$regularExpression":
          {"pattern": "a+", "options": "i"}}, "n": null, "l": {"$numberLong": "5"}})");
  std::vector<uint8_t> original = Bytes(base);
  uint64_t seed = 42;
  auto next = [&seed] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint8_t> b = original;
    int flips = 1 + static_cast<int>(next() % 3);
    for (int i = 0; i < flips; ++i) {
      size_t at = 4 + next() % (b.size() - 5);  // keep the outer length and terminator
      b[at] = static_cast<uint8_t>(next());
    }
    bool ours = ValidateBson(b.data(), b.size()).ok();
    bson_t doc;
    ASSERT_TRUE(bson_init_static(&doc, b.data(), b.size()));
    if (ours) {
      ++accepted;
      char* json = bson_as_relaxed_extended_json(&doc, nullptr);
      bson_free(json);
    }
  }
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace cairn
