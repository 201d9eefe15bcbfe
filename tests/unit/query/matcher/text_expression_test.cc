// Specification of query/matcher/text_expression.h: the $text clause the matcher keeps for the
// server's text search (its arguments, matching every document it is shown) and where MongoDB
// allows it: top level or under $and, once; "Too many text expressions", "text expression not
// allowed in nor", and the planner's refusal under $or.
#include "query/matcher/text_expression.h"

#include <gtest/gtest.h>

#include "query/matcher/matcher.h"

namespace cairn::query {
namespace {

Result<const TextMatchExpression*> Clause(const Matcher& matcher) {
  return FindTextClause(matcher.root());
}

TEST(TextExpression, ShouldKeepItsArgumentsAndLeaveTheDecisionToTheTextSearch) {
  Result<Matcher> matcher = Matcher::Parse(
      BsonDoc::FromJson(
          R"({"$text": {"$search": "tea -cake", "$language": "es", "$caseSensitive": true},
          "a": 1})")
          .view());
  ASSERT_TRUE(matcher.ok()) << matcher.status().reason();
  Result<const TextMatchExpression*> text = Clause(*matcher);
  ASSERT_TRUE(text.ok());
  ASSERT_NE(*text, nullptr);
  EXPECT_EQ((*text)->search(), "tea -cake");
  EXPECT_EQ((*text)->language(), "es");
  EXPECT_TRUE((*text)->case_sensitive());
  EXPECT_FALSE((*text)->diacritic_sensitive());
  EXPECT_TRUE(*matcher->Matches(BsonDoc::FromJson(R"({"a": 1})").view()));
  EXPECT_FALSE(*matcher->Matches(BsonDoc::FromJson(R"({"a": 2})").view()));
}

TEST(TextExpression, ShouldBeAllowedOnlyOnceAndNotUnderOrOrNor) {
  struct Case {
    const char* filter;
    ErrorCode code;  // kOK: allowed
  } cases[] = {
      {R"({"a": 1})", ErrorCode::kOK},
      {R"({"$and": [{"$text": {"$search": "x"}}, {"a": 1}]})", ErrorCode::kOK},
      {R"({"$and": [{"$text": {"$search": "x"}}, {"$text": {"$search": "y"}}]})",
       ErrorCode::kBadValue},
      {R"({"$nor": [{"$text": {"$search": "x"}}]})", ErrorCode::kBadValue},
      {R"({"$or": [{"$text": {"$search": "x"}}, {"a": 1}]})", ErrorCode::kNoQueryExecutionPlans},
  };
  for (const Case& c : cases) {
    Result<Matcher> matcher = Matcher::Parse(BsonDoc::FromJson(c.filter).view());
    ASSERT_TRUE(matcher.ok()) << c.filter;
    Result<const TextMatchExpression*> text = Clause(*matcher);
    EXPECT_EQ(text.ok() ? ErrorCode::kOK : text.status().code(), c.code) << c.filter;
  }
}

}  // namespace
}  // namespace cairn::query
