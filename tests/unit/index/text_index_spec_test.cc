// Specification of index/text_index_spec: the spec createIndexes stores for a text index
// (MongoDB's fixSpec shape and error codes), the weighted walk of a document (fields, dotted
// paths, arrays, "$**", per-document and per-sub-document language_override), and the keys of
// the text key generator (one per distinct term: the term then its score).
#include "index/text_index_spec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "index/key_string.h"

namespace cairn::index {
namespace {

std::string Normalized(const char* spec) {
  Result<BsonDoc> out = NormalizeTextIndexSpec(BsonDoc::FromJson(spec).view());
  if (!out.ok()) return "error " + std::to_string(static_cast<int>(out.status().code()));
  return ToShellString(out->view());
}

TEST(TextIndexSpec, ShouldNormaliseAsMongoDBPrintsIt) {
  EXPECT_EQ(Normalized(R"({"key": {"title": "text"}, "name": "title_text"})"),
            "{ key: { _fts: \"text\", _ftsx: 1 }, name: \"title_text\", weights: { title: 1 }, "
            "default_language: \"english\", language_override: \"language\", "
            "textIndexVersion: 3 }");
  EXPECT_EQ(Normalized(R"({"key": {"b": "text", "a": "text"}, "name": "n",
                           "weights": {"a": 5}, "default_language": "fr",
                           "language_override": "lang"})"),
            "{ key: { _fts: \"text\", _ftsx: 1 }, name: \"n\", weights: { a: 5, b: 1 }, "
            "default_language: \"fr\", language_override: \"lang\", textIndexVersion: 3 }");
  EXPECT_EQ(Normalized(R"({"key": {"_fts": "text", "_ftsx": 1}, "weights": {"a": 2}})"),
            "{ key: { _fts: \"text\", _ftsx: 1 }, weights: { a: 2 }, "
            "default_language: \"english\", language_override: \"language\", "
            "textIndexVersion: 3 }");
  EXPECT_EQ(Normalized(R"({"key": {"$**": "text"}, "name": "all"})"),
            "{ key: { _fts: \"text\", _ftsx: 1 }, name: \"all\", weights: { $**: 1 }, "
            "default_language: \"english\", language_override: \"language\", "
            "textIndexVersion: 3 }");
}

TEST(TextIndexSpec, ShouldRefuseBadSpecsWithMongoDBsCodes) {
  struct Case {
    const char* spec;
    int code;
  } cases[] = {
      {R"({"key": {"a": "text"}, "weights": {"a": "x"}})", 17283},
      {R"({"key": {"a": "text"}, "weights": 5})", 17284},
      {R"({"key": {"a": "text"}, "weights": {"a": 0}})", 16674},
      {R"({"key": {"a": "text"}, "weights": {"a": 100000}})", 16674},
      {R"({"key": {"a": "text"}, "weights": {"b..c": 1}})", 17291},
      {R"({"key": {"a": "text"}, "weights": {"b.$c": 1}})", 17292},
      {R"({"key": {"a": "text"}, "default_language": 1})", 17263},
      {R"({"key": {"a": "text"}, "default_language": "klingon"})", 17264},
      {R"({"key": {"a": "text"}, "language_override": "$x"})", 17136},
      {R"({"key": {"a": "text"}, "language_override": "a.b"})", 17136},
      {R"({"key": {"a": "text", "b": 1, "c": "text"}})", 17389},
      {R"({"key": {"a": "text", "b": 2}})", 17273},
      {R"({"key": {"a": "text", "_ftsx": 1, "_fts": 1}})", 17289},
      {R"({"key": {"_fts": 1, "_ftsx": 1}})", 17271},
      {R"({"key": {"_fts": "text", "_ftsx": 2}})", 17272},
      {R"({"key": {"x": 1, "a": "text"}})", 67},  // compound: not supported yet
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Normalized(c.spec), "error " + std::to_string(c.code)) << c.spec;
  }
}

