// Index bounds: intervals from predicates (MongoDB's index_bounds_builder rules, designed from
// its documented behaviour), interval algebra, and the key byte ranges of a scan.
#include "index/index_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/bson_compare.h"
#include "index/key_string.h"

namespace cairn::index {

namespace {

using query::MatchExpression;
using query::MatchKind;
using query::OwnedValue;

// Maximum number of key ranges one scan is split into; past it, later point fields are checked
// per key instead (MongoDB's internalQueryMaxScansToExplode plays a similar role).
constexpr size_t kMaxRanges = 4096;

// A value built by `append` (which appends one element under the empty key).
template <typename Append>
OwnedValue Build(Append append) {
  bson_t b = BSON_INITIALIZER;
  append(&b);
  bson_iter_t it;
  bson_iter_init(&it, &b);
  bson_iter_next(&it);
  OwnedValue value(&it);
  bson_destroy(&b);
  return value;
}

OwnedValue MinKeyValue() {
  return Build([](bson_t* b) { bson_append_minkey(b, "", 0); });
}
OwnedValue MaxKeyValue() {
  return Build([](bson_t* b) { bson_append_maxkey(b, "", 0); });
}
OwnedValue NullValueOwned() {
  return Build([](bson_t* b) { bson_append_null(b, "", 0); });
}
OwnedValue UndefinedValue() {
  return Build([](bson_t* b) { bson_append_undefined(b, "", 0); });
}
OwnedValue DoubleValue(double d) {
  return Build([d](bson_t* b) { bson_append_double(b, "", 0, d); });
}
OwnedValue StringValue(std::string_view s) {
  return Build(
      [s](bson_t* b) { bson_append_utf8(b, "", 0, s.data(), static_cast<int>(s.size())); });
}
OwnedValue EmptyDocument() {
  return Build([](bson_t* b) {
    bson_t empty = BSON_INITIALIZER;
    bson_append_document(b, "", 0, &empty);
  });
}
OwnedValue EmptyArray() {
  return Build([](bson_t* b) {
    bson_t empty = BSON_INITIALIZER;
    bson_append_array(b, "", 0, &empty);
  });
}
OwnedValue ObjectIdValue(uint8_t fill) {
  return Build([fill](bson_t* b) {
    bson_oid_t oid;
    std::fill(std::begin(oid.bytes), std::end(oid.bytes), fill);
    bson_append_oid(b, "", 0, &oid);
  });
}
OwnedValue BoolValue(bool v) {
  return Build([v](bson_t* b) { bson_append_bool(b, "", 0, v); });
}
OwnedValue DateValue(int64_t ms) {
  return Build([ms](bson_t* b) { bson_append_date_time(b, "", 0, ms); });
}
OwnedValue TimestampValue(uint32_t t, uint32_t i) {
  return Build([t, i](bson_t* b) { bson_append_timestamp(b, "", 0, t, i); });
}

Interval Make(OwnedValue low, bool low_inclusive, OwnedValue high, bool high_inclusive) {
  Interval i;
  i.low = std::move(low);
  i.high = std::move(high);
  i.low_inclusive = low_inclusive;
  i.high_inclusive = high_inclusive;
  return i;
}

Interval Point(const bson_iter_t* v) { return Make(OwnedValue(v), true, OwnedValue(v), true); }

int Cmp(const OwnedValue& a, const OwnedValue& b) {
  bson_iter_t it;
  b.Iter(&it);
  return query::CompareOwned(a, &it);
}

bool IsEmpty(const Interval& i) {
  int c = Cmp(i.low, i.high);
  return c > 0 || (c == 0 && !(i.low_inclusive && i.high_inclusive));
}

IntervalList Normalized(IntervalList list) {
  list.erase(std::remove_if(list.begin(), list.end(), IsEmpty), list.end());
  return Union(std::move(list), {});
}

// The type bracket a value lies in: its lowest and highest value, as MongoDB's bounds builder
// closes ranges ({$gt: 5} → (5, inf.0]; {$lt: "m"} → ["", "m")). False for types whose ranges
// an index cannot serve here.
bool TypeBracket(const bson_iter_t* v, Interval* bracket) {
  switch (bson_iter_type(v)) {
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DECIMAL128:
      *bracket = Make(DoubleValue(-std::numeric_limits<double>::infinity()), true,
                      DoubleValue(std::numeric_limits<double>::infinity()), true);
      return true;
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
      *bracket = Make(StringValue(""), true, EmptyDocument(), false);
      return true;
    case BSON_TYPE_DOCUMENT:
      *bracket = Make(EmptyDocument(), true, EmptyArray(), false);
      return true;
    case BSON_TYPE_OID:
      *bracket = Make(ObjectIdValue(0x00), true, ObjectIdValue(0xFF), true);
      return true;
    case BSON_TYPE_BOOL:
      *bracket = Make(BoolValue(false), true, BoolValue(true), true);
      return true;
    case BSON_TYPE_DATE_TIME:
      *bracket = Make(DateValue(std::numeric_limits<int64_t>::min()), true,
                      DateValue(std::numeric_limits<int64_t>::max()), true);
      return true;
    case BSON_TYPE_TIMESTAMP:
      *bracket = Make(TimestampValue(0, 0), true,
                      TimestampValue(std::numeric_limits<uint32_t>::max(),
                                     std::numeric_limits<uint32_t>::max()),
                      true);
      return true;
    default:
      return false;
  }
}

bool IsNaN(const bson_iter_t* v) {
  double d = 0;
  return (BSON_ITER_HOLDS_DOUBLE(v) || BSON_ITER_HOLDS_DECIMAL128(v)) && IterAsDouble(v, &d) &&
         std::isnan(d);
}

// [undefined, undefined] ∪ [null, null]: what null equality visits (missing keys as null).
IntervalList NullPoints() {
  return {Make(UndefinedValue(), true, UndefinedValue(), true),
          Make(NullValueOwned(), true, NullValueOwned(), true)};
}

// The intervals of {path: v} ($eq and each $in member).
IntervalList EqualityIntervals(const bson_iter_t* v, bool* exact) {
  switch (bson_iter_type(v)) {
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
      *exact = false;
      return NullPoints();
    case BSON_TYPE_ARRAY: {
      // An array value matches the whole array, or an element that equals it: visit the array
      // and its first element (what a multikey index holds for it), or undefined for [].
      *exact = false;
      IntervalList list = {Point(v)};
      bson_iter_t first;
      if (bson_iter_recurse(v, &first) && bson_iter_next(&first)) {
        list.push_back(Point(&first));
      } else {
        list.push_back(Make(UndefinedValue(), true, UndefinedValue(), true));
      }
      return Normalized(std::move(list));
    }
    default:
      return {Point(v)};
  }
}

std::optional<PredicateBounds> ComparisonBounds(MatchKind kind, const bson_iter_t* v) {
  PredicateBounds out;
  out.exact = true;
  const bool greater = kind == MatchKind::kGt || kind == MatchKind::kGte;
  const bool inclusive = kind == MatchKind::kGte || kind == MatchKind::kLte;
  switch (bson_iter_type(v)) {
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
      if (!inclusive) return std::nullopt;
      out.intervals = NullPoints();
      out.exact = false;
      out.matches_missing = true;
      return out;
    case BSON_TYPE_MINKEY:
      if (greater) return std::nullopt;
      if (inclusive) out.intervals = {Point(v)};
      return out;
    case BSON_TYPE_MAXKEY:
      if (!greater) return std::nullopt;
      if (inclusive) out.intervals = {Point(v)};
      return out;
    default:
      break;
  }
  if (IsNaN(v)) {
    if (inclusive) out.intervals = {Point(v)};
    return out;
  }
  Interval bracket;
  if (!TypeBracket(v, &bracket)) return std::nullopt;
  Interval range =
      greater ? Make(OwnedValue(v), inclusive, std::move(bracket.high), bracket.high_inclusive)
              : Make(std::move(bracket.low), bracket.low_inclusive, OwnedValue(v), inclusive);
  if (!IsEmpty(range)) out.intervals.push_back(std::move(range));
  return out;
}

// The literal prefix a regex anchors at ("^abc" → "abc"), when it has one that bounds it.
bool SimpleRegexPrefix(std::string_view pattern, std::string_view flags, std::string* prefix) {
  size_t start;
  if (pattern.starts_with("\\A")) {
    start = 2;
  } else if (pattern.starts_with("^")) {
    if (flags.find('m') != std::string_view::npos) return false;  // ^ matches after newlines
    start = 1;
  } else {
    return false;
  }
  if (flags.find('i') != std::string_view::npos || flags.find('x') != std::string_view::npos) {
    return false;
  }
  if (pattern.find('|') != std::string_view::npos) return false;
  prefix->clear();
  for (size_t i = start; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '*' || c == '?' || c == '{') {
      if (!prefix->empty()) prefix->pop_back();  // the last character was optional
      break;
    }
    if (c == '+' || c == '\\' || c == '.' || c == '(' || c == ')' || c == '[' || c == ']' ||
        c == '$' || c == '^') {
      break;
    }
    prefix->push_back(c);
  }
  return true;
}

std::optional<PredicateBounds> RegexBounds(const query::RegexMatchExpression* regex) {
  PredicateBounds out;
  std::string prefix;
  if (SimpleRegexPrefix(regex->pattern(), regex->flags(), &prefix) && !prefix.empty()) {
    std::string next = PrefixSuccessor(prefix);
    out.intervals.push_back(
        Make(StringValue(prefix), true, next.empty() ? EmptyDocument() : StringValue(next), false));
  } else {
    out.intervals.push_back(Make(StringValue(""), true, EmptyDocument(), false));
  }
  // The regex also matches a stored regular expression equal to it.
  std::string pattern(regex->pattern()), flags(regex->flags());
  OwnedValue self =
      Build([&](bson_t* b) { bson_append_regex(b, "", 0, pattern.c_str(), flags.c_str()); });
  OwnedValue self_copy = self;
  out.intervals.push_back(Make(std::move(self_copy), true, std::move(self), true));
  out.intervals = Normalized(std::move(out.intervals));
  return out;
}

bool LowBefore(const Interval& a, const Interval& b) {
  int c = Cmp(a.low, b.low);
  if (c != 0) return c < 0;
  return a.low_inclusive && !b.low_inclusive;
}

}  // namespace

