// Specification of the query language under a collation: the matcher's comparisons ($eq, $ne,
// ranges, $in/$nin, $all, $elemMatch, equality on arrays and documents, $expr), sort, and the
// pipeline's $match, $sort, $group keys, $addToSet, $min/$max and comparison expressions, with the
// collation a command passes through its ExpressionContext; regexes and field names stay binary;
// no collation keeps MongoDB's binary order.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "query/collation/collator.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/sort/sort_pattern.h"
#include "tests/unit/query/matcher/matcher_test_util.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

std::shared_ptr<const Collator> MakeCollator(const char* json) {
  BsonDoc spec = BsonDoc::FromJson(json);
  Result<std::shared_ptr<const Collator>> collator = Collator::Make(spec.view());
  EXPECT_TRUE(collator.ok()) << json << ": " << collator.status().ToString();
  return collator.ok() ? *collator : nullptr;
}

std::shared_ptr<const ExpressionContext> ContextWith(const char* collation) {
  return ExpressionContext::Make()->WithCollator(MakeCollator(collation));
}

struct CollatedMatchCase {
  const char* collation;
  const char* filter;
  const char* doc;
  bool matches;
};

void PrintTo(const CollatedMatchCase& c, std::ostream* os) {
  *os << c.collation << " filter " << c.filter << " doc " << c.doc << " → "
      << (c.matches ? "match" : "no match");
}

class CollatedMatcher : public ::testing::TestWithParam<CollatedMatchCase> {};

TEST_P(CollatedMatcher, ShouldMatchUnderTheCollation) {
  const CollatedMatchCase& c = GetParam();
  BsonDoc filter = testing::Filter(c.filter);
  Result<Matcher> matcher = Matcher::Parse(filter.view(), ContextWith(c.collation));
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  ASSERT_NE(matcher->collator(), nullptr);
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  EXPECT_EQ(*matcher->Matches(doc.view()), c.matches);
}

constexpr const char* kCaseInsensitive = R"({"locale": "en", "strength": 2})";
constexpr const char* kNumeric = R"({"locale": "en", "numericOrdering": true})";
constexpr const char* kShifted = R"({"locale": "en", "alternate": "shifted"})";

