// Specification of common/bson_validate: mongod's validation of untrusted BSON (structure,
// terminators at every level, element types, nesting up to maxBSONDepth) with its codes and
// messages, and the nesting limit of stored documents.
#include "common/bson_validate.h"

#include <gtest/gtest.h>

#include <cstring>
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

// {a: {a: ... {a: 1}}} with `levels` nested documents below the top one, built byte by byte
// (libbson's builder is not the point here, and deep nesting must not recurse anywhere).
std::vector<uint8_t> Nested(size_t levels, char open = 0x03) {
  // Each level: type, "a", NUL, int32 length, ..., EOO.
  std::vector<uint8_t> out;
  const size_t innermost = 4 + 1 + 2 + 4 + 1;  // {a: int32 1}
  std::vector<size_t> sizes(levels + 1);
  sizes[levels] = innermost;
  for (size_t i = levels; i-- > 0;) sizes[i] = 4 + 1 + 2 + sizes[i + 1] + 1;
  for (size_t i = 0; i <= levels; ++i) {
    uint32_t le = BSON_UINT32_TO_LE(static_cast<uint32_t>(sizes[i]));
    out.insert(out.end(), reinterpret_cast<uint8_t*>(&le), reinterpret_cast<uint8_t*>(&le) + 4);
    if (i < levels) {
      out.push_back(static_cast<uint8_t>(open == 0x04 ? 0x04 : 0x03));
      out.push_back(open == 0x04 ? '0' : 'a');
      out.push_back(0);
    }
  }
  out.push_back(0x10);
  out.push_back('a');
  out.push_back(0);
  const uint8_t one[4] = {1, 0, 0, 0};
  out.insert(out.end(), one, one + 4);
  for (size_t i = 0; i <= levels; ++i) out.push_back(0);
  return out;
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

TEST(ValidateBson, ShouldRejectANestedDocumentWhoseLastByteIsNotItsTerminator) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": {"x": 1}, "y": 2})");
  std::vector<uint8_t> b = Bytes(doc);
  // Layout: int32 | 0x03 'a' 0x00 | nested at 7: int32 12 | 0x10 'x' 0x00 int32 | 0x00 (at 18)
  ASSERT_EQ(b[18], 0);
  b[18] = 1;
  Status s = ValidateBson(b.data(), b.size());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidBSON);
}

TEST(ValidateBson, ShouldRejectANestedArrayWhoseLastByteIsNotItsTerminator) {
  BsonDoc doc = BsonDoc::FromJson(R"({"p": [{"$match": {}}]})");
  std::vector<uint8_t> b = Bytes(doc);
  // The array's EOO is the byte before the top level's.
  ASSERT_EQ(b[b.size() - 2], 0);
  b[b.size() - 2] = 1;
  EXPECT_EQ(ValidateBson(b.data(), b.size()).code(), ErrorCode::kInvalidBSON);
}

TEST(ValidateBson, ShouldAcceptNestingUpToMaxBsonDepth) {
  // As mongod counts it, the top-level document is depth 0: 200 nested documents are allowed.
  std::vector<uint8_t> b = Nested(200);
  EXPECT_TRUE(ValidateBson(b.data(), b.size()).ok());
  std::vector<uint8_t> arrays = Nested(200, 0x04);
  EXPECT_TRUE(ValidateBson(arrays.data(), arrays.size()).ok());
}

TEST(ValidateBson, ShouldRefuseNestingPastMaxBsonDepthWithOverflow) {
  std::vector<uint8_t> b = Nested(201);
  Status s = ValidateBson(b.data(), b.size());
  EXPECT_EQ(s.code(), ErrorCode::kOverflow);
  EXPECT_EQ(s.reason().rfind("BSONObj exceeds maximum nested object depth in element with field "
                             "name 'a.a.a.",
                             0),
            0u)
      << s.reason();
  EXPECT_NE(s.reason().find("' in object with unknown _id"), std::string::npos) << s.reason();
}

TEST(ValidateBson, ShouldRefuseAnyDepthWithoutRecursing) {
  // ~7 bytes a level: a million levels is a 7 MB message, well under the 48 MB a client may send.
  std::vector<uint8_t> b = Nested(1'000'000);
  EXPECT_EQ(ValidateBson(b.data(), b.size()).code(), ErrorCode::kOverflow);
}

TEST(ValidateBson, ShouldNameTheTopLevelIdInItsContext) {
  BsonDoc doc = BsonDoc::FromJson(R"({"_id": 7, "s": "xyz"})");
  std::vector<uint8_t> b = Bytes(doc);
  // _id element: 0x10 '_id' 0x00 int32 (4 + 5 + 4 = offset 13); then 0x02 's' 0x00 | int32 len
  ASSERT_EQ(b[13], 0x02);
  SetLength(&b, 16, 1000);
  Status s = ValidateBson(b.data(), b.size());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidBSON);
  EXPECT_EQ(s.reason(),
            "Not null terminated string in element with field name 's' in object "
            "with _id: 7");
}

TEST(ValidateBson, ShouldRejectBoolValuesOtherThanZeroAndOne) {
  BsonDoc doc = BsonDoc::FromJson(R"({"t": true})");
  std::vector<uint8_t> b = Bytes(doc);
  ASSERT_EQ(b[4], 0x08);
  b[7] = 2;
  Status s = ValidateBson(b.data(), b.size());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidBSON);
  EXPECT_EQ(s.reason().rfind("BSON bool is neither false nor true", 0), 0u);
}

