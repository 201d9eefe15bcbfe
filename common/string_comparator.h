// StringComparator: how a query compares strings when it has a collation. common/ knows only this
// interface (CompareValues/CompareDocuments take one, nullptr meaning MongoDB's "simple" binary
// order); the ICU implementation lives in query/collation/collator.h, so common/ does not depend
// on ICU. Implementations are immutable and must be safe to call from several threads at once.
#pragma once

#include <string>
#include <string_view>

namespace cairn {

class StringComparator {
 public:
  virtual ~StringComparator() = default;

  // <0, 0, >0 as UTF-8 string a sorts before, equal to, after b.
  virtual int Compare(std::string_view a, std::string_view b) const = 0;

  // Appends to *out the comparison key of `s`: bytes whose memcmp order is Compare's order, so
  // strings equal under the collation have equal keys (for hashing and deduplication).
  virtual void AppendComparisonKey(std::string_view s, std::string* out) const = 0;
};

}  // namespace cairn
