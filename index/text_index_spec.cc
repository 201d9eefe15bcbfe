// TextIndexSpec: fixSpec's normalisation and checks, the stored spec's parse, the document walk
// that scores every weighted string, and the text key generator.
#include "index/text_index_spec.h"

#include <algorithm>
#include <cmath>

#include "index/key_string.h"

namespace cairn::index {

namespace {

constexpr std::string_view kWildcard = "$**";

bool IsReservedTextField(std::string_view name) { return name == "_fts" || name == "_ftsx"; }

void AppendWeight(bson_t* out, const std::string& name, double weight) {
  const int length = static_cast<int>(name.size());
  if (weight == std::floor(weight) && std::fabs(weight) < 2147483647.0) {
    bson_append_int32(out, name.data(), length, static_cast<int32_t>(weight));
  } else {
    bson_append_double(out, name.data(), length, weight);
  }
}

Status CheckWeightPath(std::string_view path) {
  if (path.empty()) return Status(ErrorCode::kLocation17294, "weight cannot be on an empty field");
  size_t start = 0;
  for (;;) {
    size_t dot = path.find('.', start);
    std::string_view part = path.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.empty()) {
      return Status(ErrorCode::kLocation17291, "weight cannot have empty path component");
    }
    if (part.front() == '$') {
      return Status(ErrorCode::kLocation17292, "weight cannot have path component with $ prefix");
    }
    if (dot == std::string_view::npos) return Status::OK();
    start = dot + 1;
  }
}

bool ValidLanguageOverride(std::string_view name) {
  return !name.empty() && name.front() != '$' && name.find('.') == std::string_view::npos;
}

}  // namespace

Result<BsonDoc> NormalizeTextIndexSpec(BsonView spec) {
  bson_iter_t it;
  if (!spec.Find("key", &it) || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return Status(ErrorCode::kCannotCreateIndex, "text index spec needs a key document");
  }
  BsonView key = IterDocument(&it);
  std::map<std::string, double> weights;
  // Key fields: [scalar fields] text fields [scalar fields]; the text fields must be adjacent.
  enum class Phase { kBefore, kText, kAfter } phase = Phase::kBefore;
  bool compound = false;
  bool after_fts = false;  // the previous field was _fts: "text"
  bson_iter_t field;
  key.Init(&field);
  while (bson_iter_next(&field)) {
    std::string name(IterKey(&field));
    const bool text = BSON_ITER_HOLDS_UTF8(&field) && IterUtf8(&field) == "text";
    // An already normalised key ({_fts: "text", _ftsx: 1}) keeps the weights option's fields.
    if (name == "_fts") {
      if (!text) return Status(ErrorCode::kLocation17271, "expecting _fts:\"text\"");
      if (phase == Phase::kAfter) {
        return Status(ErrorCode::kLocation17389, "'text' fields in index must all be adjacent");
      }
      phase = Phase::kText;
      after_fts = true;
      continue;
    }
    if (name == "_ftsx" && after_fts) {
      if (!BSON_ITER_HOLDS_NUMBER(&field) || bson_iter_as_int64(&field) != 1) {
        return Status(ErrorCode::kLocation17272, "expecting _ftsx:1");
      }
      after_fts = false;
      continue;
    }
    after_fts = false;
    if (text) {
      if (phase == Phase::kAfter) {
        return Status(ErrorCode::kLocation17389, "'text' fields in index must all be adjacent");
      }
      phase = Phase::kText;
      weights[name] = 1;
      continue;
    }
    if (IsReservedTextField(name)) {
      return Status(ErrorCode::kLocation17289,
                    "text index with reserved fields _fts/_ftsx not allowed");
    }
    int64_t direction = 0;
    if (!BSON_ITER_HOLDS_NUMBER(&field) ||
        ((direction = bson_iter_as_int64(&field)) != 1 && direction != -1)) {
      return Status(ErrorCode::kLocation17273,
                    "expected value 1 or -1 for non-text key in compound index");
    }
    if (phase != Phase::kBefore) phase = Phase::kAfter;
    compound = true;
  }
  if (compound) {
    return Status(ErrorCode::kCannotCreateIndex,
                  "compound text indexes (scalar fields before or after the text fields) are not "
                  "supported");
  }

  if (spec.Find("weights", &it)) {
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_iter_t weight;
      IterDocument(&it).Init(&weight);
      while (bson_iter_next(&weight)) {
        if (!BSON_ITER_HOLDS_NUMBER(&weight)) {
          return Status(ErrorCode::kLocation17283, "weight for text index needs numeric type");
        }
        weights[std::string(IterKey(&weight))] = bson_iter_as_double(&weight);
      }
    } else if (BSON_ITER_HOLDS_UTF8(&it) && IterUtf8(&it) == kWildcard) {
      weights[std::string(kWildcard)] = 1;
    } else {
      return Status(ErrorCode::kLocation17284, "text index option 'weights' must be an object");
    }
  }
  for (const auto& [path, weight] : weights) {
    if (!(weight > 0 && weight < kMaxTextWordWeight)) {
      return Status(ErrorCode::kLocation16674, "score for word too high");
    }
    if (path != kWildcard) CAIRN_RETURN_IF_ERROR(CheckWeightPath(path));
  }

  std::string default_language = "english";
  if (spec.Find("default_language", &it)) {
    if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return Status(ErrorCode::kLocation17263, "default_language needs a string type");
    }
    default_language = std::string(IterUtf8(&it));
  }
  TextLanguage language;
  if (!TextLanguage::Find(default_language, &language)) {
    return Status(ErrorCode::kLocation17264, "default_language is not valid");
  }
  std::string language_override = "language";
  if (spec.Find("language_override", &it)) {
    if (!BSON_ITER_HOLDS_UTF8(&it) || !ValidLanguageOverride(IterUtf8(&it))) {
      return Status(ErrorCode::kLocation17136, "language_override is not valid");
    }
    language_override = std::string(IterUtf8(&it));
  }

  // The spec's own order, its text options replaced in place and the missing ones appended.
  BsonDoc out;
  bool wrote_weights = false, wrote_language = false, wrote_override = false;
  auto append_weights = [&] {
    bson_t doc;
    BSON_APPEND_DOCUMENT_BEGIN(out.get(), "weights", &doc);
    for (const auto& [path, weight] : weights) AppendWeight(&doc, path, weight);
    bson_append_document_end(out.get(), &doc);
    wrote_weights = true;
  };
  spec.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    if (name == "key") {
      bson_t normalized;
      BSON_APPEND_DOCUMENT_BEGIN(out.get(), "key", &normalized);
      BSON_APPEND_UTF8(&normalized, "_fts", "text");
      BSON_APPEND_INT32(&normalized, "_ftsx", 1);
      bson_append_document_end(out.get(), &normalized);
    } else if (name == "weights") {
      append_weights();
    } else if (name == "default_language") {
      AppendUtf8(out.get(), "default_language", default_language);
      wrote_language = true;
    } else if (name == "language_override") {
      AppendUtf8(out.get(), "language_override", language_override);
      wrote_override = true;
    } else if (name != "textIndexVersion") {
      AppendIter(out.get(), name, &it);
    }
  }
  if (!wrote_weights) append_weights();
  if (!wrote_language) AppendUtf8(out.get(), "default_language", default_language);
  if (!wrote_override) AppendUtf8(out.get(), "language_override", language_override);
  BSON_APPEND_INT32(out.get(), "textIndexVersion", kTextIndexVersion);
  return out;
}

