// Text tokenizer: MongoDB's text-index (textIndexVersion 3) analysis of a string into terms, as
// its UnicodeFTSTokenizer does: split on delimiters (Unicode White_Space, Dash, Hyphen,
// Quotation_Mark, Terminal_Punctuation, Pattern_Syntax and STerm code points; the apostrophe is a
// delimiter in every language but English), case-fold, drop diacritics (version 3 is
// diacritic-insensitive), drop the language's stop words, and stem with the Snowball stemmer of
// the language. Also the language names a text index accepts (default_language,
// language_override values, $text's $language), and the term scoring of a document
// (MongoDB's FTSSpec::scoreDocument): what the text key generator and $text share.
// Immutable after construction; Tokenize/Stem are thread-safe (a stemmer per call).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::index {

// A language of text search: its canonical name ("english", "none"). "none" has no stop words
// and no stemming (terms are the case-folded words).
class TextLanguage {
 public:
  // The language named `name` (a Snowball name such as "english" or its ISO 639-1 code "en"), or
  // false for a language MongoDB's text search does not support.
  static bool Find(std::string_view name, TextLanguage* out);

  const std::string& name() const { return name_; }
  bool is_none() const { return name_ == "none"; }
  bool english() const { return name_ == "english"; }
  // Whether the case-folded, diacritic-free `word` is a stop word of this language.
  bool IsStopWord(std::string_view word) const;

 private:
  std::string name_ = "english";
};

struct TokenizeOptions {
  bool case_sensitive = false;       // keep the original case ($caseSensitive)
  bool diacritic_sensitive = false;  // keep diacritics ($diacriticSensitive)
  bool filter_stop_words = true;     // drop the language's stop words
  bool stem = true;                  // apply the language's stemmer
};

// The terms of `text`, in order, repeated as they occur. Invalid UTF-8 bytes are delimiters.
std::vector<std::string> TokenizeText(std::string_view text, const TextLanguage& language,
                                      const TokenizeOptions& options = {});

// The words of `text` split on delimiters, case and diacritics folded per `options`, without stop
// word filtering or stemming (phrase matching compares these).
std::vector<std::string> SplitTextWords(std::string_view text, const TextLanguage& language,
                                        bool case_sensitive, bool diacritic_sensitive);

// `text` case-folded (unless case_sensitive) and without diacritics (unless
// diacritic_sensitive), whole: how $text compares a phrase with a document's string (MongoDB's
// phrase matcher folds both sides, then looks for the phrase as a substring).
std::string FoldText(std::string_view text, const TextLanguage& language, bool case_sensitive,
                     bool diacritic_sensitive);

// MongoDB's term scores for one string of a field of weight `weight`, added into *scores: a term
// met n times among N terms of the string scores weight * (sum of 1/2^i, i < n) * (0.5 * n / N
// + 0.5) (FTSSpec::_scoreStringV2).
void ScoreText(std::string_view text, const TextLanguage& language, double weight,
               std::map<std::string, double>* scores);

}  // namespace cairn::index