const CollatedMatchCase kCollatedMatchCases[] = {
    // Equality and $ne.
    {kCaseInsensitive, R"({"x": "PING"})", R"({"x": "ping"})", true},
    {kCaseInsensitive, R"({"x": {"$eq": "PING"}})", R"({"x": "ping"})", true},
    {kCaseInsensitive, R"({"x": {"$ne": "PING"}})", R"({"x": "ping"})", false},
    {kCaseInsensitive, R"({"x": {"$ne": "PONG"}})", R"({"x": "ping"})", true},
    {kCaseInsensitive, R"({"x": "PING"})", R"({"x": "pong"})", false},
    {kCaseInsensitive, R"({"x": "PING"})", R"({"x": ["a", "Ping"]})", true},    // array element
    {kCaseInsensitive, R"({"x": ["A", "B"]})", R"({"x": ["a", "b"]})", true},   // whole array
    {kCaseInsensitive, R"({"x": {"y": "A"}})", R"({"x": {"y": "a"}})", true},   // document
    {kCaseInsensitive, R"({"x": {"Y": "a"}})", R"({"x": {"y": "a"}})", false},  // field names
    {kCaseInsensitive, R"({"x.y": "A"})", R"({"x": [{"y": "a"}]})", true},
    {kCaseInsensitive, R"({"x": {"$symbol": "PING"}})", R"({"x": "ping"})", true},
    {kCaseInsensitive, R"({"x": "1"})", R"({"x": 1})", false},  // types still differ
    // Ranges.
    {kCaseInsensitive, R"({"x": {"$gte": "B", "$lte": "C"}})", R"({"x": "b"})", true},
    {kCaseInsensitive, R"({"x": {"$gt": "B"}})", R"({"x": "b"})", false},
    {kCaseInsensitive, R"({"x": {"$lt": "b"}})", R"({"x": "B"})", false},
    {kNumeric, R"({"x": {"$gt": "9"}})", R"({"x": "10"})", true},
    {kNumeric, R"({"x": {"$lt": "item9"}})", R"({"x": "item10"})", false},
    {R"({"locale": "en"})", R"({"x": {"$gt": "B"}})", R"({"x": "a"})", false},  // a < B
    // $in / $nin (the list deduplicates under the collation).
    {kCaseInsensitive, R"({"x": {"$in": ["PING", "PONG"]}})", R"({"x": "pong"})", true},
    {kCaseInsensitive, R"({"x": {"$in": ["PING", "ping", "Ping"]}})", R"({"x": "pInG"})", true},
    {kCaseInsensitive, R"({"x": {"$in": ["PING"]}})", R"({"x": "pang"})", false},
    {kCaseInsensitive, R"({"x": {"$nin": ["PING"]}})", R"({"x": "ping"})", false},
    {kCaseInsensitive, R"({"x": {"$in": [1, "A", null]}})", R"({"x": "a"})", true},
    {kCaseInsensitive, R"({"x": {"$in": [1, "A", null]}})", R"({})", true},
    // Regexes never use the collation.
    {kCaseInsensitive, R"({"x": {"$in": [{"$regex": "^P"}]}})", R"({"x": "ping"})", false},
    {kCaseInsensitive, R"({"x": {"$regex_": "^P"}})", R"({"x": "ping"})", false},
    // $all and $elemMatch.
    {kCaseInsensitive, R"({"x": {"$all": ["A", "B"]}})", R"({"x": ["b", "a"]})", true},
    {kCaseInsensitive, R"({"x": {"$all": ["A", "C"]}})", R"({"x": ["b", "a"]})", false},
    {kCaseInsensitive, R"({"x": {"$elemMatch": {"$eq": "A"}}})", R"({"x": ["a"]})", true},
    {kCaseInsensitive, R"({"x": {"$elemMatch": {"y": "A"}}})", R"({"x": [{"y": "a"}]})", true},
    {kCaseInsensitive, R"({"x": {"$elemMatch": {"$in": ["B"]}}})", R"({"x": ["a", "b"]})", true},
    // Logical operators keep the collation for their clauses.
    {kCaseInsensitive, R"({"$or": [{"x": "A"}, {"y": "B"}]})", R"({"y": "b"})", true},
    {kCaseInsensitive, R"({"x": {"$not": {"$eq": "A"}}})", R"({"x": "a"})", false},
    // alternate: shifted ignores punctuation; strength 1 ignores accents.
    {kShifted, R"({"x": "ab"})", R"({"x": "a-b"})", true},
    {R"({"locale": "en", "strength": 1})", R"({"x": "resume"})", R"({"x": "Résumé"})", true},
    // $expr's comparison expressions compare under the command's collation too.
    {kCaseInsensitive, R"({"$expr": {"$eq": ["$x", "PING"]}})", R"({"x": "ping"})", true},
    {kCaseInsensitive, R"({"$expr": {"$ne": ["$x", "PING"]}})", R"({"x": "ping"})", false},
    {kNumeric, R"({"$expr": {"$gt": ["$x", "9"]}})", R"({"x": "10"})", true},
};

INSTANTIATE_TEST_SUITE_P(Collation, CollatedMatcher, ::testing::ValuesIn(kCollatedMatchCases));

TEST(CollatedMatcher, ShouldCompareBinaryWithoutACollation) {
  BsonDoc filter = BsonDoc::FromJson(R"({"x": "PING"})");
  Result<Matcher> matcher = Matcher::Parse(filter.view(), ExpressionContext::Make());
  ASSERT_TRUE(matcher.ok());
  EXPECT_EQ(matcher->collator(), nullptr);
  BsonDoc doc = BsonDoc::FromJson(R"({"x": "ping"})");
  EXPECT_FALSE(*matcher->Matches(doc.view()));
}