bool Interval::IsPoint() const { return low_inclusive && high_inclusive && Cmp(low, high) == 0; }

std::string Interval::ToString(bool reversed) const {
  auto print = [](const OwnedValue& v) {
    bson_iter_t it;
    v.Iter(&it);
    return ValueToShellString(&it);
  };
  if (reversed) {
    return std::string(high_inclusive ? "[" : "(") + print(high) + ", " + print(low) +
           (low_inclusive ? "]" : ")");
  }
  return std::string(low_inclusive ? "[" : "(") + print(low) + ", " + print(high) +
         (high_inclusive ? "]" : ")");
}

IntervalList FullRange() { return {Make(MinKeyValue(), true, MaxKeyValue(), true)}; }

bool IsFullRange(const IntervalList& list) {
  if (list.size() != 1 || !list[0].low_inclusive || !list[0].high_inclusive) return false;
  bson_iter_t low, high;
  return list[0].low.Iter(&low) && list[0].high.Iter(&high) && BSON_ITER_HOLDS_MINKEY(&low) &&
         BSON_ITER_HOLDS_MAXKEY(&high);
}

bool IsPointList(const IntervalList& list) {
  if (list.empty()) return false;
  for (const Interval& i : list) {
    if (!i.IsPoint()) return false;
  }
  return true;
}

