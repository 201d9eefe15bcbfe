// TextQuery: a $text search string parsed as MongoDB's FTSQuery (textIndexVersion 3) parses it —
// words are terms (stemmed, stop words dropped, in the query's language), "quoted text" is a
// phrase whose words are also terms, a '-' after whitespace (or at the start) negates the next
// word or phrase — and the document test that follows the index lookup (MongoDB's FTSMatcher):
// no negated term or phrase in the document's indexed strings, every phrase in one of them, and
// under $caseSensitive/$diacriticSensitive at least one positive term as written.
// Immutable after Parse; thread-safe.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "index/text_index_spec.h"
#include "index/text_tokenizer.h"

namespace cairn::index {

class TextQuery {
 public:
  static TextQuery Parse(std::string_view search, const TextLanguage& language, bool case_sensitive,
                         bool diacritic_sensitive);

  // The terms to look up in the index: case- and diacritic-folded, as the index keys them.
  const std::set<std::string>& terms_for_bounds() const { return terms_for_bounds_; }
  // The terms as the document test compares them (folded unless the query is sensitive).
  const std::set<std::string>& terms() const { return terms_; }
  const std::set<std::string>& negated_terms() const { return negated_terms_; }
  // Phrases as written between the quotes.
  const std::vector<std::string>& phrases() const { return phrases_; }
  const std::vector<std::string>& negated_phrases() const { return negated_phrases_; }
  bool case_sensitive() const { return case_sensitive_; }
  bool diacritic_sensitive() const { return diacritic_sensitive_; }
  const TextLanguage& language() const { return language_; }

  // Whether `doc` (found through the index by a positive term) satisfies the rest of the
  // query, reading its strings as `spec` indexes them. Errors: a bad language override.
  Result<bool> Matches(const TextIndexSpec& spec, BsonView doc) const;

  // explain's parsedTextQuery: {terms, negatedTerms, phrases, negatedPhrases}.
  void AppendExplain(bson_t* out) const;

 private:
  void AddTerms(std::string_view words, bool negated);

  TextLanguage language_;
  bool case_sensitive_ = false;
  bool diacritic_sensitive_ = false;
  std::set<std::string> terms_for_bounds_;
  std::set<std::string> terms_;
  std::set<std::string> negated_terms_;
  std::vector<std::string> phrases_;
  std::vector<std::string> negated_phrases_;
};

}  // namespace cairn::index
