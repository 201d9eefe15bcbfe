// TextQuery: the search string's parse (FTSQuery) and the per-document test (FTSMatcher).
#include "index/text_query.h"

#include <cctype>

namespace cairn::index {

namespace {

bool IsQuerySpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
// The single-character tokens of the search string (the tokenizer splits words further).
bool IsQueryDelimiter(char c) { return std::ispunct(static_cast<unsigned char>(c)) != 0; }

void AppendStrings(bson_t* out, const char* key, const auto& strings) {
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(out, key, &array);
  int i = 0;
  for (const std::string& s : strings) {
    std::string index = std::to_string(i++);
    AppendUtf8(&array, index, s);
  }
  bson_append_array_end(out, &array);
}

}  // namespace

TextQuery TextQuery::Parse(std::string_view search, const TextLanguage& language,
                           bool case_sensitive, bool diacritic_sensitive) {
  TextQuery query;
  query.language_ = language;
  query.case_sensitive_ = case_sensitive;
  query.diacritic_sensitive_ = diacritic_sensitive;
  bool in_negation = false;
  bool in_phrase = false;
  bool previous_space = true;  // the start counts as whitespace: "-word" negates
  size_t phrase_start = 0;
  size_t i = 0;
  while (i < search.size()) {
    const char c = search[i];
    if (IsQuerySpace(c)) {
      previous_space = true;
      ++i;
      continue;
    }
    if (IsQueryDelimiter(c)) {
      if (c == '-' && !in_phrase && previous_space) {
        in_negation = true;  // a phrase or a word outside phrases; never a word of a phrase
      } else if (c == '"') {
        if (in_phrase) {
          std::string phrase(search.substr(phrase_start, i - phrase_start));
          (in_negation ? query.negated_phrases_ : query.phrases_).push_back(std::move(phrase));
          in_negation = false;
          in_phrase = false;
        } else {
          in_phrase = true;
          phrase_start = i + 1;
        }
      }
      previous_space = false;
      ++i;
      continue;
    }
    size_t end = i;
    while (end < search.size() && !IsQuerySpace(search[end]) && !IsQueryDelimiter(search[end])) {
      ++end;
    }
    std::string_view word = search.substr(i, end - i);
    // The words of a negated phrase are neither terms nor negated terms.
    if (!(in_phrase && in_negation)) query.AddTerms(word, in_negation && !in_phrase);
    if (in_negation && !in_phrase) in_negation = false;
    previous_space = false;
    i = end;
  }
  return query;
}

void TextQuery::AddTerms(std::string_view words, bool negated) {
  std::set<std::string>& active = negated ? negated_terms_ : terms_;
  for (std::string& term : TokenizeText(words, language_)) {
    if (!negated) terms_for_bounds_.insert(term);
    if (!case_sensitive_ && !diacritic_sensitive_) active.insert(std::move(term));
  }
  if (!case_sensitive_ && !diacritic_sensitive_) return;
  TokenizeOptions options;
  options.case_sensitive = case_sensitive_;
  options.diacritic_sensitive = diacritic_sensitive_;
  for (std::string& term : TokenizeText(words, language_, options)) active.insert(std::move(term));
}

Result<bool> TextQuery::Matches(const TextIndexSpec& spec, BsonView doc) const {
  // Without sensitivity, the index lookup already proved a positive term is there.
  bool has_positive = !case_sensitive_ && !diacritic_sensitive_;
  bool has_negative = false;
  std::vector<bool> phrase_found(phrases_.size(), false);
  bool negated_phrase_found = false;
  TokenizeOptions options;
  options.case_sensitive = case_sensitive_;
  options.diacritic_sensitive = diacritic_sensitive_;
  const bool need_terms = !has_positive || !negated_terms_.empty();
  const bool need_phrases = !phrases_.empty() || !negated_phrases_.empty();
  Status status = spec.ForEachIndexedString(doc, [&](std::string_view text,
                                                     const TextLanguage& language, double) {
    if (has_negative || negated_phrase_found) return;  // already rejected
    if (need_terms) {
      for (const std::string& term : TokenizeText(text, language, options)) {
        if (!has_positive && terms_.count(term) != 0) has_positive = true;
        if (negated_terms_.count(term) != 0) has_negative = true;
      }
    }
    if (need_phrases) {
      std::string folded = FoldText(text, language, case_sensitive_, diacritic_sensitive_);
      for (size_t p = 0; p < phrases_.size(); ++p) {
        if (phrase_found[p]) continue;
        std::string phrase = FoldText(phrases_[p], language, case_sensitive_, diacritic_sensitive_);
        phrase_found[p] = folded.find(phrase) != std::string::npos;
      }
      for (const std::string& negated : negated_phrases_) {
        std::string phrase = FoldText(negated, language, case_sensitive_, diacritic_sensitive_);
        if (folded.find(phrase) != std::string::npos) negated_phrase_found = true;
      }
    }
  });
  CAIRN_RETURN_IF_ERROR(status);
  if (!has_positive || has_negative || negated_phrase_found) return false;
  for (bool found : phrase_found) {
    if (!found) return false;
  }
  return true;
}

void TextQuery::AppendExplain(bson_t* out) const {
  AppendStrings(out, "terms", terms_);
  AppendStrings(out, "negatedTerms", negated_terms_);
  AppendStrings(out, "phrases", phrases_);
  AppendStrings(out, "negatedPhrases", negated_phrases_);
}

}  // namespace cairn::index