Result<TextIndexSpec> TextIndexSpec::Parse(BsonView spec) {
  TextIndexSpec out;
  bson_iter_t it;
  if (!spec.Find("weights", &it) || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return Status(ErrorCode::kCannotCreateIndex, "found invalid spec for text index");
  }
  bson_iter_t weight;
  IterDocument(&it).Init(&weight);
  while (bson_iter_next(&weight)) {
    if (IterKey(&weight) == kWildcard) {
      out.wildcard_ = true;
    } else {
      out.weights_[std::string(IterKey(&weight))] = bson_iter_as_double(&weight);
    }
  }
  if (spec.Find("default_language", &it) && BSON_ITER_HOLDS_UTF8(&it) &&
      !TextLanguage::Find(IterUtf8(&it), &out.default_language_)) {
    return Status(ErrorCode::kCannotCreateIndex, "found invalid spec for text index");
  }
  if (spec.Find("language_override", &it) && BSON_ITER_HOLDS_UTF8(&it)) {
    out.language_override_ = std::string(IterUtf8(&it));
  }
  return out;
}

bool TextIndexSpec::Weighted(std::string_view path, double* weight) const {
  auto found = weights_.find(std::string(path));
  if (found != weights_.end()) {
    *weight = found->second;
    return true;
  }
  if (wildcard_) {
    *weight = 1;
    return true;
  }
  return false;
}

bool TextIndexSpec::LeadsToWeighted(std::string_view path) const {
  if (wildcard_) return true;
  for (auto it = weights_.lower_bound(std::string(path)); it != weights_.end(); ++it) {
    std::string_view weighted = it->first;
    if (weighted.substr(0, path.size()) != path) break;  // past the paths under `path`
    if (weighted.size() > path.size() && weighted[path.size()] == '.') return true;
  }
  return false;
}

