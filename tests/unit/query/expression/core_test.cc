// The expression language's core: constants, field paths (through arrays), variables ($$ROOT,
// $$CURRENT, $$REMOVE, $$NOW, command `let`), objects and arrays of expressions, operator
// objects, parse-time folding, and MongoDB's parse errors.
#include <gtest/gtest.h>

#include "query/expression/operator.h"
#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

const Case kCoreCases[] = {
    // Constants.
    {R"(1)", "{}", R"({"r": 1})"},
    {R"("abc")", "{}", R"({"r": "abc"})"},
    {R"(null)", "{}", R"({"r": null})"},
    {R"({"$literal": "$a"})", "{}", R"({"r": "$a"})"},
    {R"({"$literal": {"$add": 1}})", "{}", R"({"r": {"$add": 1}})"},
    {R"({"$const": [1, "$x"]})", "{}", R"({"r": [1, "$x"]})"},
    // Field paths.
    {R"("$a")", R"({"a": 5})", R"({"r": 5})"},
    {R"("$a")", R"({"b": 5})", R"({})"},
    {R"("$a.b")", R"({"a": {"b": "x"}})", R"({"r": "x"})"},
    {R"("$a.b")", R"({"a": 1})", R"({})"},
    {R"("$a.b")", R"({"a": [{"b": 1}, {"c": 2}, 3, {"b": [4]}]})", R"({"r": [1, [4]]})"},
    {R"("$a.b.c")", R"({"a": [{"b": [{"c": 1}, {"c": 2}]}, {"b": {"c": 3}}]})",
     R"({"r": [[1, 2], 3]})"},
    {R"("$a.0")", R"({"a": [10, 20]})", R"({"r": []})"},
    {R"("$a.0")", R"({"a": {"0": "zero"}})", R"({"r": "zero"})"},
    {R"("$$ROOT")", R"({"a": 1})", R"({"r": {"a": 1}})"},
    {R"("$$CURRENT.a")", R"({"a": 1})", R"({"r": 1})"},
    {R"("$$ROOT.a.b")", R"({"a": [{"b": 1}]})", R"({"r": [1]})"},
    {R"("$$REMOVE")", R"({"a": 1})", R"({})"},
    {R"({"$ifNull": ["$$REMOVE", "gone"]})", "{}", R"({"r": "gone"})"},
    {R"("$$NOW")", "{}", R"({"r": {"$date": {"$numberLong": "1700000000000"}}})"},
    // Objects and arrays of expressions.
    {R"({"a": "$x", "b": {"c": "$y"}})", R"({"x": 1, "y": 2})",
     R"({"r": {"a": 1, "b": {"c": 2}}})"},
    {R"({"a": "$missing", "b": 1})", R"({})", R"({"r": {"b": 1}})"},
    {R"({})", R"({})", R"({"r": {}})"},
    {R"(["$x", "$missing", 3])", R"({"x": 1})", R"({"r": [1, null, 3]})"},
    {R"([])", R"({})", R"({"r": []})"},
    {R"({"a": {"$add": ["$x", 1]}})", R"({"x": 1})", R"({"r": {"a": 2}})"},
    // Parse errors.
    {R"("$")", "{}", nullptr, 16872, "'$' by itself is not a valid FieldPath"},
    {R"("$a.")", "{}", nullptr, 40353, "FieldPath must not end with a '.'."},
    {R"("$a..b")", "{}", nullptr, 15998, "FieldPath field names may not be empty strings."},
    {R"("$a.$b")", "{}", nullptr, 16410,
     "FieldPath field names may not start with '$'. Consider using $getField or $setField."},
    {R"({"$add": [1], "$sub": 1})", "{}", nullptr, 15983,
     "An object representing an expression must have exactly one field: { $add: [ 1 ], $sub: 1 }"},
    {R"({"$bogus": 1})", "{}", nullptr, 168, "Unrecognized expression '$bogus'"},
    {R"({"a": {"$bogus": 1}})", "{}", nullptr, 168, "Unrecognized expression '$bogus'"},
    {R"({"$sin": "$d"})", "{}", nullptr, 2, "The expression $sin is not supported by Cairn yet"},
    {R"({"$bitAnd": {}})", "{}", nullptr, 2,
     "The expression $bitAnd is not supported by Cairn yet"},
    {R"({"a": 1, "$b": 2})", "{}", nullptr, 16410},
    {R"({"a.b": 1})", "{}", nullptr, 16412},
    {R"({"": 1})", "{}", nullptr, 15998},
    {R"({"a": 1, "a": 2})", "{}", nullptr, 16406,
     "duplicate field name specified in object literal: { a: 1, a: 2 }"},
    {R"("$$foo")", "{}", nullptr, 17276, "Use of undefined variable: foo"},
    {R"("$$")", "{}", nullptr, 9, "empty variable names are not allowed"},
    {R"("$$1x")", "{}", nullptr, 9,
     "'1x' starts with an invalid character for a user variable name"},
    {R"("$$a-b")", "{}", nullptr, 9,
     "'a-b' contains an invalid character for a variable name: '-'"},
    {R"("$$CLUSTER_TIME")", "{}", nullptr, 51144},
    // Arity.
    {R"({"$not": [1, 2]})", "{}", nullptr, 16020,
     "Expression $not takes exactly 1 arguments. 2 were passed in."},
    {R"({"$round": [1, 2, 3]})", "{}", nullptr, 28667,
     "Expression $round takes at least 1 arguments, and at most 2, but 3 were passed in."},
    {R"({"$substr": ["a", 1]})", "{}", nullptr, 16020,
     "Expression $substrBytes takes exactly 3 arguments. 2 were passed in."},
    // Constant operands fold at parse time, so their errors surface with no document read.
    {R"({"$cond": [true, 1, {"$divide": [1, 0]}]})", "{}", nullptr, 2, "can't $divide by zero"},
    {R"({"$add": [1, 2]})", "{}", R"({"r": 3})"},
};

