// SortPattern: a sort specification ({a: 1, "b.c": -1}) and the comparison of two documents by
// it, as MongoDB sorts: several keys; missing sorts as null; an array sorts by its smallest
// element ascending or its largest descending; values in the canonical BSON order.
// Immutable after Parse; Compare() is thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

class SortPattern {
 public:
  // Errors as MongoDB: a value other than 1/-1 (or {$meta: ...}) is BadValue 15975 style
  // "$sort key ordering must be 1 (for ascending) or -1 (for descending)"; empty field names
  // are rejected.
  static Result<SortPattern> Parse(BsonView spec);

  bool empty() const { return keys_.empty(); }

  // <0 when a sorts before b.
  int Compare(BsonView a, BsonView b) const;

  struct Key {
    std::string path;  // dotted
    bool descending = false;
  };
  const std::vector<Key>& keys() const { return keys_; }

 private:
  std::vector<Key> keys_;
};

}  // namespace cairn::query
