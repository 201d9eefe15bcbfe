// Specification of MatchDetails (query/matcher): which array element a match went through
// (MongoDB's elemMatchKey), as the positional "$" of updates and projections uses it. Each case
// is {document, filter, expected key or nullptr for none}; every document matches its filter.
#include <gtest/gtest.h>

#include <string>

#include "query/matcher/matcher.h"

namespace cairn::query {
namespace {

struct Case {
  const char* name;
  const char* doc;
  const char* filter;
  const char* key;  // nullptr: the match records no key
};

class MatchDetailsCases : public ::testing::TestWithParam<Case> {};

TEST_P(MatchDetailsCases, ShouldRecordTheMatchedArrayIndexAsMongoDB) {
  const Case& c = GetParam();
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  BsonDoc filter = BsonDoc::FromJson(c.filter);
  Result<Matcher> matcher = Matcher::Parse(filter.view());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  MatchDetails details;
  details.elem_match_key = "stale";  // Matches resets it
  ASSERT_TRUE(*matcher->Matches(doc.view(), &details)) << c.name;
  EXPECT_EQ(*matcher->Matches(doc.view()), true);
  if (c.key == nullptr) {
    EXPECT_FALSE(details.elem_match_key.has_value()) << c.name << ": " << *details.elem_match_key;
  } else {
    ASSERT_TRUE(details.elem_match_key.has_value()) << c.name;
    EXPECT_EQ(*details.elem_match_key, c.key) << c.name;
  }
}

const Case kCases[] = {
    {"ElementOfAnArray", R"({"a": [1, 2, 3]})", R"({"a": 2})", "1"},
    {"FieldOfAnArrayElement", R"({"a": [{"b": 1}, {"b": 2}]})", R"({"a.b": 2})", "1"},
    {"OutermostArrayWins", R"({"a": [{"b": [5]}, {"b": [1, 2]}]})", R"({"a.b": 2})", "1"},
    {"ArrayInsideAnArray", R"({"a": [[1, 2], [3]]})", R"({"a": [3]})", "1"},
    {"ComparisonOnElements", R"({"a": [1, 5, 10]})", R"({"a": {"$gt": 4}})", "1"},
    {"InOnElements", R"({"a": [1, 5, 10]})", R"({"a": {"$in": [10, 20]}})", "2"},
    {"ScalarFieldRecordsNothing", R"({"a": 5})", R"({"a": 5})", nullptr},
    {"WholeArrayEqualityRecordsNothing", R"({"a": [1, 2]})", R"({"a": [1, 2]})", nullptr},
    {"ExplicitIndexIsNotATraversal", R"({"a": [1, 2]})", R"({"a.1": 2})", nullptr},
    {"ExplicitIndexUnderATraversedArray", R"({"a": [{"b": [1, 2]}, {"b": [3]}]})",
     R"({"a.b.0": 3})", "1"},
    {"ElemMatchObject", R"({"a": [{"b": 1, "c": 1}, {"b": 2, "c": 2}]})",
     R"({"a": {"$elemMatch": {"b": 2, "c": 2}}})", "1"},
    {"ElemMatchValue", R"({"a": [1, 5, 10]})", R"({"a": {"$elemMatch": {"$gt": 4, "$lt": 8}}})",
     "1"},
    {"TraversedArrayOverridesElemMatch", R"({"x": [{"a": [1]}, {"a": [9, 1]}]})",
     R"({"x.a": {"$elemMatch": {"$gt": 7}}})", "1"},
    {"LastRecordingPredicateWins", R"({"a": [1, 2], "b": [3, 4]})", R"({"a": 1, "b": 4})", "1"},
    {"PredicateWithoutArrayKeepsEarlierKey", R"({"a": [1, 2], "b": 3})", R"({"a": 2, "b": 3})",
     "1"},
    {"AndPassesDetailsOn", R"({"a": [1, 2]})", R"({"$and": [{"a": 2}, {"a": {"$gt": 0}}]})", "0"},
    {"OrRecordsNothing", R"({"a": [1, 2]})", R"({"$or": [{"a": 2}, {"b": 1}]})", nullptr},
    {"OneClauseOrIsItsClause", R"({"a": [1, 2]})", R"({"$or": [{"a": 2}]})", "1"},
    {"NorRecordsNothing", R"({"a": [1, 2]})", R"({"$nor": [{"a": 3}]})", nullptr},
    {"NotRecordsNothing", R"({"a": [1, 2]})", R"({"a": {"$not": {"$gt": 5}}})", nullptr},
    {"EmptyFilterRecordsNothing", R"({"a": [1, 2]})", "{}", nullptr},
};

INSTANTIATE_TEST_SUITE_P(MatchDetails, MatchDetailsCases, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(MatchDetails, ShouldClearTheKeyWhenTheDocumentDoesNotMatch) {
  BsonDoc filter = BsonDoc::FromJson(R"({"a": 2, "b": 5})");
  BsonDoc doc = BsonDoc::FromJson(R"({"a": [1, 2], "b": 4})");
  Result<Matcher> matcher = Matcher::Parse(filter.view());
  ASSERT_TRUE(matcher.ok());
  MatchDetails details;
  EXPECT_FALSE(*matcher->Matches(doc.view(), &details));
  EXPECT_FALSE(details.elem_match_key.has_value());
}

}  // namespace
}  // namespace cairn::query
