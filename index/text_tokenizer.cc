// Text tokenizer: delimiters and folding through ICU's character properties, stemming through
// libstemmer (Snowball), MongoDB's English stop word list, and the per-string term scores.
#include "index/text_tokenizer.h"

#include <libstemmer.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <memory>
#include <unordered_map>

namespace cairn::index {

namespace {

// MongoDB's text search languages (textIndexVersion 3): Snowball name and ISO 639-1 code.
struct LanguageName {
  std::string_view name;
  std::string_view code;
};
constexpr LanguageName kLanguages[] = {
    {"danish", "da"},    {"dutch", "nl"},      {"english", "en"},   {"finnish", "fi"},
    {"french", "fr"},    {"german", "de"},     {"hungarian", "hu"}, {"italian", "it"},
    {"norwegian", "nb"}, {"portuguese", "pt"}, {"romanian", "ro"},  {"russian", "ru"},
    {"spanish", "es"},   {"swedish", "sv"},    {"turkish", "tr"},   {"none", "none"},
};

// MongoDB's English stop words (src/mongo/db/fts/stop_words_english.txt), sorted for lookup.
constexpr std::array<std::string_view, 174> kEnglishStopWords = {
    "a",          "about",   "above",     "after",   "again",    "against",    "all",    "am",
    "an",         "and",     "any",       "are",     "aren't",   "as",         "at",     "be",
    "because",    "been",    "before",    "being",   "below",    "between",    "both",   "but",
    "by",         "can't",   "cannot",    "could",   "couldn't", "did",        "didn't", "do",
    "does",       "doesn't", "doing",     "don't",   "down",     "during",     "each",   "few",
    "for",        "from",    "further",   "had",     "hadn't",   "has",        "hasn't", "have",
    "haven't",    "having",  "he",        "he'd",    "he'll",    "he's",       "her",    "here",
    "here's",     "hers",    "herself",   "him",     "himself",  "his",        "how",    "how's",
    "i",          "i'd",     "i'll",      "i'm",     "i've",     "if",         "in",     "into",
    "is",         "isn't",   "it",        "it's",    "its",      "itself",     "let's",  "me",
    "more",       "most",    "mustn't",   "my",      "myself",   "no",         "nor",    "not",
    "of",         "off",     "on",        "once",    "only",     "or",         "other",  "ought",
    "our",        "ours",    "ourselves", "out",     "over",     "own",        "same",   "shan't",
    "she",        "she'd",   "she'll",    "she's",   "should",   "shouldn't",  "so",     "some",
    "such",       "than",    "that",      "that's",  "the",      "their",      "theirs", "them",
    "themselves", "then",    "there",     "there's", "these",    "they",       "they'd", "they'll",
    "they're",    "they've", "this",      "those",   "through",  "to",         "too",    "under",
    "until",      "up",      "very",      "was",     "wasn't",   "we",         "we'd",   "we'll",
    "we're",      "we've",   "were",      "weren't", "what",     "what's",     "when",   "when's",
    "where",      "where's", "which",     "while",   "who",      "who's",      "whom",   "why",
    "why's",      "with",    "won't",     "would",   "wouldn't", "you",        "you'd",  "you'll",
    "you're",     "you've",  "your",      "yours",   "yourself", "yourselves",
};

// MongoDB's delimiter set: code points with any of these Unicode properties.
bool IsDelimiter(UChar32 c, bool english) {
  if (c == '\'') return !english;
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return false;
  return u_hasBinaryProperty(c, UCHAR_WHITE_SPACE) || u_hasBinaryProperty(c, UCHAR_DASH) ||
         u_hasBinaryProperty(c, UCHAR_HYPHEN) || u_hasBinaryProperty(c, UCHAR_QUOTATION_MARK) ||
         u_hasBinaryProperty(c, UCHAR_TERMINAL_PUNCTUATION) ||
         u_hasBinaryProperty(c, UCHAR_PATTERN_SYNTAX) || u_hasBinaryProperty(c, UCHAR_S_TERM);
}

void AppendUtf8(UChar32 c, std::string* out) {
  char buf[U8_MAX_LENGTH];
  int32_t n = 0;
  UBool error = false;
  U8_APPEND(reinterpret_cast<uint8_t*>(buf), n, U8_MAX_LENGTH, c, error);
  if (!error) out->append(buf, static_cast<size_t>(n));
}

// Simple (code point by code point) case folding, Turkish dotted/dotless i aware.
std::string FoldCase(std::string_view word, bool turkish) {
  std::string out;
  out.reserve(word.size());
  const uint32_t options = turkish ? U_FOLD_CASE_EXCLUDE_SPECIAL_I : U_FOLD_CASE_DEFAULT;
  int32_t i = 0;
  const int32_t length = static_cast<int32_t>(word.size());
  const auto* bytes = reinterpret_cast<const uint8_t*>(word.data());
  while (i < length) {
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    if (c < 0) continue;
    AppendUtf8(u_foldCase(c, options), &out);
  }
  return out;
}

// Removes diacritics: each code point decomposed (NFD), its Diacritic marks dropped.
std::string StripDiacritics(std::string_view word) {
  bool ascii = std::all_of(word.begin(), word.end(), [](char ch) { return (ch & 0x80) == 0; });
  if (ascii) return std::string(word);  // no ASCII letter or digit carries a diacritic
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(status);
  if (U_FAILURE(status)) return std::string(word);
  icu::UnicodeString decomposed =
      nfd->normalize(icu::UnicodeString::fromUTF8(
                         icu::StringPiece(word.data(), static_cast<int32_t>(word.size()))),
                     status);
  if (U_FAILURE(status)) return std::string(word);
  std::string out;
  for (int32_t i = 0; i < decomposed.length();) {
    UChar32 c = decomposed.char32At(i);
    i += U16_LENGTH(c);
    if (u_hasBinaryProperty(c, UCHAR_DIACRITIC) && u_getCombiningClass(c) != 0) continue;
    if (u_hasBinaryProperty(c, UCHAR_DIACRITIC) && u_charType(c) == U_NON_SPACING_MARK) continue;
    AppendUtf8(c, &out);
  }
  return out;
}

// A Snowball stemmer per language and thread (sb_stemmer is not thread-safe).
class Stemmers {
 public:
  ~Stemmers() {
    for (auto& [name, stemmer] : stemmers_) {
      if (stemmer != nullptr) sb_stemmer_delete(stemmer);
    }
  }
  std::string Stem(const std::string& language, std::string_view word) {
    auto [it, inserted] = stemmers_.try_emplace(language, nullptr);
    if (inserted) it->second = sb_stemmer_new(language.c_str(), "UTF_8");
    if (it->second == nullptr) return std::string(word);
    const sb_symbol* stemmed = sb_stemmer_stem(
        it->second, reinterpret_cast<const sb_symbol*>(word.data()), static_cast<int>(word.size()));
    if (stemmed == nullptr) return std::string(word);
    return std::string(reinterpret_cast<const char*>(stemmed),
                       static_cast<size_t>(sb_stemmer_length(it->second)));
  }

