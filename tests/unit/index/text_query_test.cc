// Specification of index/text_query: how a $text search string parses (terms stemmed and without
// stop words, "phrases", -negations, as MongoDB's FTSQuery), the parsedTextQuery explain prints,
// and the document test after the index lookup (phrases, negated terms and phrases, case
// sensitivity), plus the descriptor of a text index producing (term, score) keys.
#include "index/text_query.h"

#include <gtest/gtest.h>

#include <string>

#include "index/index_descriptor.h"
#include "index/index_spec.h"

namespace cairn::index {
namespace {

TextLanguage English() {
  TextLanguage language;
  TextLanguage::Find("english", &language);
  return language;
}

std::string Explained(const char* search, bool case_sensitive = false) {
  TextQuery query = TextQuery::Parse(search, English(), case_sensitive, false);
  BsonDoc out;
  query.AppendExplain(out.get());
  return ToShellString(out.view());
}

TEST(TextQuery, ShouldParseTermsPhrasesAndNegationsAsMongoDB) {
  struct Case {
    const char* search;
    const char* parsed;
  } cases[] = {
      {"running dogs",
       R"({ terms: [ "dog", "run" ], negatedTerms: [], phrases: [], negatedPhrases: [] })"},
      {"the a of", R"({ terms: [], negatedTerms: [], phrases: [], negatedPhrases: [] })"},
      {"coffee -shop",
       R"({ terms: [ "coffe" ], negatedTerms: [ "shop" ], phrases: [], negatedPhrases: [] })"},
      {"\"coffee shop\" cake",
       R"({ terms: [ "cake", "coffe", "shop" ], negatedTerms: [], phrases: [ "coffee shop" ], negatedPhrases: [] })"},
      {"cake -\"coffee shop\"",
       R"({ terms: [ "cake" ], negatedTerms: [], phrases: [], negatedPhrases: [ "coffee shop" ] })"},
      {"pre-war",
       R"({ terms: [ "pre", "war" ], negatedTerms: [], phrases: [], negatedPhrases: [] })"},
      {"-tea", R"({ terms: [], negatedTerms: [ "tea" ], phrases: [], negatedPhrases: [] })"},
  };
  for (const Case& c : cases) EXPECT_EQ(Explained(c.search), c.parsed) << c.search;
}

TEST(TextQuery, ShouldKeepCaseOfTermsWhenCaseSensitive) {
  TextQuery query = TextQuery::Parse("Coffee", English(), true, false);
  EXPECT_EQ(query.terms_for_bounds().count("coffe"), 1u);  // the index keys are folded
  EXPECT_EQ(query.terms().count("Coffe"), 1u);
}

class TextQueryMatch : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<BsonDoc> normalized = NormalizeTextIndexSpec(
        BsonDoc::FromJson(R"({"key": {"title": "text", "body": "text"}, "name": "t"})").view());
    ASSERT_TRUE(normalized.ok());
    Result<TextIndexSpec> spec = TextIndexSpec::Parse(normalized->view());
    ASSERT_TRUE(spec.ok());
    spec_ = std::move(spec).value();
  }
  bool Matches(const char* search, const char* doc, bool case_sensitive = false) {
    TextQuery query = TextQuery::Parse(search, English(), case_sensitive, false);
    Result<bool> matched = query.Matches(spec_, BsonDoc::FromJson(doc).view());
    EXPECT_TRUE(matched.ok());
    return matched.ok() && *matched;
  }
  TextIndexSpec spec_;
};

TEST_F(TextQueryMatch, ShouldApplyPhrasesAndNegationsToIndexedFieldsOnly) {
  EXPECT_TRUE(Matches("\"Coffee Shop\"", R"({"title": "the coffee shop down the road"})"));
  EXPECT_FALSE(Matches("\"coffee shop\"", R"({"title": "coffee", "body": "shop"})"));
  EXPECT_FALSE(Matches("coffee -shop", R"({"title": "coffee", "body": "shops"})"));
  EXPECT_TRUE(Matches("coffee -shop", R"({"title": "coffee", "other": "shop"})"));
  EXPECT_FALSE(Matches("cake -\"coffee shop\"", R"({"body": "cake at the coffee shop"})"));
  EXPECT_TRUE(Matches("cake -\"coffee shop\"", R"({"body": "cake at the shop"})"));
}

TEST_F(TextQueryMatch, ShouldNeedATermAsWrittenWhenCaseSensitive) {
  EXPECT_TRUE(Matches("Coffee", R"({"title": "Coffee time"})", true));
  EXPECT_FALSE(Matches("Coffee", R"({"title": "coffee time"})", true));
  EXPECT_FALSE(Matches("\"Coffee\"", R"({"title": "coffee time"})", true));
}

TEST(TextIndexDescriptor, ShouldStoreTheNormalFormAndKeyTermsWithScores) {
  Result<BsonDoc> validated = ValidateIndexSpec(
      BsonDoc::FromJson(
          R"({"key": {"title": "text", "body": "text"}, "name": "title_text_body_text",
                            "weights": {"title": 10}})")
          .view());
  ASSERT_TRUE(validated.ok()) << validated.status().reason();
  Result<BsonDoc> stored = FinalizeIndexSpec(validated->view());
  ASSERT_TRUE(stored.ok()) << stored.status().reason();
  EXPECT_EQ(ToShellString(stored->view()),
            "{ v: 2, key: { _fts: \"text\", _ftsx: 1 }, name: \"title_text_body_text\", "
            "weights: { body: 1, title: 10 }, default_language: \"english\", "
            "language_override: \"language\", textIndexVersion: 3 }");
  Result<std::shared_ptr<const IndexDescriptor>> descriptor = IndexDescriptor::Make(stored->view());
  ASSERT_TRUE(descriptor.ok()) << descriptor.status().reason();
  KeySet keys;
  MultikeyPaths multikey((*descriptor)->num_fields(), 0);
  ASSERT_TRUE((*descriptor)
                  ->GetKeys(BsonDoc::FromJson(R"({"title": "tea", "body": "cake"})").view(), &keys,
                            &multikey)
                  .ok());
  EXPECT_EQ(keys.size(), 2u);
}

}  // namespace
}  // namespace cairn::index