bool ContainsNull(const IntervalList& list) {
  OwnedValue null_value = NullValueOwned();
  for (const Interval& i : list) {
    int low = Cmp(i.low, null_value);
    int high = Cmp(i.high, null_value);
    if ((low < 0 || (low == 0 && i.low_inclusive)) &&
        (high > 0 || (high == 0 && i.high_inclusive))) {
      return true;
    }
  }
  return false;
}

IntervalList Union(IntervalList a, const IntervalList& b) {
  for (const Interval& i : b) a.push_back(Make(i.low, i.low_inclusive, i.high, i.high_inclusive));
  a.erase(std::remove_if(a.begin(), a.end(), IsEmpty), a.end());
  std::sort(a.begin(), a.end(), LowBefore);
  IntervalList out;
  for (Interval& i : a) {
    if (!out.empty()) {
      Interval& last = out.back();
      int c = Cmp(last.high, i.low);
      if (c > 0 || (c == 0 && (last.high_inclusive || i.low_inclusive))) {
        int h = Cmp(i.high, last.high);
        if (h > 0 || (h == 0 && i.high_inclusive)) {
          last.high = std::move(i.high);
          last.high_inclusive = i.high_inclusive || (h == 0 && last.high_inclusive);
        }
        continue;
      }
    }
    out.push_back(std::move(i));
  }
  return out;
}