TEST(ValidateBson, ShouldRejectUnknownElementTypes) {
  BsonDoc doc = BsonDoc::FromJson(R"({"n": null})");
  std::vector<uint8_t> b = Bytes(doc);
  ASSERT_EQ(b[4], 0x0A);
  b[4] = 0x42;
  Status s = ValidateBson(b.data(), b.size());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidBSON);
  EXPECT_EQ(s.reason().rfind("Unrecognized BSON type 66", 0), 0u) << s.reason();
}

TEST(ValidateBson, ShouldCheckCodeWithScopeSizes) {
  BsonDoc scope = BsonDoc::FromJson(R"({"x": 1})");
  BsonDoc doc;
  bson_append_code_with_scope(doc.get(), "c", 1, "return x;", scope.get());
  std::vector<uint8_t> b = Bytes(doc);
  EXPECT_TRUE(ValidateBson(b.data(), b.size()).ok());
  // The value's total length (after 0x0F 'c' 0x00) one byte too long.
  std::vector<uint8_t> longer = b;
  int32_t total;
  std::memcpy(&total, longer.data() + 7, 4);
  SetLength(&longer, 7, total + 1);
  EXPECT_EQ(ValidateBson(longer.data(), longer.size()).code(), ErrorCode::kInvalidBSON);
}

TEST(ValidateBson, ShouldFollowMaxBsonDepthWhenItIsSet) {
  ASSERT_TRUE(SetMaxBsonDepth(21).ok());
  std::vector<uint8_t> ok = Nested(21), deep = Nested(22);
  EXPECT_TRUE(ValidateBson(ok.data(), ok.size()).ok());
  EXPECT_EQ(ValidateBson(deep.data(), deep.size()).code(), ErrorCode::kOverflow);
  EXPECT_EQ(MaxStorageDepth(), 1);
  ASSERT_TRUE(SetMaxBsonDepth(kDefaultMaxBsonDepth).ok());
  EXPECT_EQ(SetMaxBsonDepth(20).code(), ErrorCode::kBadValue);
  EXPECT_EQ(SetMaxBsonDepth(1001).code(), ErrorCode::kBadValue);
  EXPECT_EQ(MaxBsonDepth(), 200);
}

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

// ---- CheckStorageDepth ----

TEST(CheckStorageDepth, ShouldAcceptDocumentsOf180Levels) {
  std::vector<uint8_t> b = Nested(179);
  EXPECT_TRUE(CheckStorageDepth(BsonView(b.data(), b.size()), StorageDepthCheck::kInsert).ok());
}

TEST(CheckStorageDepth, ShouldRefuse181LevelsWithMongodsMessages) {
  std::vector<uint8_t> b = Nested(180);
  Status insert = CheckStorageDepth(BsonView(b.data(), b.size()), StorageDepthCheck::kInsert);
  EXPECT_EQ(insert.code(), ErrorCode::kOverflow);
  EXPECT_EQ(insert.reason(), "cannot insert document because it exceeds 180 levels of nesting");
  Status update = CheckStorageDepth(BsonView(b.data(), b.size()), StorageDepthCheck::kUpdate);
  EXPECT_EQ(update.code(), ErrorCode::kOverflow);
  EXPECT_EQ(update.reason(), "Document exceeds maximum nesting depth of 180");
}

TEST(CheckStorageDepth, ShouldNotCountAnEmptyInnermostDocument) {
  // With maxBSONDepth 21 stored documents may hold one level: {a: {}} has one (mongod's
  // max_bson_depth_user_storage test), {a: {b: 1}} has two.
  ASSERT_TRUE(SetMaxBsonDepth(21).ok());
  BsonDoc ok = BsonDoc::FromJson(R"({"a": {}})");
  EXPECT_TRUE(CheckStorageDepth(ok.view(), StorageDepthCheck::kInsert).ok());
  // Small documents take the size shortcut; pad these past it.
  BsonDoc padded = BsonDoc::FromJson(R"({"a": {"b": 1}})");
  AppendUtf8(padded.get(), "pad", std::string(200, 'x'));
  EXPECT_EQ(CheckStorageDepth(padded.view(), StorageDepthCheck::kInsert).code(),
            ErrorCode::kOverflow);
  BsonDoc padded_empty = BsonDoc::FromJson(R"({"a": {}, "b": []})");
  AppendUtf8(padded_empty.get(), "pad", std::string(200, 'x'));
  EXPECT_TRUE(CheckStorageDepth(padded_empty.view(), StorageDepthCheck::kInsert).ok());
  ASSERT_TRUE(SetMaxBsonDepth(kDefaultMaxBsonDepth).ok());
}

TEST(NestingDepth, ShouldCountWithoutRecursion) {
  BsonDoc flat = BsonDoc::FromJson(R"({"a": 1, "b": [1, 2], "c": {"d": {}}})");
  EXPECT_EQ(NestingDepth(flat.view(), 1000), 3);
  EXPECT_EQ(NestingDepth(flat.view(), 1000, EmptyLevels::kNotCounted), 2);
  // A deep document (built inside out: libbson's JSON reader stops at 100 levels) is counted
  // iteratively, stopping early.
  BsonDoc deep = BsonDoc::FromJson(R"({"a": 1})");
  for (int i = 0; i < 5000; ++i) {
    BsonDoc wrapped;
    bson_t inner = deep.view().AsBson();
    bson_append_document(wrapped.get(), "a", 1, &inner);
    deep = std::move(wrapped);
  }
  EXPECT_EQ(NestingDepth(deep.view(), 10), 11);
  EXPECT_EQ(NestingDepth(deep.view(), 100000), 5001);
}

}  // namespace
}  // namespace cairn
