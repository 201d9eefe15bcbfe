// Index bounds: the intervals of values an index scan visits for each key field, derived from one
// filter predicate at a time with MongoDB's rules (type-bracketed ranges: {$gt: 5} is (5, inf.0],
// {$gt: "a"} is ("a", {}); null equality also visits undefined; an array equality visits the array
// and its first element; $in is the union of its points; a prefix regex a string range), their
// union and intersection, MongoDB's interval strings for explain ("[1, 5)"), and the key byte
// ranges and per-key checks that make an index scan of those bounds (IndexScanRanges).
// Bounds only narrow the candidates: the matcher still filters every fetched document.
// Values are immutable once built; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/matcher/match_expression.h"
#include "query/pipeline/value.h"

namespace cairn::index {

// One interval of one field's values, low ≤ high in MongoDB's value order.
struct Interval {
  query::OwnedValue low;
  query::OwnedValue high;
  bool low_inclusive = true;
  bool high_inclusive = true;

  bool IsPoint() const;
  // MongoDB's Interval::toString: "[1, 1]", "(5, inf.0]", "[MinKey, MaxKey]"; `reversed` prints it
  // in descending order ("[inf.0, 5)"), as explain does for a descending field or backward scan.
  std::string ToString(bool reversed = false) const;
};

// The intervals of one field: sorted by value and disjoint. Empty: nothing can match.
using IntervalList = std::vector<Interval>;

IntervalList FullRange();  // [MinKey, MaxKey]
bool IsFullRange(const IntervalList& list);
// Non-empty and every interval a single point (an equality or $in).
bool IsPointList(const IntervalList& list);
// Whether null (what a missing field keys as) lies in the list.
bool ContainsNull(const IntervalList& list);
IntervalList Union(IntervalList a, const IntervalList& b);
IntervalList Intersect(const IntervalList& a, const IntervalList& b);

// What one predicate says about the values of its path.
struct PredicateBounds {
  IntervalList intervals;
  // The intervals select exactly the documents the predicate matches on a non-multikey field,
  // so explain need not show it as a residual filter (the matcher still checks it).
  bool exact = false;
  // The predicate can match a document where the path is missing (null equality, $in with
  // null): then a sparse index, which leaves such documents out, cannot answer it.
  bool matches_missing = false;
};

// The bounds of a leaf predicate ($eq, ranges, $in, $regex, $exists: true, $type, and the
// value form of $elemMatch, whose operators intersect), or nullopt for one that narrows nothing
// an index can use ($ne, $size, $mod, ...).
std::optional<PredicateBounds> BoundsOfPredicate(const query::MatchExpression* node);

// Per key field, its intervals (in value order; a descending field is reversed when scanned).
struct IndexBounds {
  std::vector<IntervalList> fields;
};

// The key byte ranges that visit IndexBounds on one index, in scan order, and the check of the
// fields the ranges leave open. Leading fields pinned to points multiply into separate ranges (up
// to a limit); the first other field bounds each range; later fields are checked per key.
class IndexScanRanges {
 public:
  struct Range {
    std::string start;  // first key byte string in the range
    std::string end;    // exclusive upper bound; empty = the end of the index
  };

  static IndexScanRanges Make(const IndexBounds& bounds, const std::vector<bool>& descending,
                              bool reverse);
  // One forward range of key bytes [start, end) (end empty: to the end of the index), nothing
  // checked per key: find's min/max (index/min_max_bounds.h).
  static IndexScanRanges KeyRange(std::string start, std::string end);

  // In scan order (descending key order for a reverse scan). Empty: the scan visits nothing.
  const std::vector<Range>& ranges() const { return ranges_; }
  // Whether KeyInBounds has anything to check.
  bool needs_key_check() const { return !checked_fields_.empty(); }
  // Whether a key (its fields' bytes, without a RecordId suffix) lies within the bounds of every
  // field the ranges do not enforce. `scratch` is reused between calls.
  bool KeyInBounds(std::string_view key, std::vector<std::string_view>* scratch) const;
  // How many ranges the scan seeks to (explain's "seeks").
  size_t num_ranges() const { return ranges_.size(); }
  // Every field is pinned to a point: each range holds the keys of exactly one key value (on a
  // unique index, one entry found by a point lookup of `start`).
  bool exact_keys() const { return exact_keys_; }

 private:
  struct ByteInterval {
    std::string low, high;
    bool low_inclusive, high_inclusive;
  };
  std::vector<Range> ranges_;
  std::vector<bool> descending_;
  bool exact_keys_ = false;
  // Per checked field: its position and byte intervals in ascending byte order.
  std::vector<std::pair<size_t, std::vector<ByteInterval>>> checked_fields_;

  static std::vector<ByteInterval> ToBytes(const IntervalList& list, bool descending);
  static bool InIntervals(std::string_view value, const std::vector<ByteInterval>& intervals);
};

// The smallest byte string greater than every string that starts with `prefix` (empty when there
// is none: the prefix is all 0xFF).
std::string PrefixSuccessor(std::string_view prefix);

}  // namespace cairn::index
