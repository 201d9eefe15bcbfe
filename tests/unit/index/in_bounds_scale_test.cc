// A huge $in through an index: building its bounds is O(n log n) and checking a key against them
// is a binary search, O(log n) per key (a 100k-element $in over 100k keys took a minute when each
// key walked the whole interval list). Checked for exactness on both key orders too.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "index/index_bounds.h"
#include "index/key_string.h"
#include "query/matcher/matcher.h"

namespace cairn::index {
namespace {

// {a: {$in: [0, step, 2*step, ...]}} with n values.
BsonDoc InFilter(int n, int step) {
  BsonDoc filter;
  bson_t a, in;
  BSON_APPEND_DOCUMENT_BEGIN(filter.get(), "a", &a);
  BSON_APPEND_ARRAY_BEGIN(&a, "$in", &in);
  for (int i = 0; i < n; ++i) {
    std::string key = std::to_string(i);
    bson_append_int32(&in, key.c_str(), static_cast<int>(key.size()), i * step);
  }
  bson_append_array_end(&a, &in);
  bson_append_document_end(filter.get(), &a);
  return filter;
}

// The key bytes of {"": x, "": value}: a first field the ranges cannot bound (so the $in field
// is checked per key), then the value.
std::string Key(int x, int value, bool descending) {
  BsonDoc fields;
  BSON_APPEND_INT32(fields.get(), "", x);
  BSON_APPEND_INT32(fields.get(), "", value);
  bson_iter_t it;
  fields.view().Init(&it);
  std::string key;
  bson_iter_next(&it);
  AppendValue(&key, &it, false);
  bson_iter_next(&it);
  AppendValue(&key, &it, descending);
  return key;
}

TEST(InBoundsScale, ShouldCheckKeysAgainstA100kInByBinarySearch) {
  constexpr int kValues = 100'000;
  BsonDoc filter = InFilter(kValues, 2);  // the even numbers below 200k
  auto start = std::chrono::steady_clock::now();
  query::Matcher matcher = query::Matcher::Parse(filter.view()).value();
  std::optional<PredicateBounds> in = BoundsOfPredicate(matcher.root());
  ASSERT_TRUE(in.has_value());
  ASSERT_EQ(in->intervals.size(), static_cast<size_t>(kValues));
  for (bool descending : {false, true}) {
    // The first field unbounded: one range over the index, the $in field checked key by key.
    IndexBounds bounds;
    bounds.fields = {FullRange(), in->intervals};
    IndexScanRanges ranges = IndexScanRanges::Make(bounds, {false, descending}, false);
    ASSERT_TRUE(ranges.needs_key_check());
    std::vector<std::string_view> scratch;
    int accepted = 0;
    for (int v = -10; v < 2 * kValues + 10; ++v) {
      bool in_bounds = ranges.KeyInBounds(Key(7, v, descending), &scratch);
      bool expected = v >= 0 && v < 2 * kValues && v % 2 == 0;
      if (in_bounds != expected) {
        ADD_FAILURE() << "value " << v << (descending ? " (descending)" : "");
        break;
      }
      accepted += in_bounds;
    }
    EXPECT_EQ(accepted, kValues);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Linear per key this is 4e10 comparisons (minutes); by binary search well under a second.
  EXPECT_LT(seconds, 10.0);
}

}  // namespace
}  // namespace cairn::index