 private:
  std::unordered_map<std::string, sb_stemmer*> stemmers_;
};

std::string Stem(const TextLanguage& language, std::string_view word) {
  if (language.is_none()) return std::string(word);
  thread_local Stemmers stemmers;
  return stemmers.Stem(language.name(), word);
}

// Calls fn(word) for each run of non-delimiter code points of `text` (raw bytes, unfolded).
template <typename Fn>
void ForEachWord(std::string_view text, bool english, Fn fn) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const int32_t length = static_cast<int32_t>(text.size());
  int32_t i = 0;
  int32_t start = -1;
  while (i < length) {
    int32_t at = i;
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    bool delimiter = c < 0 || IsDelimiter(c, english);
    if (delimiter) {
      if (start >= 0) fn(text.substr(start, at - start));
      start = -1;
    } else if (start < 0) {
      start = at;
    }
  }
  if (start >= 0) fn(text.substr(start));
}

}  // namespace

bool TextLanguage::Find(std::string_view name, TextLanguage* out) {
  for (const LanguageName& language : kLanguages) {
    if (language.name == name || language.code == name) {
      out->name_ = std::string(language.name);
      return true;
    }
  }
  return false;
}

bool TextLanguage::IsStopWord(std::string_view word) const {
  if (!english()) return false;  // only English's list is carried today
  return std::binary_search(kEnglishStopWords.begin(), kEnglishStopWords.end(), word);
}

std::vector<std::string> TokenizeText(std::string_view text, const TextLanguage& language,
                                      const TokenizeOptions& options) {
  std::vector<std::string> terms;
  const bool turkish = language.name() == "turkish";
  ForEachWord(text, language.english(), [&](std::string_view raw) {
    // Stop words are matched lower-cased but with their diacritics, as MongoDB does.
    std::string word = FoldCase(raw, turkish);
    if (options.filter_stop_words && language.IsStopWord(word)) return;
    if (options.case_sensitive) word = std::string(raw);
    // The stemmer sees the diacritics; they go after it.
    if (options.stem) word = Stem(language, word);
    if (!options.diacritic_sensitive) word = StripDiacritics(word);
    terms.push_back(std::move(word));
  });
  return terms;
}

std::vector<std::string> SplitTextWords(std::string_view text, const TextLanguage& language,
                                        bool case_sensitive, bool diacritic_sensitive) {
  TokenizeOptions options;
  options.case_sensitive = case_sensitive;
  options.diacritic_sensitive = diacritic_sensitive;
  options.filter_stop_words = false;
  options.stem = false;
  return TokenizeText(text, language, options);
}

std::string FoldText(std::string_view text, const TextLanguage& language, bool case_sensitive,
                     bool diacritic_sensitive) {
  std::string out =
      case_sensitive ? std::string(text) : FoldCase(text, language.name() == "turkish");
  return diacritic_sensitive ? out : StripDiacritics(out);
}

void ScoreText(std::string_view text, const TextLanguage& language, double weight,
               std::map<std::string, double>* scores) {
  struct TermStats {
    double freq = 0;   // sum of 1/2^i over the term's occurrences
    double count = 0;  // occurrences
    double exp = 0;    // 2^(occurrences - 1)
  };
  std::map<std::string, TermStats> terms;
  unsigned num_tokens = 0;
  for (std::string& term : TokenizeText(text, language)) {
    TermStats& stats = terms[std::move(term)];
    stats.exp = stats.exp == 0 ? 1 : stats.exp * 2;
    stats.count += 1;
    stats.freq += 1 / stats.exp;
    ++num_tokens;
  }
  for (const auto& [term, stats] : terms) {
    // A term's share of the string weighs in: half fixed, half its frequency.
    double coeff = (0.5 * stats.count / num_tokens) + 0.5;
    // A string that is exactly the term (ignoring case) gets a small boost.
    double adjustment = 1;
    if (text.size() == term.size() &&
        std::equal(text.begin(), text.end(), term.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        })) {
      adjustment += 0.1;
    }
    (*scores)[term] += weight * stats.freq * coeff * adjustment;
  }
}

}  // namespace cairn::index