Result<TextLanguage> TextIndexSpec::LanguageOf(BsonView object,
                                               const TextLanguage& inherited) const {
  bson_iter_t it;
  if (!object.Find(language_override_, &it)) return inherited;
  if (!BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kLocation17261,
                  "found language override field in document with non-string type");
  }
  TextLanguage language;
  if (!TextLanguage::Find(IterUtf8(&it), &language)) {
    return Status(ErrorCode::kLocation17262,
                  "language override unsupported: " + std::string(IterUtf8(&it)));
  }
  return language;
}

Status TextIndexSpec::ScoreDocument(BsonView doc, std::map<std::string, double>* scores) const {
  return ForEachIndexedString(
      doc, [scores](std::string_view text, const TextLanguage& language, double weight) {
        ScoreText(text, language, weight, scores);
      });
}

Status TextIndexSpec::ForEachIndexedString(BsonView doc, const IndexedStringVisitor& visit) const {
  CAIRN_ASSIGN_OR_RETURN(TextLanguage language, LanguageOf(doc, default_language_));
  return VisitObject(doc, std::string(), language, visit);
}

// VisitObject and VisitValue recurse once per level of the document: the documents they read are
// stored ones (at most 180 levels, MaxStorageDepth; the writes refuse deeper), so the depth is
// bounded, and so is the O(depth^2) cost of the dotted paths they build.
Status TextIndexSpec::VisitObject(BsonView object, const std::string& prefix,
                                  const TextLanguage& language,
                                  const IndexedStringVisitor& visit) const {
  bson_iter_t it;
  if (!object.Init(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    if (name == language_override_) continue;  // names the language; not text to index
    std::string path = prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
    CAIRN_RETURN_IF_ERROR(VisitValue(&it, path, language, visit));
  }
  return Status::OK();
}

Status TextIndexSpec::VisitValue(const bson_iter_t* value, const std::string& path,
                                 const TextLanguage& language,
                                 const IndexedStringVisitor& visit) const {
  double weight = 0;
  switch (bson_iter_type(value)) {
    case BSON_TYPE_UTF8:
      if (Weighted(path, &weight)) visit(IterUtf8(value), language, weight);
      return Status::OK();
    case BSON_TYPE_DOCUMENT: {
      if (!LeadsToWeighted(path)) return Status::OK();
      BsonView sub = IterDocument(value);
      // A sub-document's own language_override field sets the language of its strings.
      CAIRN_ASSIGN_OR_RETURN(TextLanguage sub_language, LanguageOf(sub, language));
      return VisitObject(sub, path, sub_language, visit);
    }
    case BSON_TYPE_ARRAY: {
      // Elements keep the array's path (no index component), as dotted paths do.
      bson_iter_t element;
      IterDocument(value).Init(&element);
      while (bson_iter_next(&element)) {
        if (BSON_ITER_HOLDS_UTF8(&element) || BSON_ITER_HOLDS_DOCUMENT(&element)) {
          CAIRN_RETURN_IF_ERROR(VisitValue(&element, path, language, visit));
        }
      }
      return Status::OK();
    }
    default:
      return Status::OK();
  }
}

namespace {

class TextKeyGenerator : public KeyGenerator {
 public:
  explicit TextKeyGenerator(TextIndexSpec spec) : spec_(std::move(spec)) {}

  Status GetKeys(BsonView doc, KeySet* keys, MultikeyPaths* multikey) const override {
    keys->clear();
    std::map<std::string, double> scores;
    CAIRN_RETURN_IF_ERROR(spec_.ScoreDocument(doc, &scores));
    for (const auto& [term, score] : scores) {
      // {"": term, "": score} encoded as the two key fields.
      BsonDoc fields;
      AppendUtf8(fields.get(), "t", term);
      BSON_APPEND_DOUBLE(fields.get(), "s", score);
      std::string key;
      bson_iter_t it;
      fields.view().Init(&it);
      while (bson_iter_next(&it)) AppendValue(&key, &it);
      keys->push_back(std::move(key));
    }
    std::sort(keys->begin(), keys->end());
    keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
    (void)multikey;  // a text index holds several keys per document by design, never "multikey"
    return Status::OK();
  }

 private:
  TextIndexSpec spec_;
};

}  // namespace

Result<std::unique_ptr<KeyGenerator>> MakeTextKeyGenerator(BsonView spec) {
  CAIRN_ASSIGN_OR_RETURN(TextIndexSpec parsed, TextIndexSpec::Parse(spec));
  return std::unique_ptr<KeyGenerator>(new TextKeyGenerator(std::move(parsed)));
}

}  // namespace cairn::index
