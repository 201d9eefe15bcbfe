// Specification of index/key_generator and IndexDescriptor::GetKeys: which keys MongoDB's btree
// indexes hold for a document (missing → null, arrays → one key per distinct element, empty
// array → undefined, arrays of documents through dotted paths, correlated compound keys, parallel
// arrays refused with 171, sparse and partial indexes), and which paths are multikey.
#include "index/key_generator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "index/index_descriptor.h"
#include "index/key_string.h"

namespace cairn::index {
namespace {

// The keys as "v1, v2" strings (decoded values in shell form), in key order.
std::vector<std::string> Readable(const KeySet& keys, const KeyPattern& pattern) {
  std::vector<std::string> out;
  for (const std::string& key : keys) {
    Result<BsonDoc> decoded = DecodeKey(key, pattern.descending());
    EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
    if (!decoded.ok()) continue;
    std::string line;
    bson_iter_t it;
    decoded->view().Init(&it);
    while (bson_iter_next(&it)) {
      if (!line.empty()) line += ", ";
      line += ValueToShellString(&it);
    }
    out.push_back(line);
  }
  return out;
}

struct KeyCase {
  const char* name;
  const char* pattern;
  const char* doc;
  std::vector<std::string> keys;
  std::vector<uint64_t> multikey;  // empty: not multikey
  bool sparse = false;
};

TEST(KeyGeneratorTest, ShouldGenerateMongoDbsKeys) {
  const std::vector<KeyCase> cases = {
      {"scalar", R"({"a": 1})", R"({"a": 1})", {"1"}, {}},
      {"missing field is null", R"({"a": 1})", R"({"b": 1})", {"null"}, {}},
      {"null value", R"({"a": 1})", R"({"a": null})", {"null"}, {}},
      {"array: one key per distinct element",
       R"({"a": 1})",
       R"({"a": [2, 1, 2]})",
       {"1", "2"},
       {1}},
      {"numbers equal by value share a key",
       R"({"a": 1})",
       R"({"a": [1, 1.0, {"$numberLong": "1"}]})",
       {"1"},
       {1}},
      {"empty array is undefined", R"({"a": 1})", R"({"a": []})", {"undefined"}, {1}},
      {"embedded document", R"({"a.b": 1})", R"({"a": {"b": "x"}})", {"\"x\""}, {}},
      {"array of documents", R"({"a.b": 1})", R"({"a": [{"b": 1}, {"b": 2}]})", {"1", "2"}, {1}},
      {"scalar among documents keys null",
       R"({"a.b": 1})",
       R"({"a": [1, {"b": 2}]})",
       {"null", "2"},
       {1}},
      {"empty array mid-path keys null", R"({"a.b": 1})", R"({"a": []})", {"null"}, {1}},
      {"array at the end of a dotted path",
       R"({"a.b": 1})",
       R"({"a": {"b": [3, 4]}})",
       {"3", "4"},
       {2}},
      {"scalar mid-path is missing", R"({"a.b": 1})", R"({"a": 5})", {"null"}, {}},
      {"nested array is one key", R"({"a": 1})", R"({"a": [[1, 2], 3]})", {"3", "[ 1, 2 ]"}, {1}},
      {"positional component selects an element", R"({"a.0": 1})", R"({"a": [5, 6]})", {"5"}, {}},
      {"compound with one array",
       R"({"a": 1, "b": 1})",
       R"({"a": [1, 2], "b": 3})",
       {"1, 3", "2, 3"},
       {1, 0}},
      {"compound missing field", R"({"a": 1, "b": 1})", R"({"b": 3})", {"null, 3"}, {}},
      {"shared array prefix stays correlated",
       R"({"a.b": 1, "a.c": 1})",
       R"({"a": [{"b": 1, "c": 2}, {"b": 3, "c": 4}]})",
       {"1, 2", "3, 4"},
       {1, 1}},
      {"descending", R"({"a": -1})", R"({"a": [1, 2]})", {"2", "1"}, {1}},
      {"sparse skips a document missing every field",
       R"({"a": 1, "c": 1})",
       R"({"b": 1})",
       {},
       {},
       true},
      {"sparse keeps a document with one field",
       R"({"a": 1, "c": 1})",
       R"({"a": 1})",
       {"1, null"},
       {},
       true},
      {"sparse keeps null values", R"({"a": 1})", R"({"a": null})", {"null"}, {}, true},
      {"sparse keeps empty arrays", R"({"a": 1})", R"({"a": []})", {"undefined"}, {1}, true},
  };
  for (const KeyCase& c : cases) {
    BsonDoc pattern_doc = BsonDoc::FromJson(c.pattern);
    Result<KeyPattern> pattern = KeyPattern::Parse(pattern_doc.view());
    ASSERT_TRUE(pattern.ok()) << c.name;
    std::unique_ptr<KeyGenerator> generator = MakeBtreeKeyGenerator(*pattern, c.sparse);
    KeySet keys;
    MultikeyPaths multikey;
    BsonDoc doc = BsonDoc::FromJson(c.doc);
    Status status = generator->GetKeys(doc.view(), &keys, &multikey);
    ASSERT_TRUE(status.ok()) << c.name << ": " << status.ToString();
    EXPECT_EQ(Readable(keys, *pattern), c.keys) << c.name;
    MultikeyPaths expected = c.multikey;
    expected.resize(pattern->fields().size(), 0);
    EXPECT_EQ(multikey, expected) << c.name;
    EXPECT_EQ(IsMultikey(multikey), !c.multikey.empty()) << c.name;
  }
}

TEST(KeyGeneratorTest, ShouldRefuseParallelArraysWithMongoDbsMessage) {
  struct Case {
    const char* pattern;
    const char* doc;
    const char* message;
  };
  const Case cases[] = {
      {R"({"a": 1, "b": 1})", R"({"a": [1], "b": [2]})", "cannot index parallel arrays [b] [a]"},
      {R"({"x.a": 1, "y.b": 1})", R"({"x": {"a": [1]}, "y": {"b": [1, 2]}})",
       "cannot index parallel arrays [b] [a]"},
      {R"({"a.b": 1, "a.c": 1})", R"({"a": [{"b": [1], "c": [2]}]})",
       "cannot index parallel arrays [c] [b]"},
  };
  for (const Case& c : cases) {
    BsonDoc pattern_doc = BsonDoc::FromJson(c.pattern);
    KeyPattern pattern = KeyPattern::Parse(pattern_doc.view()).value();
    KeySet keys;
    MultikeyPaths multikey;
    Status status = MakeBtreeKeyGenerator(pattern, false)
                        ->GetKeys(BsonDoc::FromJson(c.doc).view(), &keys, &multikey);
    ASSERT_FALSE(status.ok()) << c.doc;
    EXPECT_EQ(status.code_number(), 171);
    EXPECT_EQ(status.reason(), c.message);
  }
}

TEST(KeyGeneratorTest, ShouldKeyComparedFieldsInIndexOrder) {
  // Keys of different documents order as MongoDB orders their values.
  BsonDoc pattern_doc = BsonDoc::FromJson(R"({"a": 1, "b": -1})");
  KeyPattern pattern = KeyPattern::Parse(pattern_doc.view()).value();
  auto generator = MakeBtreeKeyGenerator(pattern, false);
  auto key_of = [&](const char* json) {
    KeySet keys;
    MultikeyPaths multikey;
    EXPECT_TRUE(generator->GetKeys(BsonDoc::FromJson(json).view(), &keys, &multikey).ok());
    return keys.at(0);
  };
  EXPECT_LT(key_of(R"({"a": 1, "b": 9})"), key_of(R"({"a": 1, "b": 2})"));
  EXPECT_LT(key_of(R"({"a": 1, "b": 2})"), key_of(R"({"a": 2, "b": 9})"));
  EXPECT_LT(key_of(R"({"b": 1})"), key_of(R"({"a": 0})"));  // missing (null) before numbers
}

TEST(IndexDescriptorTest, ShouldKeyOnlyDocumentsMatchingThePartialFilter) {
  BsonDoc spec = BsonDoc::FromJson(
      R"({"v": 2, "key": {"a": 1}, "name": "a_1", "partialFilterExpression": {"b": {"$gt": 5}}})");
  auto descriptor = IndexDescriptor::Make(spec.view());
  ASSERT_TRUE(descriptor.ok()) << descriptor.status().ToString();
  KeySet keys;
  MultikeyPaths multikey;
  ASSERT_TRUE((*descriptor)
                  ->GetKeys(BsonDoc::FromJson(R"({"a": 1, "b": 6})").view(), &keys, &multikey)
                  .ok());
  EXPECT_EQ(keys.size(), 1u);
  ASSERT_TRUE((*descriptor)
                  ->GetKeys(BsonDoc::FromJson(R"({"a": 1, "b": 5})").view(), &keys, &multikey)
                  .ok());
  EXPECT_TRUE(keys.empty());
  ASSERT_TRUE(
      (*descriptor)->GetKeys(BsonDoc::FromJson(R"({"a": 1})").view(), &keys, &multikey).ok());
  EXPECT_TRUE(keys.empty());
  EXPECT_NE((*descriptor)->partial_filter(), nullptr);
  EXPECT_FALSE((*descriptor)->unique());
}

TEST(IndexDescriptorTest, ShouldFailTheKeysOfADocumentThePartialFilterFailsOn) {
  // (a+)+$ exhausts PCRE2's match limit over 25 a's and "!c": the write that needs the keys
  // fails with the filter's error (51156) rather than leaving the document out of the index.
  BsonDoc spec = BsonDoc::FromJson(
      R"({"v": 2, "key": {"a": 1}, "name": "a_1", "partialFilterExpression":
          {"s": {"$in": [{"$regularExpression": {"pattern": "(a+)+$|c", "options": ""}}]}}})");
  auto descriptor = IndexDescriptor::Make(spec.view());
  ASSERT_TRUE(descriptor.ok()) << descriptor.status().ToString();
  KeySet keys;
  MultikeyPaths multikey;
  ASSERT_TRUE(
      (*descriptor)
          ->GetKeys(BsonDoc::FromJson(R"({"a": 1, "s": "aaaa!c"})").view(), &keys, &multikey)
          .ok());
  EXPECT_EQ(keys.size(), 1u);
  Status failed =
      (*descriptor)
          ->GetKeys(BsonDoc::FromJson(R"({"a": 1, "s": "aaaaaaaaaaaaaaaaaaaaaaaaa!c"})").view(),
                    &keys, &multikey);
  EXPECT_EQ(failed.code(), ErrorCode::kLocation51156);
  EXPECT_EQ(failed.reason(),
            "Error occurred while executing the regular expression in $regex. Result code: match "
            "limit exceeded");
}

TEST(IndexDescriptorTest, ShouldReadOptionsFromTheStoredSpec) {
  BsonDoc spec = BsonDoc::FromJson(
      R"({"v": 2, "unique": true, "hidden": true, "key": {"a.b": -1}, "name": "x",
          "expireAfterSeconds": 30})");
  auto descriptor = IndexDescriptor::Make(spec.view()).value();
  EXPECT_EQ(descriptor->name(), "x");
  EXPECT_TRUE(descriptor->unique());
  EXPECT_TRUE(descriptor->hidden());
  EXPECT_FALSE(descriptor->sparse());
  EXPECT_EQ(descriptor->expire_after_seconds(), 30);
  EXPECT_TRUE(descriptor->key_pattern().fields()[0].descending);
  BsonDoc id_spec = BsonDoc::FromJson(R"({"v": 2, "key": {"_id": 1}, "name": "_id_"})");
  auto id = IndexDescriptor::Make(id_spec.view()).value();
  EXPECT_TRUE(id->is_id_index());
  EXPECT_TRUE(id->unique());
}

TEST(IndexStateTest, ShouldRoundTripAndDefaultToReadyNotMultikey) {
  IndexState state;
  state.ready = false;
  state.multikey = {0, 6};
  BsonDoc doc = EncodeIndexState(state);
  IndexState back = DecodeIndexState(doc.view(), 2);
  EXPECT_FALSE(back.ready);
  EXPECT_EQ(back.multikey, (MultikeyPaths{0, 6}));
  IndexState missing = DecodeIndexState(BsonView(), 3);
  EXPECT_TRUE(missing.ready);
  EXPECT_EQ(missing.multikey, (MultikeyPaths{0, 0, 0}));
}

}  // namespace
}  // namespace cairn::index
