// Specification of index/text_tokenizer: MongoDB's text analysis (textIndexVersion 3) — which
// characters split words (the apostrophe only outside English), case and diacritic folding,
// English stop words, Snowball English stemming, the languages text search accepts, and the
// term scores of one string (FTSSpec::_scoreStringV2).
#include "index/text_tokenizer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace cairn::index {
namespace {

TextLanguage Language(const char* name) {
  TextLanguage language;
  EXPECT_TRUE(TextLanguage::Find(name, &language)) << name;
  return language;
}

using Terms = std::vector<std::string>;

struct TokenCase {
  const char* name;
  const char* language;
  const char* text;
  Terms terms;
};

TEST(TextTokenizer, ShouldSplitFoldFilterAndStemAsMongoDB) {
  const TokenCase cases[] = {
      {"lowercases and stems", "english", "Running Dogs", {"run", "dog"}},
      {"drops English stop words", "english", "the cat and the hat", {"cat", "hat"}},
      {"stop words match case-folded", "english", "THE Cat", {"cat"}},
      {"punctuation and dashes delimit",
       "english",
       "coffee-shop, (cake)! \"tea\"?",
       {"coffe", "shop", "cake", "tea"}},
      {"apostrophe stays in English words", "english", "don't o'neil's", {"o'neil"}},
      {"apostrophe delimits outside English", "french", "l'homme", {"l", "homm"}},
      {"numbers are terms", "english", "route 66", {"rout", "66"}},
      {"diacritics are dropped after stemming", "english", "Café CRÈME", {"cafe", "creme"}},
      {"none: no stemming, no stop words", "none", "The Running dogs", {"the", "running", "dogs"}},
      {"empty and delimiter-only text", "english", " .,;- ", {}},
      {"repeated terms repeat", "english", "tea Tea TEA", {"tea", "tea", "tea"}},
      {"blueberries stem", "english", "blueberries", {"blueberri"}},
      {"ISO code names the language", "en", "stemming", {"stem"}},
  };
  for (const TokenCase& c : cases) {
    EXPECT_EQ(TokenizeText(c.text, Language(c.language)), c.terms) << c.name;
  }
}

TEST(TextTokenizer, ShouldKeepCaseAndDiacriticsWhenAsked) {
  TokenizeOptions options;
  options.case_sensitive = true;
  options.diacritic_sensitive = true;
  EXPECT_EQ(TokenizeText("Café Dogs", Language("english"), options), (Terms{"Café", "Dog"}));
  EXPECT_EQ(SplitTextWords("The Café, the dog", Language("english"), false, false),
            (Terms{"the", "cafe", "the", "dog"}));
}

TEST(TextTokenizer, ShouldKnowMongoDBsLanguages) {
  TextLanguage language;
  for (const char* name : {"danish", "dutch", "english", "finnish", "french", "german", "hungarian",
                           "italian", "norwegian", "portuguese", "romanian", "russian", "spanish",
                           "swedish", "turkish", "none", "de", "es"}) {
    EXPECT_TRUE(TextLanguage::Find(name, &language)) << name;
  }
  EXPECT_TRUE(TextLanguage::Find("de", &language));
  EXPECT_EQ(language.name(), "german");
  for (const char* name : {"klingon", "English", "", "latin"}) {
    EXPECT_FALSE(TextLanguage::Find(name, &language)) << name;
  }
}

TEST(TextTokenizer, ShouldScoreTermsByFrequencyShareAndWeight) {
  const TextLanguage english = Language("english");
  std::map<std::string, double> scores;
  // The whole string is the term: 1 * 1 * (0.5 * 1/1 + 0.5) * 1.1.
  ScoreText("coffee", english, 1, &scores);
  EXPECT_DOUBLE_EQ(scores.at("coffe"), 1.0);  // "coffee" != stem "coffe": no boost
  scores.clear();
  ScoreText("tea", english, 1, &scores);
  EXPECT_DOUBLE_EQ(scores.at("tea"), 1.1);
  scores.clear();
  ScoreText("coffee shop", english, 1, &scores);
  EXPECT_DOUBLE_EQ(scores.at("coffe"), 0.75);
  EXPECT_DOUBLE_EQ(scores.at("shop"), 0.75);
  scores.clear();
  // A repeated term: freq 1 + 1/2, count 2 of 3 tokens; stop words are not tokens.
  ScoreText("tea and tea cake", english, 10, &scores);
  EXPECT_DOUBLE_EQ(scores.at("tea"), 10 * 1.5 * (0.5 * 2 / 3 + 0.5));
  EXPECT_DOUBLE_EQ(scores.at("cake"), 10 * 1.0 * (0.5 * 1 / 3 + 0.5));
  // Scores of several strings add up.
  ScoreText("cake", english, 2, &scores);
  EXPECT_DOUBLE_EQ(scores.at("cake"), 10 * (0.5 / 3 + 0.5) + 2 * 1.1);
}

}  // namespace
}  // namespace cairn::index