// The document's scores as "term=score" strings, rounded to 4 places.
std::vector<std::string> Scores(const char* spec, const char* doc, int* error = nullptr) {
  Result<BsonDoc> normalized = NormalizeTextIndexSpec(BsonDoc::FromJson(spec).view());
  EXPECT_TRUE(normalized.ok());
  Result<TextIndexSpec> parsed = TextIndexSpec::Parse(normalized->view());
  EXPECT_TRUE(parsed.ok());
  std::map<std::string, double> scores;
  Status status = parsed->ScoreDocument(BsonDoc::FromJson(doc).view(), &scores);
  if (error != nullptr) *error = status.ok() ? 0 : static_cast<int>(status.code());
  std::vector<std::string> out;
  for (const auto& [term, score] : scores) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s=%.4f", term.c_str(), score);
    out.emplace_back(buf);
  }
  return out;
}

using Strings = std::vector<std::string>;

TEST(TextIndexSpec, ShouldScoreOnlyWeightedStrings) {
  const char* spec = R"({"key": {"title": "text", "tags": "text", "a.b": "text"},
                         "weights": {"title": 10}})";
  EXPECT_EQ(Scores(spec, R"({"title": "tea", "body": "coffee", "n": 5})"),
            (Strings{"tea=11.0000"}));
  EXPECT_EQ(Scores(spec, R"({"tags": ["tea", "cake", 7], "a": [{"b": "milk"}, {"c": "x"}]})"),
            (Strings{"cake=1.1000", "milk=1.1000", "tea=1.1000"}));
  EXPECT_EQ(Scores(spec, R"({"title": "tea", "tags": "tea"})"), (Strings{"tea=12.1000"}));
  EXPECT_EQ(Scores(spec, R"({"title": 5, "tags": {"x": "tea"}})"), Strings{});
}

TEST(TextIndexSpec, ShouldScoreEveryStringUnderWildcard) {
  const char* spec = R"({"key": {"$**": "text"}, "weights": {"x.y": 3}})";
  EXPECT_EQ(Scores(spec, R"({"a": "tea", "x": {"y": "cake", "z": ["milk"]}})"),
            (Strings{"cake=3.3000", "milk=1.1000", "tea=1.1000"}));
}

TEST(TextIndexSpec, ShouldUseTheNearestLanguageOverride) {
  const char* spec = R"({"key": {"$**": "text"}})";
  // English stems "running" to "run"; "none" keeps it, and keeps stop words.
  EXPECT_EQ(Scores(spec, R"({"t": "running", "language": "none"})"), (Strings{"running=1.1000"}));
  EXPECT_EQ(Scores(spec, R"({"t": "running", "sub": {"language": "none", "u": "the"}})"),
            (Strings{"run=1.0000", "the=1.1000"}));
  int error = 0;
  Scores(spec, R"({"t": "x", "language": 5})", &error);
  EXPECT_EQ(error, 17261);
  Scores(spec, R"({"t": "x", "language": "klingon"})", &error);
  EXPECT_EQ(error, 17262);
}

TEST(TextKeyGenerator, ShouldKeyEachDistinctTermWithItsScore) {
  Result<BsonDoc> spec = NormalizeTextIndexSpec(
      BsonDoc::FromJson(R"({"key": {"title": "text"}, "name": "t"})").view());
  ASSERT_TRUE(spec.ok());
  Result<std::unique_ptr<KeyGenerator>> generator = MakeTextKeyGenerator(spec->view());
  ASSERT_TRUE(generator.ok());
  KeySet keys;
  MultikeyPaths multikey(2, 0);
  ASSERT_TRUE(
      (*generator)
          ->GetKeys(BsonDoc::FromJson(R"({"title": "tea cake tea"})").view(), &keys, &multikey)
          .ok());
  std::vector<std::string> readable;
  for (const std::string& key : keys) {
    Result<BsonDoc> decoded = DecodeKey(key, {false, false});
    ASSERT_TRUE(decoded.ok());
    readable.push_back(ToShellString(decoded->view()));
  }
  EXPECT_EQ(readable.size(), 2u);
  EXPECT_NE(readable[0].find("\"cake\""), std::string::npos) << readable[0];
  EXPECT_NE(readable[1].find("\"tea\""), std::string::npos) << readable[1];
  ASSERT_TRUE((*generator)
                  ->GetKeys(BsonDoc::FromJson(R"({"title": "the and"})").view(), &keys, &multikey)
                  .ok());
  EXPECT_TRUE(keys.empty());  // only stop words: the document is not in the index
}

}  // namespace
}  // namespace cairn::index