IntervalList Intersect(const IntervalList& a, const IntervalList& b) {
  IntervalList out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const Interval& x = a[i];
    const Interval& y = b[j];
    // The later low and the earlier high.
    int lc = Cmp(x.low, y.low);
    const Interval& low_from = (lc > 0 || (lc == 0 && !x.low_inclusive)) ? x : y;
    int hc = Cmp(x.high, y.high);
    const Interval& high_from = (hc < 0 || (hc == 0 && !x.high_inclusive)) ? x : y;
    Interval candidate =
        Make(low_from.low, low_from.low_inclusive, high_from.high, high_from.high_inclusive);
    if (!IsEmpty(candidate)) out.push_back(std::move(candidate));
    // Advance whichever ends first.
    if (hc < 0 || (hc == 0 && !x.high_inclusive && y.high_inclusive)) {
      ++i;
    } else if (hc > 0 || (hc == 0 && x.high_inclusive && !y.high_inclusive)) {
      ++j;
    } else {
      ++i;
      ++j;
    }
  }
  return out;
}

std::optional<PredicateBounds> BoundsOfPredicate(const MatchExpression* node) {
  switch (node->kind()) {
    case MatchKind::kEq: {
      bson_iter_t rhs = static_cast<const query::ComparisonMatchExpression*>(node)->rhs();
      PredicateBounds out;
      out.exact = true;
      out.intervals = EqualityIntervals(&rhs, &out.exact);
      out.matches_missing = BSON_ITER_HOLDS_NULL(&rhs) || BSON_ITER_HOLDS_UNDEFINED(&rhs);
      return out;
    }
    case MatchKind::kLt:
    case MatchKind::kLte:
    case MatchKind::kGt:
    case MatchKind::kGte: {
      bson_iter_t rhs = static_cast<const query::ComparisonMatchExpression*>(node)->rhs();
      return ComparisonBounds(node->kind(), &rhs);
    }
    case MatchKind::kIn: {
      const auto* in = static_cast<const query::InMatchExpression*>(node);
      if (in->has_regexes()) return std::nullopt;
      PredicateBounds out;
      out.exact = true;
      IntervalList list;
      for (const BsonElement& e : in->equalities()) {
        bson_iter_t it = e.iter();
        IntervalList one = EqualityIntervals(&it, &out.exact);
        list.insert(list.end(), std::make_move_iterator(one.begin()),
                    std::make_move_iterator(one.end()));
      }
      out.intervals = Union(std::move(list), {});
      out.matches_missing = in->has_null();
      return out;
    }
    case MatchKind::kRegex:
      return RegexBounds(static_cast<const query::RegexMatchExpression*>(node));
    case MatchKind::kExists: {
      PredicateBounds out;
      out.intervals = FullRange();
      return out;  // $exists: true never matches a missing field
    }
    case MatchKind::kElemMatchValue: {
      // Every operator applies to the same element: their bounds intersect.
      std::optional<PredicateBounds> out;
      for (size_t i = 0; i < node->num_children(); ++i) {
        std::optional<PredicateBounds> child = BoundsOfPredicate(node->child(i));
        if (!child) continue;
        if (!out) {
          out = std::move(child);
        } else {
          out->intervals = Intersect(out->intervals, child->intervals);
        }
      }
      if (out) out->exact = false;
      return out;
    }
    default:
      return std::nullopt;
  }
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty()) {
    unsigned char last = static_cast<unsigned char>(out.back());
    if (last != 0xFF) {
      out.back() = static_cast<char>(last + 1);
      return out;
    }
    out.pop_back();
  }
  return out;
}

std::vector<IndexScanRanges::ByteInterval> IndexScanRanges::ToBytes(const IntervalList& list,
                                                                    bool descending) {
  std::vector<ByteInterval> out;
  for (const Interval& i : list) {
    bson_iter_t low, high;
    i.low.Iter(&low);
    i.high.Iter(&high);
    ByteInterval b;
    if (!descending) {
      AppendValue(&b.low, &low, false);
      AppendValue(&b.high, &high, false);
      b.low_inclusive = i.low_inclusive;
      b.high_inclusive = i.high_inclusive;
    } else {
      AppendValue(&b.low, &high, true);
      AppendValue(&b.high, &low, true);
      b.low_inclusive = i.high_inclusive;
      b.high_inclusive = i.low_inclusive;
    }
    out.push_back(std::move(b));
  }
  if (descending) std::reverse(out.begin(), out.end());
  return out;
}

