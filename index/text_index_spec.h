// TextIndexSpec: a text index as MongoDB 7.0 defines it (FTSSpec, textIndexVersion 3): the
// normalisation createIndexes applies to a user's spec ({title: "text", body: "text"} becomes
// key {_fts: "text", _ftsx: 1} with weights {body: 1, title: 1}, default_language "english",
// language_override "language", textIndexVersion 3, with MongoDB's error codes), the parsed form
// of a stored spec, and the scoring of a document: every string (or array of strings) under a
// weighted field (every string field for "$**"), tokenised in the language its nearest
// language_override field names, terms summed across fields. Compound text indexes (scalar
// fields before or after the text fields) are refused for now. Immutable; thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "common/bson_doc.h"
#include "common/status.h"
#include "index/key_generator.h"
#include "index/text_tokenizer.h"

namespace cairn::index {

// Weights are limited to (0, 100000) as MongoDB's MAX_WORD_WEIGHT.
inline constexpr double kMaxTextWordWeight = 100000;
inline constexpr int kTextIndexVersion = 3;

// MongoDB's FTSSpec::fixSpec: the spec to store for a user's text index spec (its key has at
// least one "text" field). Errors: Location17273 "expected value 1 or -1 for non-text key in
// compound index", Location17389 "'text' fields in index must all be adjacent", Location17289
// reserved _fts/_ftsx, Location17283/17284 weights, Location16674 "score for word too high",
// Location17294/17291/17292 weight paths, Location17263/17264 default_language, Location17136
// language_override; CannotCreateIndex for a compound text index (not supported yet).
Result<BsonDoc> NormalizeTextIndexSpec(BsonView spec);

class TextIndexSpec {
 public:
  // From a normalised (stored) spec.
  static Result<TextIndexSpec> Parse(BsonView spec);

  // Per weighted path, its weight ("$**" not included: see wildcard()).
  const std::map<std::string, double>& weights() const { return weights_; }
  bool wildcard() const { return wildcard_; }
  const TextLanguage& default_language() const { return default_language_; }
  const std::string& language_override() const { return language_override_; }

  // The document's term scores (FTSSpec::scoreDocument). Location17261 "found language override
  // field in document with non-string type", Location17262 "language override unsupported: xx".
  Status ScoreDocument(BsonView doc, std::map<std::string, double>* scores) const;

  // Calls visit(text, language, weight) for every string the index reads in `doc`, with the
  // language its nearest language_override names: what scoring and $text's document checks
  // (phrases, negations) share. Errors as ScoreDocument.
  using IndexedStringVisitor =
      std::function<void(std::string_view text, const TextLanguage& language, double weight)>;
  Status ForEachIndexedString(BsonView doc, const IndexedStringVisitor& visit) const;

 private:
  // Whether `path` is weighted or leads to a weighted path (worth descending into).
  bool Weighted(std::string_view path, double* weight) const;
  bool LeadsToWeighted(std::string_view path) const;
  Status VisitObject(BsonView object, const std::string& prefix, const TextLanguage& language,
                     const IndexedStringVisitor& visit) const;
  Status VisitValue(const bson_iter_t* value, const std::string& path, const TextLanguage& language,
                    const IndexedStringVisitor& visit) const;
  Result<TextLanguage> LanguageOf(BsonView object, const TextLanguage& inherited) const;

  std::map<std::string, double> weights_;
  bool wildcard_ = false;
  TextLanguage default_language_;
  std::string language_override_ = "language";
};

// The text key generator: one key per distinct term of a document, the term (a string) followed
// by its score (a double), as MongoDB's FTSIndexFormat::getKeys. A document without terms has no
// keys. `spec` must be a normalised text index spec.
Result<std::unique_ptr<KeyGenerator>> MakeTextKeyGenerator(BsonView spec);

}  // namespace cairn::index
