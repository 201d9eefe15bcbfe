// SortPattern (sort_pattern.h): parsing as MongoDB's SortPattern / FieldPath do, and the
// comparison of two documents. A document's sort value on one key is the smallest (ascending) or
// largest (descending) of the values its path produces, the way MongoDB's sort key generator
// (BtreeKeyGenerator) produces them: a missing path gives null, an empty array at the end of the
// path gives undefined (so it sorts before null), an array at the end gives its elements (arrays
// nested in it stay whole), and an array met mid-path gives what each element yields (null for an
// element that is not a document). Each key is reduced independently.
// Compare() walks the documents with bson_iter and allocates nothing.
#include "query/sort/sort_pattern.h"

#include <algorithm>
#include <string>

#include "common/bson_compare.h"

namespace cairn::query {

namespace {

Status ValidateFieldPath(std::string_view path) {
  if (path.empty()) {
    return Status(ErrorCode::kLocation40352, "FieldPath cannot be constructed with empty string");
  }
  if (path.back() == '.') {
    return Status(ErrorCode::kLocation40353, "FieldPath must not end with a '.'.");
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string_view part =
        path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty()) {
      return Status(ErrorCode::kLocation15998, "FieldPath field names may not be empty strings.");
    }
    if (part[0] == '$' && part != "$id" && part != "$ref" && part != "$db") {
      return Status(ErrorCode::kLocation16410,
                    "FieldPath field names may not start with '$'. Consider using $getField or "
                    "$setField.");
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return Status::OK();
}

// {$meta: ...} values: MongoDB's names; sorting by them (but textScore) needs metadata Cairn
// does not have yet.
constexpr std::string_view kMetaNames[] = {
    "textScore",
    "randVal",
    "searchScore",
    "searchHighlights",
    "geoNearDistance",
    "geoNearPoint",
    "recordId",
    "indexKey",
    "sortKey",
    "searchScoreDetails",
    "searchSequenceToken",
    "vectorSearchScore",
};

// Checks a {$meta: ...} sort value; *text_score true for {$meta: "textScore"}.
Status ParseMetaKey(const bson_iter_t* value, bool* text_score) {
  bson_iter_t it;
  BsonView meta = IterDocument(value);
  bool has_first = meta.Init(&it) && bson_iter_next(&it);
  if (!has_first || IterKey(&it) != "$meta") {
    return Status(ErrorCode::kLocation17312,
                  "$meta is the only expression supported by $sort right now");
  }
  if (meta.CountKeys() != 1) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot have additional keys in a $meta sort specification");
  }
  if (!BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kLocation17307, "$meta only supports string arguments");
  }
  std::string_view name = IterUtf8(&it);
  *text_score = name == "textScore";
  if (*text_score) return Status::OK();
  for (std::string_view known : kMetaNames) {
    if (known == name) {
      return Status(ErrorCode::kBadValue,
                    "sorting by {$meta: \"" + std::string(name) + "\"} is not supported yet");
    }
  }
  return Status(ErrorCode::kLocation17308, "Unsupported argument to $meta: " + std::string(name));
}

// Constant null and undefined values to stand for "missing" and "empty array".
struct Constants {
  BsonDoc doc = BsonDoc::FromJson(R"({"n": null, "u": {"$undefined": true}})");
  bson_iter_t null_value;
  bson_iter_t undefined_value;
  Constants() {
    doc.view().Find("n", &null_value);
    doc.view().Find("u", &undefined_value);
  }
};

const Constants& GetConstants() {
  static const Constants constants;
  return constants;
}

bool FindField(BsonView doc, std::string_view key, bson_iter_t* it) {
  if (!doc.Init(it)) return false;
  return bson_iter_find_w_len(it, key.data(), static_cast<int>(key.size()));
}

// The first component of a dotted path and what follows it (paths are split as they are walked,
// so comparing allocates nothing).
struct PathStep {
  std::string_view head;
  std::string_view rest;  // empty when head is the last component
  bool last;

  explicit PathStep(std::string_view path) {
    size_t dot = path.find('.');
    last = dot == std::string_view::npos;
    head = path.substr(0, dot);
    rest = last ? std::string_view() : path.substr(dot + 1);
  }
  bool is_index() const {
    if (head.empty()) return false;
    for (char c : head) {
      if (c < '0' || c > '9') return false;
    }
    return true;
  }
};

// Keeps the smallest (ascending) or largest (descending) value offered, strings compared under
// `collator` (so an array's sort key is its least/greatest element under the collation).
class Picker {
 public:
  Picker(bool descending, const StringComparator* collator)
      : descending_(descending), collator_(collator) {}
  void Offer(const bson_iter_t* value) {
    if (have_) {
      int c = CompareValues(value, &best_, collator_);
      if (descending_ ? c <= 0 : c >= 0) return;
    }
    best_ = *value;
    have_ = true;
  }
  const bson_iter_t* best() const { return &best_; }