CAIRN_EXPRESSION_CASES(Core, kCoreCases);

TEST(ExpressionRegistry, ShouldKeepItsTablesSortedAndDisjoint) {
  EXPECT_TRUE(ops::OperatorTablesAreSorted());
  EXPECT_TRUE(IsKnownExpressionOperator("$add"));
  EXPECT_TRUE(IsKnownExpressionOperator("$dateToString"));
  EXPECT_FALSE(IsKnownExpressionOperator("$adds"));
}

TEST(ExpressionVariables, ShouldReadCommandLetVariables) {
  Evaluated got =
      Evaluate(R"({"$concat": ["$$x", "-", "$$y.z"]})", R"({})", R"({"x": "a", "y": {"z": "b"}})");
  ASSERT_TRUE(got.status.ok()) << got.status.ToString();
  EXPECT_EQ(Canonical(got.result.view()), R"({ "r" : "a-b" })");
}

TEST(ExpressionVariables, ShouldLetLaterCommandVariablesReadEarlierOnes) {
  Evaluated got = Evaluate(R"("$$b")", R"({})", R"({"a": 2, "b": {"$multiply": ["$$a", 3]}})");
  ASSERT_TRUE(got.status.ok()) << got.status.ToString();
  EXPECT_EQ(Canonical(got.result.view()), R"({ "r" : { "$numberInt" : "6" } })");
}

TEST(ExpressionVariables, ShouldRefuseCommandLetThatReadsADocument) {
  Evaluated got = Evaluate(R"(1)", R"({})", R"({"a": "$x"})");
  EXPECT_EQ(got.status.code_number(), 4890500);
  got = Evaluate(R"(1)", R"({})", R"({"a": "$$ROOT"})");
  EXPECT_EQ(got.status.code_number(), 4890500);
}

TEST(ExpressionVariables, ShouldRefuseBadCommandLetNames) {
  Evaluated got = Evaluate(R"(1)", R"({})", R"({"Bad": 1})");
  EXPECT_EQ(got.status.code_number(), 9);
  EXPECT_EQ(got.status.reason(),
            "Invalid 'let' parameter :: caused by :: 'Bad' starts with an invalid character for "
            "a user variable name");
  got = Evaluate(R"(1)", R"({})", R"({"NOW": 1})");
  EXPECT_EQ(got.status.code_number(), 4738901);
}

TEST(ExpressionVariables, ShouldLetInnerScopesShadowCommandVariables) {
  Evaluated got = Evaluate(R"({"$let": {"vars": {"x": 2}, "in": "$$x"}})", R"({})", R"({"x": 1})");
  ASSERT_TRUE(got.status.ok()) << got.status.ToString();
  EXPECT_EQ(Canonical(got.result.view()), R"({ "r" : { "$numberInt" : "2" } })");
}

TEST(ExpressionVariables, ShouldRebindCurrent) {
  Evaluated got =
      Evaluate(R"({"$let": {"vars": {"CURRENT": "$inner"}, "in": {"$add": ["$a", "$$ROOT.a"]}}})",
               R"({"a": 1, "inner": {"a": 10}})");
  ASSERT_TRUE(got.status.ok()) << got.status.ToString();
  EXPECT_EQ(Canonical(got.result.view()), R"({ "r" : { "$numberInt" : "11" } })");
}

TEST(ExpressionValues, ShouldNotCopyFieldPathResults) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": {"b": "long string value here"}})");
  BsonDoc expr = BsonDoc::FromJson(R"({"e": "$a.b"})");
  ParseContext ctx;
  bson_iter_t it;
  expr.view().Init(&it);
  bson_iter_next(&it);
  auto parsed = ParseOperand(&it, ctx);
  ASSERT_TRUE(parsed.ok());
  Variables vars(ctx.num_slots());
  vars.SetRoot(doc.view());
  auto value = (*parsed)->Evaluate(&vars);
  ASSERT_TRUE(value.ok());
  // The string is read in place from the document's bytes.
  const char* begin = reinterpret_cast<const char*>(doc.view().data());
  EXPECT_GE(value->string().data(), begin);
  EXPECT_LT(value->string().data(), begin + doc.view().size());
}

}  // namespace
}  // namespace cairn::query::testing
