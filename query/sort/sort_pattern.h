// SortPattern: a sort specification ({a: 1, "b.c": -1}) and the comparison of two documents by
// it, as MongoDB sorts: several keys; missing sorts as null; an array sorts by its smallest
// element ascending or its largest descending; values in the canonical BSON order, strings
// under the query's collation when it has one. Immutable after Parse; Compare() is thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "common/string_comparator.h"

namespace cairn::query {

class SortPattern {
 public:
  // Errors as MongoDB: a value other than 1/-1 (or {$meta: ...}) is BadValue 15975 style
  // "$sort key ordering must be 1 (for ascending) or -1 (for descending)"; empty field names
  // are rejected. `collator` (the query's collation; nullptr: binary) compares the strings.
  static Result<SortPattern> Parse(BsonView spec,
                                   std::shared_ptr<const StringComparator> collator = nullptr);

  bool empty() const { return keys_.empty(); }
  // The collation strings sort by (nullptr: binary): an index with binary keys can only supply
  // this order when it is nullptr.
  const StringComparator* collator() const { return collator_.get(); }

  // <0 when a sorts before b.
  int Compare(BsonView a, BsonView b) const;

  struct Key {
    std::string path;  // dotted; for a textScore key, the field name the user gave
    bool descending = false;
    // {path: {$meta: "textScore"}}: by the $text score, highest first. Documents carry the score
    // in kTextScoreField while they are sorted (AppendWithTextScore / AppendWithoutTextScore).
    bool text_score = false;
  };
  const std::vector<Key>& keys() const { return keys_; }
  // True when a key sorts by {$meta: "textScore"} (after a $text search, in find or a pipeline).
  bool needs_text_score() const;

  // The field that holds a document's textScore while a textScore sort orders it: a name no
  // stored document uses (field names beginning with '$' are reserved by MongoDB).
  static constexpr std::string_view kTextScoreField = "$__textScore";
  // Appends `doc` with its textScore in kTextScoreField (before a textScore sort), and `doc`
  // without that field (after it): what find's sort and the pipeline's $sort share.
  static void AppendWithTextScore(BsonView doc, double score, bson_t* out);
  static void AppendWithoutTextScore(BsonView doc, bson_t* out);

 private:
  std::vector<Key> keys_;
  std::shared_ptr<const StringComparator> collator_;
};

}  // namespace cairn::query