 private:
  bool descending_;
  const StringComparator* collator_;
  bool have_ = false;
  bson_iter_t best_;
};

void WalkDocument(BsonView doc, std::string_view path, Picker* picker);

// An array met with `path` still to follow (empty: the array ends the path).
void WalkArray(const bson_iter_t* array, std::string_view path, bool at_end, Picker* picker) {
  const Constants& constants = GetConstants();
  bson_iter_t it;
  bool any = bson_iter_recurse(array, &it) && bson_iter_next(&it);
  if (at_end) {
    if (!any) {
      picker->Offer(&constants.undefined_value);
      return;
    }
    do picker->Offer(&it);
    while (bson_iter_next(&it));
    return;
  }
  if (!any) {
    picker->Offer(&constants.null_value);
    return;
  }
  // A positional component ("a.1.b") selects one element of the array.
  PathStep step(path);
  bson_iter_t positional;
  if (step.is_index() && FindField(IterDocument(array), step.head, &positional)) {
    WalkDocument(IterDocument(array), path, picker);
    return;
  }
  do {
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      WalkDocument(IterDocument(&it), path, picker);
    } else {
      picker->Offer(&constants.null_value);
    }
  } while (bson_iter_next(&it));
}

void WalkDocument(BsonView doc, std::string_view path, Picker* picker) {
  bson_iter_t it;
  while (true) {
    PathStep step(path);
    if (!FindField(doc, step.head, &it)) {
      picker->Offer(&GetConstants().null_value);
      return;
    }
    if (BSON_ITER_HOLDS_ARRAY(&it)) {
      WalkArray(&it, step.rest, step.last, picker);
      return;
    }
    if (step.last) {
      picker->Offer(&it);
      return;
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      picker->Offer(&GetConstants().null_value);
      return;
    }
    doc = IterDocument(&it);
    path = step.rest;
  }
}

}  // namespace

Result<SortPattern> SortPattern::Parse(BsonView spec,
                                       std::shared_ptr<const StringComparator> collator) {
  SortPattern pattern;
  pattern.collator_ = std::move(collator);
  bson_iter_t it;
  if (!spec.Init(&it)) return pattern;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bool text_score = false;
      CAIRN_RETURN_IF_ERROR(ParseMetaKey(&it, &text_score));
      if (text_score) {
        pattern.keys_.push_back(Key{std::string(key), true, true});
        continue;
      }
    }
    if (!IterIsNumber(&it)) {
      return Status(ErrorCode::kLocation15974,
                    "Illegal key in $sort specification: " + std::string(key) + ": " +
                        ValueToShellString(&it));
    }
    double order = 0;
    IterAsDouble(&it, &order);
    if (order != 1 && order != -1) {
      return Status(ErrorCode::kLocation15975,
                    "$sort key ordering must be 1 (for ascending) or -1 (for descending)");
    }
    CAIRN_RETURN_IF_ERROR(ValidateFieldPath(key));
    pattern.keys_.push_back(Key{std::string(key), order < 0});
  }
  return pattern;
}

bool SortPattern::needs_text_score() const {
  return std::any_of(keys_.begin(), keys_.end(), [](const Key& key) { return key.text_score; });
}

int SortPattern::Compare(BsonView a, BsonView b) const {
  for (const Key& key : keys_) {
    Picker pa(key.descending, collator_.get()), pb(key.descending, collator_.get());
    const std::string_view path = key.text_score ? kTextScoreField : std::string_view(key.path);
    WalkDocument(a, path, &pa);
    WalkDocument(b, path, &pb);
    int c = CompareValues(pa.best(), pb.best(), collator_.get());
    if (c != 0) return key.descending ? -c : c;
  }
  return 0;
}

void SortPattern::AppendWithTextScore(BsonView doc, double score, bson_t* out) {
  bson_t whole = doc.AsBson();
  bson_concat(out, &whole);
  bson_append_double(out, kTextScoreField.data(), static_cast<int>(kTextScoreField.size()), score);
}

void SortPattern::AppendWithoutTextScore(BsonView doc, bson_t* out) {
  bson_iter_t it;
  if (!doc.Init(&it)) return;
  while (bson_iter_next(&it)) {
    if (IterKey(&it) != kTextScoreField) AppendIter(out, IterKey(&it), &it);
  }
}

}  // namespace cairn::query