TEST(CollatedMatcher, ShouldKeepTheCollatorAliveWithTheMatcher) {
  BsonDoc filter = BsonDoc::FromJson(R"({"x": {"$in": ["A"]}})");
  Result<Matcher> matcher = Matcher::Parse(filter.view(), ContextWith(kCaseInsensitive));
  ASSERT_TRUE(matcher.ok());
  Matcher copy = *matcher;  // the context and the parse result are gone; the copy still works
  BsonDoc doc = BsonDoc::FromJson(R"({"x": "a"})");
  EXPECT_TRUE(*copy.Matches(doc.view()));
}

struct IdCase {
  const char* filter;
  bool point_lookup;
};

TEST(CollatedMatcher, ShouldNotPointLookUpIdsThatHoldStrings) {
  const IdCase cases[] = {
      {R"({"_id": "abc"})", false},
      {R"({"_id": {"a": 1}})", false},
      {R"({"_id": 5})", true},
      {R"({"_id": {"$oid": "5f1b6b1e0000000000000000"}})", true},
  };
  for (const IdCase& c : cases) {
    BsonDoc filter = BsonDoc::FromJson(c.filter);
    Result<Matcher> collated = Matcher::Parse(filter.view(), ContextWith(kCaseInsensitive));
    Result<Matcher> binary = Matcher::Parse(filter.view());
    ASSERT_TRUE(collated.ok() && binary.ok()) << c.filter;
    bson_iter_t value;
    EXPECT_EQ(collated->IdEquality(&value), c.point_lookup) << c.filter;
    EXPECT_TRUE(binary->IdEquality(&value)) << c.filter;
  }
}

// ---- Sort ----

struct CollatedSortCase {
  const char* collation;  // nullptr: none
  const char* sort;
  std::vector<const char*> docs;  // in the expected order
};

class CollatedSort : public ::testing::TestWithParam<CollatedSortCase> {};

TEST_P(CollatedSort, ShouldSortUnderTheCollation) {
  const CollatedSortCase& c = GetParam();
  BsonDoc spec = BsonDoc::FromJson(c.sort);
  Result<SortPattern> pattern =
      SortPattern::Parse(spec.view(), c.collation != nullptr ? MakeCollator(c.collation) : nullptr);
  ASSERT_TRUE(pattern.ok()) << pattern.status().ToString();
  std::vector<BsonDoc> docs;
  for (const char* json : c.docs) docs.push_back(BsonDoc::FromJson(json));
  std::vector<size_t> order(docs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;  // reversed input
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return pattern->Compare(docs[a].view(), docs[b].view()) < 0;
  });
  std::vector<std::string> got, want;
  for (size_t i : order) got.push_back(docs[i].ToJson());
  for (const BsonDoc& doc : docs) want.push_back(doc.ToJson());
  EXPECT_EQ(got, want);
}

const CollatedSortCase kCollatedSortCases[] = {
    {nullptr, R"({"s": 1})", {R"({"s": "10"})", R"({"s": "9"})", R"({"s": "B"})", R"({"s": "a"})"}},
    {kNumeric,
     R"({"s": 1})",
     {R"({"s": "9"})", R"({"s": "10"})", R"({"s": "a"})", R"({"s": "B"})"}},
    {kNumeric,
     R"({"s": -1})",
     {R"({"s": "B"})", R"({"s": "a"})", R"({"s": "10"})", R"({"s": "9"})"}},
    {R"({"locale": "en"})", R"({"s": 1})", {R"({"s": "a"})", R"({"s": "A"})", R"({"s": "b"})"}},
    {R"({"locale": "en", "caseFirst": "upper"})",
     R"({"s": 1})",
     {R"({"s": "A"})", R"({"s": "a"})", R"({"s": "b"})"}},
    // An array sorts by its least element under the collation (ascending).
    {R"({"locale": "en"})", R"({"s": 1})", {R"({"s": ["c", "a"]})", R"({"s": "B"})"}},
    // French: accents weigh from the end.
    {R"({"locale": "fr_CA"})",
     R"({"s": 1})",
     {R"({"s": "cote"})", R"({"s": "côte"})", R"({"s": "coté"})", R"({"s": "côté"})"}},
    {R"({"locale": "en"})",
     R"({"s": 1})",
     {R"({"s": "cote"})", R"({"s": "coté"})", R"({"s": "côte"})", R"({"s": "côté"})"}},
    // Numbers before strings still; strings nested in documents use the collation.
    {kNumeric, R"({"d": 1})", {R"({"d": 5})", R"({"d": {"k": "2"}})", R"({"d": {"k": "10"}})"}},
};

