// Specification of index/index_bounds: interval algebra, and the key byte ranges of a scan — a
// key lies in a range (and passes the per-key check) exactly when its fields lie in the bounds,
// checked against keys made by the key generator, ascending and descending, forward and back.
#include "index/index_bounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "index/key_generator.h"
#include "index/key_string.h"
#include "query/matcher/matcher.h"

namespace cairn::index {
namespace {

IntervalList BoundsOf(const char* filter) {
  BsonDoc doc = BsonDoc::FromJson(filter);
  query::Matcher m = query::Matcher::Parse(doc.view()).value();
  std::optional<PredicateBounds> b = BoundsOfPredicate(m.root());
  EXPECT_TRUE(b.has_value()) << filter;
  return b ? b->intervals : IntervalList{};
}

std::string Print(const IntervalList& list) {
  std::string out;
  for (const Interval& i : list) out += (out.empty() ? "" : " ") + i.ToString();
  return out;
}

TEST(IndexBoundsTest, ShouldUniteAndIntersectIntervals) {
  IntervalList gt5 = BoundsOf(R"({"a": {"$gt": 5}})");
  IntervalList lt7 = BoundsOf(R"({"a": {"$lte": 7}})");
  EXPECT_EQ(Print(Intersect(gt5, lt7)), "(5, 7]");
  EXPECT_EQ(Print(Union(BoundsOf(R"({"a": 1})"), BoundsOf(R"({"a": {"$gt": 1}})"))), "[1, inf.0]");
  EXPECT_EQ(Print(Union(BoundsOf(R"({"a": 1})"), BoundsOf(R"({"a": 3})"))), "[1, 1] [3, 3]");
  EXPECT_EQ(Print(Union(BoundsOf(R"({"a": {"$lt": 3}})"), BoundsOf(R"({"a": {"$gte": 3}})"))),
            "[-inf.0, inf.0]");
  EXPECT_EQ(Print(Intersect(BoundsOf(R"({"a": {"$in": [1, 5, 9]}})"), gt5)), "[9, 9]");
  EXPECT_TRUE(Intersect(BoundsOf(R"({"a": "x"})"), gt5).empty());
  EXPECT_TRUE(IsFullRange(FullRange()));
  EXPECT_TRUE(ContainsNull(BoundsOf(R"({"a": null})")));
  EXPECT_FALSE(ContainsNull(gt5));
  EXPECT_EQ(PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(PrefixSuccessor(std::string("a\xff", 2)), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\xff", 1)), "");
}

// Every key of `docs` in a two-field index; checks that the scan ranges + key check select
// exactly the keys whose decoded fields satisfy `in_bounds`.
void ExpectRangesSelect(const char* pattern_json, const IndexBounds& bounds, bool reverse,
                        const std::vector<std::string>& docs, const std::vector<int>& expected) {
  BsonDoc pattern_doc = BsonDoc::FromJson(pattern_json);
  KeyPattern pattern = KeyPattern::Parse(pattern_doc.view()).value();
  auto generator = MakeBtreeKeyGenerator(pattern, false);
  IndexScanRanges ranges = IndexScanRanges::Make(bounds, pattern.descending(), reverse);
  // Keys in index order with the position of their document.
  std::vector<std::pair<std::string, int>> keys;
  for (size_t d = 0; d < docs.size(); ++d) {
    KeySet set;
    MultikeyPaths mk;
    ASSERT_TRUE(generator->GetKeys(BsonDoc::FromJson(docs[d]).view(), &set, &mk).ok());
    for (std::string& k : set) keys.emplace_back(std::move(k), static_cast<int>(d));
  }
  std::sort(keys.begin(), keys.end());
  std::vector<int> selected;
  std::vector<std::string_view> scratch;
  std::string_view previous_end;
  for (const IndexScanRanges::Range& r : ranges.ranges()) {
    if (!reverse && !previous_end.empty()) {
      EXPECT_LE(previous_end, std::string_view(r.start));
    }
    previous_end = r.end;
    for (const auto& [key, doc] : keys) {
      if (key < r.start || (!r.end.empty() && key >= r.end)) continue;
      if (ranges.KeyInBounds(key, &scratch)) selected.push_back(doc);
    }
  }
  std::sort(selected.begin(), selected.end());
  EXPECT_EQ(selected, expected) << pattern_json;
}

TEST(IndexBoundsTest, ShouldTurnBoundsIntoKeyRangesThatSelectExactlyTheirKeys) {
  const std::vector<std::string> docs = {
      R"({"a": 1, "b": 1})", R"({"a": 1, "b": 5})", R"({"a": 2, "b": 3})",   R"({"a": 2, "b": 9})",
      R"({"a": 3, "b": 4})", R"({"b": 4})",         R"({"a": "x", "b": 4})", R"({"a": 2})"};
  IndexBounds eq_then_range;
  eq_then_range.fields = {BoundsOf(R"({"a": {"$in": [1, 2]}})"), BoundsOf(R"({"b": {"$gt": 2}})")};
  for (const char* pattern : {R"({"a": 1, "b": 1})", R"({"a": -1, "b": 1})", R"({"a": 1, "b": -1})",
                              R"({"a": -1, "b": -1})"}) {
    for (bool reverse : {false, true}) {
      ExpectRangesSelect(pattern, eq_then_range, reverse, docs, {1, 2, 3});
    }
  }
  IndexBounds range_then_check;
  range_then_check.fields = {BoundsOf(R"({"a": {"$gte": 2}})"), BoundsOf(R"({"b": {"$lt": 5}})")};
  for (const char* pattern : {R"({"a": 1, "b": 1})", R"({"a": -1, "b": -1})"}) {
    for (bool reverse : {false, true}) {
      ExpectRangesSelect(pattern, range_then_check, reverse, docs, {2, 4});
    }
  }
  IndexBounds only_second;
  only_second.fields = {FullRange(), BoundsOf(R"({"b": 4})")};
  ExpectRangesSelect(R"({"a": 1, "b": 1})", only_second, false, docs, {4, 5, 6});
  IndexBounds nothing;
  nothing.fields = {IntervalList{}, FullRange()};
  EXPECT_TRUE(IndexScanRanges::Make(nothing, {false, false}, false).ranges().empty());
}

TEST(KeyStringSplitTest, ShouldSplitCompoundKeysIntoTheirFields) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": "x\u0000y", "b": [1, {"c": 2}], "c": 3.5})");
  std::string key;
  std::vector<bool> desc = {false, true, false};
  bson_iter_t it;
  for (const char* f : {"a", "b", "c"}) {
    doc.view().Find(f, &it);
    AppendValue(&key, &it, desc[key.empty() ? 0 : (f[0] == 'b' ? 1 : 2)]);
  }
  std::vector<std::string_view> fields;
  ASSERT_TRUE(SplitKey(key, desc, &fields));
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[0].size() + fields[1].size() + fields[2].size(), key.size());
  EXPECT_FALSE(SplitKey(key + "x", desc, &fields));
  EXPECT_FALSE(SplitKey(key.substr(0, key.size() - 1), desc, &fields));
}

}  // namespace
}  // namespace cairn::index