// The intervals are sorted and disjoint, so their highs ascend: a binary search finds the only
// one that can hold `value` (the first not wholly below it), in O(log n) per key however long
// the list ($in of 100k values).
bool IndexScanRanges::InIntervals(std::string_view value, const std::vector<ByteInterval>& list) {
  auto below = [value](const ByteInterval& b) {
    int high = value.compare(b.high);
    return high > 0 || (high == 0 && !b.high_inclusive);
  };
  auto it = std::partition_point(list.begin(), list.end(), below);
  if (it == list.end()) return false;
  int low = value.compare(it->low);
  return low > 0 || (low == 0 && it->low_inclusive);
}

IndexScanRanges IndexScanRanges::KeyRange(std::string start, std::string end) {
  IndexScanRanges out;
  out.ranges_.push_back({std::move(start), std::move(end)});
  return out;
}

IndexScanRanges IndexScanRanges::Make(const IndexBounds& bounds,
                                      const std::vector<bool>& descending, bool reverse) {
  IndexScanRanges out;
  out.descending_ = descending;
  const size_t n = bounds.fields.size();
  std::vector<std::vector<ByteInterval>> bytes;
  bytes.reserve(n);
  for (size_t f = 0; f < n; ++f) {
    if (bounds.fields[f].empty()) return out;  // nothing can match: no ranges
    bytes.push_back(ToBytes(bounds.fields[f], descending[f]));
  }
  auto is_point = [](const ByteInterval& b) {
    return b.low_inclusive && b.high_inclusive && b.low == b.high;
  };
  // Leading fields pinned to points multiply into ranges.
  size_t combos = 1;
  size_t k = 0;
  while (k < n && std::all_of(bytes[k].begin(), bytes[k].end(), is_point) &&
         combos * bytes[k].size() <= kMaxRanges) {
    combos *= bytes[k].size();
    ++k;
  }
  // The next field bounds each range, unless it is unbounded or would make too many ranges.
  bool range_field =
      k < n && !IsFullRange(bounds.fields[k]) && combos * bytes[k].size() <= kMaxRanges;
  out.exact_keys_ = k == n;
  size_t first_checked = range_field ? k + 1 : k;
  for (size_t f = first_checked; f < n; ++f) {
    if (!IsFullRange(bounds.fields[f])) out.checked_fields_.emplace_back(f, bytes[f]);
  }
  // Enumerate the point prefixes in key order (field encodings are self-delimiting, so
  // concatenations of sorted lists come out sorted).
  std::vector<std::string> prefixes = {std::string()};
  for (size_t f = 0; f < k; ++f) {
    std::vector<std::string> next;
    next.reserve(prefixes.size() * bytes[f].size());
    for (const std::string& p : prefixes) {
      for (const ByteInterval& b : bytes[f]) next.push_back(p + b.low);
    }
    prefixes = std::move(next);
  }
  for (const std::string& p : prefixes) {
    if (!range_field) {
      out.ranges_.push_back({p, PrefixSuccessor(p)});
      continue;
    }
    for (const ByteInterval& b : bytes[k]) {
      Range r;
      r.start = b.low_inclusive ? p + b.low : PrefixSuccessor(p + b.low);
      r.end = b.high_inclusive ? PrefixSuccessor(p + b.high) : p + b.high;
      out.ranges_.push_back(std::move(r));
    }
  }
  if (reverse) std::reverse(out.ranges_.begin(), out.ranges_.end());
  return out;
}

bool IndexScanRanges::KeyInBounds(std::string_view key,
                                  std::vector<std::string_view>* scratch) const {
  if (checked_fields_.empty()) return true;
  if (!SplitKey(key, descending_, scratch)) return true;  // malformed: let the matcher decide
  for (const auto& [field, intervals] : checked_fields_) {
    if (!InIntervals((*scratch)[field], intervals)) return false;
  }
  return true;
}

}  // namespace cairn::index