INSTANTIATE_TEST_SUITE_P(Collation, CollatedSort, ::testing::ValuesIn(kCollatedSortCases));

// ---- Pipeline ----

struct CollatedPipelineCase {
  const char* collation;
  const char* pipeline;
  std::vector<std::string> docs;
  std::vector<std::string> expected;
};

class CollatedPipeline : public ::testing::TestWithParam<CollatedPipelineCase> {};

TEST_P(CollatedPipeline, ShouldRunUnderTheCollation) {
  const CollatedPipelineCase& c = GetParam();
  PipelineOptions options;
  options.expression_context = ContextWith(c.collation);
  Result<std::vector<std::string>> out = testing::RunPipeline(c.pipeline, c.docs, options);
  ASSERT_TRUE(out.ok()) << c.pipeline << ": " << out.status().ToString();
  EXPECT_EQ(*out, testing::C(c.expected)) << c.pipeline;
}

const CollatedPipelineCase kCollatedPipelineCases[] = {
    {kCaseInsensitive,
     R"([{"$match": {"x": "PING"}}])",
     {R"({"_id": 1, "x": "ping"})", R"({"_id": 2, "x": "pong"})"},
     {R"({"_id": 1, "x": "ping"})"}},
    {kNumeric,
     R"([{"$sort": {"x": 1}}])",
     {R"({"x": "10"})", R"({"x": "9"})", R"({"x": "1"})"},
     {R"({"x": "1"})", R"({"x": "9"})", R"({"x": "10"})"}},
    // $group keys equal under the collation are one group, shown as the first seen.
    {kCaseInsensitive,
     R"([{"$group": {"_id": "$x", "n": {"$sum": 1}}}])",
     {R"({"x": "ping"})", R"({"x": "PING"})", R"({"x": "pong"})", R"({"x": "Ping"})"},
     {R"({"_id": "ping", "n": 3})", R"({"_id": "pong", "n": 1})"}},
    {kCaseInsensitive,
     R"([{"$group": {"_id": {"k": "$x"}, "n": {"$sum": 1}}}])",
     {R"({"x": "a"})", R"({"x": "A"})"},
     {R"({"_id": {"k": "a"}, "n": 2})"}},
    // $addToSet keeps one of the values equal under the collation; $min/$max compare under it.
    {kCaseInsensitive,
     R"([{"$group": {"_id": null, "s": {"$addToSet": "$x"}}}])",
     {R"({"x": "a"})", R"({"x": "A"})", R"({"x": "b"})"},
     {R"({"_id": null, "s": ["a", "b"]})"}},
    {kNumeric,
     R"([{"$group": {"_id": null, "lo": {"$min": "$x"}, "hi": {"$max": "$x"}}}])",
     {R"({"x": "9"})", R"({"x": "10"})", R"({"x": "100"})"},
     {R"({"_id": null, "lo": "9", "hi": "100"})"}},
    {kCaseInsensitive,
     R"([{"$project": {"_id": 0, "eq": {"$eq": ["$x", "PING"]}, "cmp": {"$cmp": ["$x", "Pz"]}}}])",
     {R"({"x": "ping"})"},
     {R"({"eq": true, "cmp": -1})"}},
};

INSTANTIATE_TEST_SUITE_P(Collation, CollatedPipeline, ::testing::ValuesIn(kCollatedPipelineCases));

}  // namespace
}  // namespace cairn::query
