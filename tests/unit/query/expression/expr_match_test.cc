// $expr in query filters (query/matcher/ops/expr.cc): truthiness of the expression against each
// document, the command's `let` variables, and evaluation errors reported by Matches.
#include <gtest/gtest.h>

#include "query/expression/expression.h"
#include "query/matcher/matcher.h"

namespace cairn::query {
namespace {

Matcher Parse(const char* filter, const char* let = "{}") {
  BsonDoc f = BsonDoc::FromJson(filter);
  BsonDoc l = BsonDoc::FromJson(let);
  auto context = ExpressionContext::Make(l.view());
  EXPECT_TRUE(context.ok());
  auto matcher = Matcher::Parse(f.view(), *context);
  EXPECT_TRUE(matcher.ok()) << matcher.status().ToString();
  return std::move(matcher).value();
}

bool Matches(const Matcher& m, const char* doc) {
  BsonDoc d = BsonDoc::FromJson(doc);
  return *m.Matches(d.view());
}

TEST(ExprMatch, ShouldMatchWhenTheExpressionIsTruthy) {
  Matcher m = Parse(R"({"$expr": {"$gt": ["$a", "$b"]}})");
  EXPECT_TRUE(Matches(m, R"({"a": 2, "b": 1})"));
  EXPECT_FALSE(Matches(m, R"({"a": 1, "b": 2})"));
  EXPECT_TRUE(Matches(m, R"({"a": 1})"));  // 1 > missing
  Matcher truthy = Parse(R"({"$expr": "$flag"})");
  EXPECT_TRUE(Matches(truthy, R"({"flag": "yes"})"));
  EXPECT_FALSE(Matches(truthy, R"({"flag": 0})"));
  EXPECT_FALSE(Matches(truthy, R"({})"));
}

TEST(ExprMatch, ShouldCombineWithOtherClauses) {
  Matcher m = Parse(R"({"x": 1, "$expr": {"$eq": [{"$size": "$arr"}, 2]}})");
  EXPECT_TRUE(Matches(m, R"({"x": 1, "arr": [1, 2]})"));
  EXPECT_FALSE(Matches(m, R"({"x": 2, "arr": [1, 2]})"));
  Matcher in_or = Parse(R"({"$or": [{"$expr": {"$eq": ["$a", 5]}}, {"b": 1}]})");
  EXPECT_TRUE(Matches(in_or, R"({"a": 5})"));
}

TEST(ExprMatch, ShouldReadCommandLetVariables) {
  Matcher m = Parse(R"({"$expr": {"$eq": ["$_id", "$$id"]}})", R"({"id": 7})");
  EXPECT_TRUE(Matches(m, R"({"_id": 7})"));
  EXPECT_FALSE(Matches(m, R"({"_id": 8})"));
}

TEST(ExprMatch, ShouldRefuseUndefinedVariablesAndBadExpressions) {
  BsonDoc f = BsonDoc::FromJson(R"({"$expr": {"$eq": ["$_id", "$$id"]}})");
  auto matcher = Matcher::Parse(f.view());
  ASSERT_FALSE(matcher.ok());
  EXPECT_EQ(matcher.status().code_number(), 17276);
  BsonDoc g = BsonDoc::FromJson(R"({"a": {"$elemMatch": {"$expr": {"$eq": [1, 1]}}}})");
  EXPECT_EQ(Matcher::Parse(g.view()).status().code(), ErrorCode::kBadValue);
}

TEST(ExprMatch, ShouldReportEvaluationErrorsThroughMatches) {
  Matcher m = Parse(R"({"$expr": {"$gt": [{"$divide": [1, "$d"]}, 0]}})");
  BsonDoc zero = BsonDoc::FromJson(R"({"d": 0})");
  Result<bool> result = m.Matches(zero.view());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().reason(), "can't $divide by zero");
  BsonDoc two = BsonDoc::FromJson(R"({"d": 2})");
  ASSERT_TRUE(m.Matches(two.view()).ok());
  EXPECT_TRUE(*m.Matches(two.view()));
}

}  // namespace
}  // namespace cairn::query
