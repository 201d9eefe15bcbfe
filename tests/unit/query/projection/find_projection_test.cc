// Specification of find's projection operators (query/projection, Projection::ParseFind): $slice
// (number and [skip, limit], on nested paths and through arrays of documents), $elemMatch (the
// first matching element of a top-level array) and the positional `field.$` (the element the
// query matched), how they combine with inclusion and exclusion, and MongoDB's errors; their
// refusal by aggregation's Parse; and computed fields — aggregation expressions, field paths and
// literals as field values, where they land in the output (after the included fields, in spec
// order; in place of a scalar on their path), the aggregation form of $slice, the command's
// `let` variables, and the errors for mixing them with exclusions. Each case is {document,
// query, projection, expected document or error code + message}.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/projection/projection.h"
#include "tests/unit/query/bson_test_util.h"

namespace cairn::query {
namespace {

using testing::Canonical;
using testing::ExpectError;

struct Case {
  const char* name;
  const char* doc;
  const char* query;
  const char* projection;
  const char* expected;  // nullptr: an error from ParseFind or Apply
  int code = 0;
  const char* message = nullptr;
};

// The command's context: `let` {v: 5, s: "str"} and a fixed $$NOW.
std::shared_ptr<const ExpressionContext> CommandContext() {
  BsonDoc let = BsonDoc::FromJson(R"({"v": 5, "s": "str"})");
  auto context = ExpressionContext::MakeAt(1700000000000, let.view());
  EXPECT_TRUE(context.ok()) << context.status().ToString();
  return std::move(context).value();
}

class FindProjectionCases : public ::testing::TestWithParam<Case> {};

TEST_P(FindProjectionCases, ShouldProjectAsMongoDBFind) {
  const Case& c = GetParam();
  BsonDoc query_spec = BsonDoc::FromJson(c.query);
  Result<Matcher> query = Matcher::Parse(query_spec.view());
  ASSERT_TRUE(query.ok()) << query.status().ToString();
  BsonDoc spec = BsonDoc::FromJson(c.projection);
  Result<Projection> projection = Projection::ParseFind(
      spec.view(), std::make_shared<const Matcher>(std::move(query).value()), CommandContext());
  Status status = projection.status();
  BsonDoc out;
  if (projection.ok()) {
    BsonDoc doc = BsonDoc::FromJson(c.doc);
    status = projection->Apply(doc.view(), out.get());
  }
  if (c.expected == nullptr) {
    ExpectError(status, c.code, c.message, std::string(c.name) + " gave " + out.ToJson());
    return;
  }
  ASSERT_TRUE(status.ok()) << c.name << ": " << status.ToString();
  EXPECT_EQ(Canonical(out.view()), Canonical(BsonDoc::FromJson(c.expected).view())) << c.name;
}

constexpr const char* kArray = R"({"_id": 1, "a": [1, 2, 3, 4], "b": 5})";

const Case kSliceCases[] = {
    {"FirstN", kArray, "{}", R"({"a": {"$slice": 2}})", R"({"_id": 1, "a": [1, 2], "b": 5})"},
    {"LastN", kArray, "{}", R"({"a": {"$slice": -2}})", R"({"_id": 1, "a": [3, 4], "b": 5})"},
    {"MoreThanTheArrayKeepsAll", kArray, "{}", R"({"a": {"$slice": 10}})", kArray},
    {"SkipAndLimit", kArray, "{}", R"({"a": {"$slice": [1, 2]}})",
     R"({"_id": 1, "a": [2, 3], "b": 5})"},
    {"NegativeSkipCountsFromTheEnd", kArray, "{}", R"({"a": {"$slice": [-3, 2]}})",
     R"({"_id": 1, "a": [2, 3], "b": 5})"},
    {"NegativeSkipPastTheStart", kArray, "{}", R"({"a": {"$slice": [-10, 2]}})",
     R"({"_id": 1, "a": [1, 2], "b": 5})"},
    {"SkipPastTheEnd", kArray, "{}", R"({"a": {"$slice": [5, 2]}})",
     R"({"_id": 1, "a": [], "b": 5})"},
    {"DoublesAreTruncated", kArray, "{}", R"({"a": {"$slice": [1.9, 2.8]}})",
     R"({"_id": 1, "a": [2, 3], "b": 5})"},
    {"NaNIsZero", kArray, "{}", R"({"a": {"$slice": {"$numberDouble": "NaN"}}})",
     R"({"_id": 1, "a": [], "b": 5})"},
    {"NonArrayIsKept", kArray, "{}", R"({"b": {"$slice": 1}})", kArray},
    {"AloneIsAnExclusion", R"({"_id": 1, "a": [1, 2], "c": 3})", "{}", R"({"a": {"$slice": 1}})",
     R"({"_id": 1, "a": [1], "c": 3})"},
    {"WithIdIncludedIsAnInclusion", R"({"_id": 1, "a": [1, 2], "c": 3})", "{}",
     R"({"_id": 1, "a": {"$slice": 1}})", R"({"_id": 1, "a": [1]})"},
    {"WithAnInclusion", R"({"_id": 1, "a": [1, 2], "b": 5, "c": 3})", "{}",
     R"({"b": 1, "a": {"$slice": 1}})", R"({"_id": 1, "a": [1], "b": 5})"},
    {"WithAnExclusion", R"({"_id": 1, "a": [1, 2], "b": 5, "c": 3})", "{}",
     R"({"b": 0, "a": {"$slice": -1}})", R"({"_id": 1, "a": [2], "c": 3})"},
    {"NestedInAnInclusionKeepsOnlyThePath",
     R"({"_id": 1, "qty": 100, "details": {"colors": ["blue", "red"], "sizes": ["S", "M"]}})", "{}",
     R"({"qty": 1, "details.colors": {"$slice": 1}})",
     R"({"_id": 1, "qty": 100, "details": {"colors": ["blue"]}})"},
    {"NestedInAnExclusionKeepsTheRest",
     R"({"_id": 1, "qty": 100, "details": {"colors": ["blue", "red"], "sizes": ["S", "M"]}})", "{}",
     R"({"_id": 0, "details.colors": {"$slice": 1}})",
     R"({"qty": 100, "details": {"colors": ["blue"], "sizes": ["S", "M"]}})"},
    {"InASubProjection", R"({"_id": 1, "d": {"c": [1, 2], "s": 1}})", "{}",
     R"({"d": {"c": {"$slice": -1}}})", R"({"_id": 1, "d": {"c": [2], "s": 1}})"},
    {"ThroughAnArrayOfDocuments", R"({"_id": 1, "a": [{"b": [1, 2]}, {"b": [3, 4]}, 5]})", "{}",
     R"({"a.b": {"$slice": 1}})", R"({"_id": 1, "a": [{"b": [1]}, {"b": [3]}, 5]})"},
    {"NotInsideNestedArrays", R"({"_id": 1, "a": [[{"b": [1, 2]}]]})", "{}",
     R"({"a.b": {"$slice": 1}})", R"({"_id": 1, "a": [[{"b": [1, 2]}]]})"},
    {"MissingFieldStaysMissing", R"({"_id": 1})", "{}", R"({"a": {"$slice": 1}})", R"({"_id": 1})"},
    {"PathCollision", kArray, "{}", R"({"a": 1, "a.b": {"$slice": 1}})", nullptr, 31249},
    {"WrongSizeArray", kArray, "{}", R"({"a": {"$slice": [1]}})", nullptr, 28667,
     "Invalid $slice syntax. The given syntax { $slice: [ 1 ] } did not match the find() syntax "
     "because :: Location31272: $slice array argument should be of form [skip, limit] :: The "
     "given syntax did not match the expression $slice syntax. :: caused by :: Expression $slice "
     "takes at least 2 arguments, and at most 3, but 1 were passed in."},
    {"NotANumberOrArray", kArray, "{}", R"({"a": {"$slice": "x"}})", nullptr, 28667,
     "Invalid $slice syntax. The given syntax { $slice: \"x\" } did not match the find() syntax "
     "because :: Location31273: $slice only supports numbers and [skip, limit] arrays :: The "
     "given syntax did not match the expression $slice syntax. :: caused by :: Expression $slice "
     "takes at least 2 arguments, and at most 3, but 1 were passed in."},
    {"NonPositiveLimitIsAnExpressionOnALiteral", kArray, "{}", R"({"a": {"$slice": [3, -2]}})",
     nullptr, 28724, "First argument to $slice must be an array, but is of type: int"},
    {"StringSkipIsAnExpressionOnALiteral", kArray, "{}", R"({"a": {"$slice": ["s", 5]}})", nullptr,
     28724, "First argument to $slice must be an array, but is of type: string"},
};

INSTANTIATE_TEST_SUITE_P(Slice, FindProjectionCases, ::testing::ValuesIn(kSliceCases),
                         [](const auto& info) { return std::string(info.param.name); });

constexpr const char* kGames =
    R"({"_id": 1, "games": [{"g": 1, "s": 3}, {"g": 2, "s": 8}, {"g": 3, "s": 9}], "joined": 7, "last": 8})";

const Case kElemMatchCases[] = {
    {"FirstMatchingElementOnly", kGames, "{}", R"({"games": {"$elemMatch": {"s": {"$gt": 5}}}})",
     R"({"_id": 1, "games": [{"g": 2, "s": 8}]})"},
    {"AfterTheIncludedFields", kGames, "{}",
     R"({"games": {"$elemMatch": {"s": {"$gt": 5}}}, "joined": 1, "last": 1})",
     R"({"_id": 1, "joined": 7, "last": 8, "games": [{"g": 2, "s": 8}]})"},
    {"NoMatchOmitsTheField", kGames, "{}", R"({"games": {"$elemMatch": {"s": 100}}})",
     R"({"_id": 1})"},
    {"IsAnInclusionEvenWithIdExcluded", kGames, "{}",
     R"({"_id": 0, "games": {"$elemMatch": {"g": 3}}})", R"({"games": [{"g": 3, "s": 9}]})"},
    {"InAnExclusionReplacesInPlace", kGames, "{}",
     R"({"last": 0, "games": {"$elemMatch": {"g": 3}}})",
     R"({"_id": 1, "games": [{"g": 3, "s": 9}], "joined": 7})"},
    {"InAnExclusionWithoutMatchRemoves", kGames, "{}",
     R"({"last": 0, "games": {"$elemMatch": {"g": 30}}})", R"({"_id": 1, "joined": 7})"},
    {"ValueForm", R"({"_id": 1, "a": [1, 5, 10]})", "{}", R"({"a": {"$elemMatch": {"$gt": 4}}})",
     R"({"_id": 1, "a": [5]})"},
    {"NonArrayOmitsTheField", R"({"_id": 1, "a": 5})", "{}", R"({"a": {"$elemMatch": {"$gt": 4}}})",
     R"({"_id": 1})"},
    {"ObjectRequired", kGames, "{}", R"({"games": {"$elemMatch": 1}})", nullptr, 31274,
     "elemMatch: Invalid argument, object required, but got int"},
    {"NotOnANestedPath", kGames, "{}", R"({"a.b": {"$elemMatch": {"x": 1}}})", nullptr, 31275,
     "Cannot use $elemMatch projection on a nested field."},
    {"NotInASubProjection", kGames, "{}", R"({"a": {"b": {"$elemMatch": {"x": 1}}}})", nullptr,
     31275, "Cannot use $elemMatch projection on a nested field."},
    {"MatcherErrorsPassThrough", kGames, "{}", R"({"games": {"$elemMatch": {"s": {"$in": 1}}}})",
     nullptr, 2, "$in needs an array"},
};

INSTANTIATE_TEST_SUITE_P(ElemMatch, FindProjectionCases, ::testing::ValuesIn(kElemMatchCases),
                         [](const auto& info) { return std::string(info.param.name); });

constexpr const char* kGrades =
    R"({"_id": 1, "grades": [{"g": 80, "m": 75}, {"g": 85, "m": 90}, {"g": 90, "m": 85}], "x": 1})";

const Case kPositionalCases[] = {
    {"TheMatchedElement", kGrades, R"({"grades.m": 90})", R"({"grades.$": 1})",
     R"({"_id": 1, "grades": [{"g": 85, "m": 90}]})"},
    {"WithOtherInclusions", kGrades, R"({"grades.g": {"$gte": 90}})", R"({"x": 1, "grades.$": 1})",
     R"({"_id": 1, "grades": [{"g": 90, "m": 85}], "x": 1})"},
    {"ScalarArray", R"({"_id": 1, "a": [1, 2, 3]})", R"({"a": {"$gt": 1}})", R"({"a.$": 1})",
     R"({"_id": 1, "a": [2]})"},
    {"NestedPathTakesTheFirstArray", R"({"_id": 1, "a": {"b": [1, 2, 3]}})", R"({"a.b": 3})",
     R"({"a.b.$": 1})", R"({"_id": 1, "a": {"b": [3]}})"},
    {"ElemMatchQuery", kGrades, R"({"grades": {"$elemMatch": {"g": 85}}})", R"({"grades.$": 1})",
     R"({"_id": 1, "grades": [{"g": 85, "m": 90}]})"},
    {"NoArrayKeepsTheValue", R"({"_id": 1, "a": 5})", R"({"a": 5})", R"({"a.$": 1})",
     R"({"_id": 1, "a": 5})"},
    {"NoMatchedElementFails", R"({"_id": 1, "a": [1, 2], "b": 1})",
     R"({"$or": [{"a": 1}, {"b": 1}]})", R"({"a.$": 1})", nullptr, 51246,
     "positional operator '.$' couldn't find a matching element in the array"},
    {"QueryMustMentionTheField", kGrades, R"({"x": 1})", R"({"grades.$": 1})", nullptr, 31277,
     "Positional projection 'grades.$' does not match the query document."},
    {"QueryInsideAndCounts", kGrades, R"({"$and": [{"grades.m": 90}]})", R"({"grades.$": 1})",
     R"({"_id": 1, "grades": [{"g": 85, "m": 90}]})"},
    {"OnlyOnePositional", kGrades, R"({"grades.m": 90, "x": 1})", R"({"grades.$": 1, "x.$": 1})",
     nullptr, 31276, "Cannot specify more than one positional projection per query."},
    {"NotWithElemMatchAfter", kGrades, R"({"grades.m": 90})",
     R"({"grades.$": 1, "y": {"$elemMatch": {"a": 1}}})", nullptr, 31255,
     "Cannot specify positional operator and $elemMatch."},
    {"NotWithElemMatchBefore", kGrades, R"({"grades.m": 90})",
     R"({"y": {"$elemMatch": {"a": 1}}, "grades.$": 1})", nullptr, 31256,
     "Cannot specify positional operator and $elemMatch."},
    {"NotWithASubObject", kGrades, R"({"grades.m": 90})", R"({"grades.$": {"$slice": 1}})", nullptr,
     31271, "positional projection cannot be used with an expression or sub object"},
    {"NotWithALiteral", kGrades, R"({"grades.m": 90})", R"({"grades.$": "x"})", nullptr, 31308,
     "positional projection cannot be used with a literal"},
    {"NotTwiceInOnePath", kGrades, R"({"grades.m": 90})", R"({"grades.$.$": 1})", nullptr, 31287,
     "Cannot use positional operator twice: grades.$.$"},
    {"NotInAnExclusion", kGrades, R"({"grades.m": 90})", R"({"x": 0, "grades.$": 1})", nullptr,
     31253, "Cannot do inclusion on field grades.$ in exclusion projection"},
    {"ExcludingAPositionalPathIsAFieldPathError", kGrades, R"({"grades.m": 90})",
     R"({"grades.$": 0})", nullptr, 16410},
    {"CollidesWithTheSamePath", kGrades, R"({"grades.m": 90})", R"({"grades.$": 1, "grades": 1})",
     nullptr, 31250},
};

INSTANTIATE_TEST_SUITE_P(Positional, FindProjectionCases, ::testing::ValuesIn(kPositionalCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(AggregationProjection, ShouldRefuseTheFindOnlyOperators) {
  BsonDoc positional = BsonDoc::FromJson(R"({"a.$": 1})");
  Result<Projection> p = Projection::Parse(positional.view());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code_number(), 31324);
  EXPECT_EQ(p.status().reason(), "Cannot use positional projection in aggregation projection");

  BsonDoc elem_match = BsonDoc::FromJson(R"({"a": {"$elemMatch": {"b": 1}}})");
  Result<Projection> e = Projection::Parse(elem_match.view());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code_number(), 168);
  EXPECT_EQ(e.status().reason(), "Cannot use $elemMatch in this context");
}

constexpr const char* kDoc = R"({"_id": 1, "a": 2, "b": {"c": 3}, "s": "x", "z": 9})";

const Case kComputedCases[] = {
    {"Operator", kDoc, "{}", R"({"x": {"$add": ["$a", 1]}})", R"({"_id": 1, "x": 3})"},
    {"FieldPath", kDoc, "{}", R"({"x": "$b.c"})", R"({"_id": 1, "x": 3})"},
    {"Literal", kDoc, "{}", R"({"x": {"$literal": 1}})", R"({"_id": 1, "x": 1})"},
    {"StringIsALiteral", kDoc, "{}", R"({"x": "hello"})", R"({"_id": 1, "x": "hello"})"},
    {"NullIsALiteral", kDoc, "{}", R"({"x": null})", R"({"_id": 1, "x": null})"},
    {"ArrayOfExpressions", kDoc, "{}", R"({"x": ["$a", "$b.c", 7]})",
     R"({"_id": 1, "x": [2, 3, 7]})"},
    {"ExpressionObject", kDoc, "{}", R"({"x": {"$add": [1, 2]}, "y": {"$concat": ["$s", "!"]}})",
     R"({"_id": 1, "x": 3, "y": "x!"})"},
    {"SubProjectionOfComputedFields", kDoc, "{}", R"({"x": {"y": "$a", "w": {"$literal": 0}}})",
     R"({"_id": 1, "x": {"y": 2, "w": 0}})"},
    {"DottedComputedPath", kDoc, "{}", R"({"x.y": "$a"})", R"({"_id": 1, "x": {"y": 2}})"},
    {"MissingValueOmitsTheField", kDoc, "{}", R"({"x": "$nope"})", R"({"_id": 1})"},
    {"RemoveOmitsTheField", kDoc, "{}", R"({"x": "$$REMOVE"})", R"({"_id": 1})"},
    {"AfterTheIncludedFieldsInSpecOrder", kDoc, "{}", R"({"y": "$a", "z": 1, "x": "$s"})",
     R"({"_id": 1, "z": 9, "y": 2, "x": "x"})"},
    {"ReplacesAnExistingFieldName", kDoc, "{}", R"({"a": {"$multiply": ["$a", 10]}, "z": 1})",
     R"({"_id": 1, "z": 9, "a": 20})"},
    {"IdExcluded", kDoc, "{}", R"({"_id": 0, "x": "$a"})", R"({"x": 2})"},
    {"ComputedIdComesWithTheComputedFields", kDoc, "{}", R"({"_id": "$a", "z": 1})",
     R"({"z": 9, "_id": 2})"},
    {"ReadsTheOriginalDocument", kDoc, "{}", R"({"a": {"$add": ["$a", 1]}, "y": "$a"})",
     R"({"_id": 1, "a": 3, "y": 2})"},
    {"NestedIntoAnEmbeddedDocument", kDoc, "{}", R"({"b.d": "$a"})",
     R"({"_id": 1, "b": {"d": 2}})"},
    {"NestedBesideAnInclusion", kDoc, "{}", R"({"b.c": 1, "b.d": "$a"})",
     R"({"_id": 1, "b": {"c": 3, "d": 2}})"},
    {"ScalarOnThePathBecomesADocumentInPlace", R"({"_id": 1, "a": 5, "z": 1, "x": 2})", "{}",
     R"({"z": 1, "a.b": 1, "a.c": "$x"})", R"({"_id": 1, "a": {"c": 2}, "z": 1})"},
    {"IntoEveryArrayElement", R"({"_id": 1, "a": [1, {"b": 2}, [3]], "x": 4})", "{}",
     R"({"a.c": "$x"})", R"({"_id": 1, "a": [{"c": 4}, {"c": 4}, [{"c": 4}]]})"},
    {"ArrayElementsKeepTheirInclusions", R"({"_id": 1, "a": [{"b": 1, "d": 0}, 7], "x": 4})", "{}",
     R"({"a.b": 1, "a.c": "$x"})", R"({"_id": 1, "a": [{"b": 1, "c": 4}, {"c": 4}]})"},
    {"LetVariable", kDoc, "{}", R"({"x": "$$v", "y": {"$concat": ["$$s", "$s"]}})",
     R"({"_id": 1, "x": 5, "y": "strx"})"},
    {"Now", kDoc, "{}", R"({"t": "$$NOW"})",
     R"({"_id": 1, "t": {"$date": {"$numberLong": "1700000000000"}}})"},
    {"Root", R"({"_id": 1, "a": 2})", "{}", R"({"_id": 0, "r": "$$ROOT"})",
     R"({"r": {"_id": 1, "a": 2}})"},
    {"LetExpression", kDoc, "{}",
     R"({"x": {"$let": {"vars": {"t": {"$add": ["$a", 1]}}, "in": {"$multiply": ["$$t", 2]}}}})",
     R"({"_id": 1, "x": 6})"},
    {"EvaluationErrorFailsTheDocument", kDoc, "{}", R"({"x": {"$add": ["$s", 1]}})", nullptr, 14,
     "$add only supports numeric or date types, not string"},
};

INSTANTIATE_TEST_SUITE_P(Computed, FindProjectionCases, ::testing::ValuesIn(kComputedCases),
                         [](const auto& info) { return std::string(info.param.name); });

const Case kMixingCases[] = {
    {"LiteralAfterAnExclusion", kDoc, "{}", R"({"a": 0, "x": "$b"})", nullptr, 31310,
     "Cannot use an expression x: \"$b\" in an exclusion projection"},
    {"OperatorAfterAnExclusion", kDoc, "{}", R"({"a": 0, "x": {"$add": [1, 2]}})", nullptr, 31252,
     "Cannot use expression other than $meta in exclusion projection"},
    {"ExclusionAfterAComputedField", kDoc, "{}", R"({"x": "$a", "a": 0})", nullptr, 31254,
     "Cannot do exclusion on field a in inclusion projection"},
    {"IdExclusionAfterAComputedField", kDoc, "{}", R"({"x": "$a", "_id": 0})", R"({"x": 2})"},
    {"UnknownExpression", kDoc, "{}", R"({"x": {"$foo": 1}})", nullptr, 31325,
     "Unknown expression $foo"},
    {"TwoOperatorsIsASubProjection", kDoc, "{}", R"({"x": {"$add": [1], "$abs": 1}})", nullptr,
     16410},
    {"ExpressionParseError", kDoc, "{}", R"({"x": {"$add": "$$undefinedVar"}})", nullptr, 17276},
    {"CollisionWithAnInclusionBelow", kDoc, "{}", R"({"a": "$s", "a.b": 1})", nullptr, 31249,
     "Path collision at a.b remaining portion b"},
    {"CollisionWithAnInclusionAbove", kDoc, "{}", R"({"a.b": "$s", "a": 1})", nullptr, 31250,
     "Path collision at a"},
    {"DollarFieldName", kDoc, "{}", R"({"$x": "$a"})", nullptr, 16410},
};

INSTANTIATE_TEST_SUITE_P(Mixing, FindProjectionCases, ::testing::ValuesIn(kMixingCases),
                         [](const auto& info) { return std::string(info.param.name); });

const Case kWithFindOperatorsCases[] = {
    {"AggregationSlice", kArray, "{}", R"({"a": {"$slice": ["$a", 1, 2]}})",
     R"({"_id": 1, "a": [2, 3]})"},
    {"AggregationSliceOfAnotherField", kArray, "{}", R"({"c": {"$slice": ["$a", -1]}})",
     R"({"_id": 1, "c": [4]})"},
    {"AggregationSliceMakesAnInclusion", kArray, "{}", R"({"a": {"$slice": ["$a", 1]}, "b": 0})",
     nullptr, 31254},
    {"AggregationSliceAfterAnExclusionKeepsTheContext", kArray, "{}",
     R"({"b": 0, "a": {"$slice": ["$a", 1]}})", nullptr, 31252,
     "Invalid $slice syntax. The given syntax { $slice: [ \"$a\", 1 ] } did not match the find() "
     "syntax because :: Location31257: $slice expects the skip argument to be a number, got "
     "string :: The given syntax did not match the expression $slice syntax. :: caused by :: "
     "Cannot use expression other than $meta in exclusion projection"},
    {"FindSliceWithAComputedField", kArray, "{}", R"({"a": {"$slice": 1}, "x": "$b"})",
     R"({"_id": 1, "a": [1], "x": 5})"},
    {"ElemMatchInSpecOrderAmongComputedFields", kGames, "{}",
     R"({"x": "$joined", "games": {"$elemMatch": {"g": 2}}, "y": "$last"})",
     R"({"_id": 1, "x": 7, "games": [{"g": 2, "s": 8}], "y": 8})"},
    {"PositionalWithAComputedField", kGrades, R"({"grades.m": 90})",
     R"({"grades.$": 1, "y": "$x"})", R"({"_id": 1, "grades": [{"g": 85, "m": 90}], "y": 1})"},
    {"TextScoreNeedsTextQuery", kDoc, "{}", R"({"x": {"$meta": "textScore"}})", nullptr, 40218},
    {"OtherMetaIsNotSupported", kDoc, "{}", R"({"x": {"$meta": "indexKey"}})", nullptr, 2},
};

INSTANTIATE_TEST_SUITE_P(WithFindOperators, FindProjectionCases,
                         ::testing::ValuesIn(kWithFindOperatorsCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(AggregationProjectionExpressions, ShouldComputeFieldsWithTheCommandContext) {
  BsonDoc spec = BsonDoc::FromJson(R"({"a": 1, "x": {"$add": ["$a", "$$v"]}})");
  Result<Projection> projection = Projection::Parse(spec.view(), CommandContext());
  ASSERT_TRUE(projection.ok()) << projection.status().ToString();
  EXPECT_FALSE(projection->IsIdentity());
  BsonDoc doc = BsonDoc::FromJson(R"({"_id": 1, "a": 2, "b": 3})");
  BsonDoc out;
  ASSERT_TRUE(projection->Apply(doc.view(), out.get()).ok());
  EXPECT_EQ(Canonical(out.view()),
            Canonical(BsonDoc::FromJson(R"({"_id": 1, "a": 2, "x": 7})").view()));
}

}  // namespace
}  // namespace cairn::query
