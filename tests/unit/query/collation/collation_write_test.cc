// Specification of the collation in updates, find projections and the comparing expression
// operators, given through the command's ExpressionContext: $addToSet, $pull (values and
// conditions), $pullAll, $min/$max, $push's $sort and arrayFilters compare strings under it, as
// do find's $elemMatch projection and $in, $indexOfArray, the set operators and $sortArray; $set's
// no-op test stays binary. Each case runs with a case-insensitive collation and without one, so
// both sides of every rule are written down.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "query/collation/collator.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/projection/projection.h"
#include "query/update/update.h"
#include "tests/unit/query/bson_test_util.h"

namespace cairn::query {
namespace {

using testing::Canonical;
using testing::JsonArray;

// {locale: "en", strength: 2}: "abc" equals "ABC"; "a" sorts before "B".
std::shared_ptr<const ExpressionContext> CaseInsensitive() {
  BsonDoc spec = BsonDoc::FromJson(R"({"locale": "en", "strength": 2})");
  Result<std::shared_ptr<const Collator>> collator = Collator::Make(spec.view());
  EXPECT_TRUE(collator.ok()) << collator.status().ToString();
  return ExpressionContext::Make()->WithCollator(*collator);
}

struct UpdateCase {
  const char* name;
  const char* doc;
  const char* update;
  const char* array_filters;  // a JSON array, or nullptr
  const char* collated;       // the result under the collation
  const char* binary;         // the result without one
};

class CollatedUpdateCases : public ::testing::TestWithParam<UpdateCase> {};

std::string ApplyUpdate(const UpdateCase& c, std::shared_ptr<const ExpressionContext> context) {
  BsonDoc spec = BsonDoc::FromJson(c.update);
  BsonDoc filters_holder;
  BsonView filters =
      c.array_filters != nullptr ? JsonArray(c.array_filters, &filters_holder) : BsonView();
  Result<Update> update = Update::Parse(spec.view(), filters, std::move(context));
  if (!update.ok()) return update.status().ToString();
  BsonDoc doc = BsonDoc::FromJson(c.doc);
  BsonDoc out;
  Result<bool> applied = update->Apply(doc.view(), out.get(), Update::ApplyOptions{});
  if (!applied.ok()) return applied.status().ToString();
  return Canonical(out.view());
}

TEST_P(CollatedUpdateCases, ShouldCompareUnderTheStatementsCollation) {
  const UpdateCase& c = GetParam();
  EXPECT_EQ(ApplyUpdate(c, CaseInsensitive()), Canonical(BsonDoc::FromJson(c.collated).view()))
      << "collated";
  EXPECT_EQ(ApplyUpdate(c, nullptr), Canonical(BsonDoc::FromJson(c.binary).view())) << "binary";
}

const UpdateCase kUpdateCases[] = {
    {"AddToSetSeesAnEqualString", R"({"_id": 1, "a": ["abc"]})", R"({"$addToSet": {"a": "ABC"}})",
     nullptr, R"({"_id": 1, "a": ["abc"]})", R"({"_id": 1, "a": ["abc", "ABC"]})"},
    {"AddToSetEachDeduplicates", R"({"_id": 1})",
     R"({"$addToSet": {"a": {"$each": ["x", "X", "y"]}}})", nullptr,
     R"({"_id": 1, "a": ["x", "y"]})", R"({"_id": 1, "a": ["x", "X", "y"]})"},
    {"AddToSetInsideDocuments", R"({"_id": 1, "a": [{"n": "abc"}]})",
     R"({"$addToSet": {"a": {"n": "ABC"}}})", nullptr, R"({"_id": 1, "a": [{"n": "abc"}]})",
     R"({"_id": 1, "a": [{"n": "abc"}, {"n": "ABC"}]})"},
    {"PullEqualValue", R"({"_id": 1, "a": ["abc", "ABC", "d"]})", R"({"$pull": {"a": "Abc"}})",
     nullptr, R"({"_id": 1, "a": ["d"]})", R"({"_id": 1, "a": ["abc", "ABC", "d"]})"},
    {"PullCondition", R"({"_id": 1, "a": ["b", "C", "d"]})", R"({"$pull": {"a": {"$gte": "c"}}})",
     nullptr, R"({"_id": 1, "a": ["b"]})", R"({"_id": 1, "a": ["b", "C"]})"},
    {"PullDocumentCondition", R"({"_id": 1, "a": [{"n": "X"}, {"n": "y"}]})",
     R"({"$pull": {"a": {"n": "x"}}})", nullptr, R"({"_id": 1, "a": [{"n": "y"}]})",
     R"({"_id": 1, "a": [{"n": "X"}, {"n": "y"}]})"},
    {"PullAll", R"({"_id": 1, "a": ["abc", "x"]})", R"({"$pullAll": {"a": ["ABC"]}})", nullptr,
     R"({"_id": 1, "a": ["x"]})", R"({"_id": 1, "a": ["abc", "x"]})"},
    {"MaxOrdersStringsByTheCollation", R"({"_id": 1, "s": "a"})", R"({"$max": {"s": "B"}})",
     nullptr, R"({"_id": 1, "s": "B"})", R"({"_id": 1, "s": "a"})"},
    {"MinOfEqualStringsIsANoOp", R"({"_id": 1, "s": "abc"})", R"({"$min": {"s": "ABC"}})", nullptr,
     R"({"_id": 1, "s": "abc"})", R"({"_id": 1, "s": "ABC"})"},
    {"PushSortWholeValues", R"({"_id": 1, "a": ["b", "C", "a"]})",
     R"({"$push": {"a": {"$each": [], "$sort": 1}}})", nullptr,
     R"({"_id": 1, "a": ["a", "b", "C"]})", R"({"_id": 1, "a": ["C", "a", "b"]})"},
    {"PushSortByField", R"({"_id": 1, "a": [{"n": "b"}, {"n": "A"}]})",
     R"({"$push": {"a": {"$each": [], "$sort": {"n": 1}}}})", nullptr,
     R"({"_id": 1, "a": [{"n": "A"}, {"n": "b"}]})",
     R"({"_id": 1, "a": [{"n": "A"}, {"n": "b"}]})"},
    {"PushSortByFieldDescending", R"({"_id": 1, "a": [{"n": "B"}, {"n": "a"}]})",
     R"({"$push": {"a": {"$each": [], "$sort": {"n": -1}}}})", nullptr,
     R"({"_id": 1, "a": [{"n": "B"}, {"n": "a"}]})",
     R"({"_id": 1, "a": [{"n": "a"}, {"n": "B"}]})"},
    {"ArrayFilters", R"({"_id": 1, "a": ["x", "X", "y"]})", R"({"$set": {"a.$[e]": "z"}})",
     R"([{"e": "x"}])", R"({"_id": 1, "a": ["z", "z", "y"]})",
     R"({"_id": 1, "a": ["z", "X", "y"]})"},
    {"SetStaysBinary", R"({"_id": 1, "s": "abc"})", R"({"$set": {"s": "ABC"}})", nullptr,
     R"({"_id": 1, "s": "ABC"})", R"({"_id": 1, "s": "ABC"})"},
};

INSTANTIATE_TEST_SUITE_P(Update, CollatedUpdateCases, ::testing::ValuesIn(kUpdateCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CollatedProjection, ElemMatchShouldCompareUnderTheCommandsCollation) {
  BsonDoc spec = BsonDoc::FromJson(R"({"a": {"$elemMatch": {"$eq": "B"}}})");
  BsonDoc doc = BsonDoc::FromJson(R"({"_id": 1, "a": ["a", "b", "c"]})");
  auto query = std::make_shared<const Matcher>(*Matcher::Parse(BsonDoc::FromJson("{}").view()));
  for (bool collated : {true, false}) {
    Result<Projection> projection =
        Projection::ParseFind(spec.view(), query, collated ? CaseInsensitive() : nullptr);
    ASSERT_TRUE(projection.ok()) << projection.status().ToString();
    BsonDoc out;
    ASSERT_TRUE(projection->Apply(doc.view(), out.get()).ok());
    const char* expected = collated ? R"({"_id": 1, "a": ["b"]})" : R"({"_id": 1})";
    EXPECT_EQ(Canonical(out.view()), Canonical(BsonDoc::FromJson(expected).view())) << collated;
  }
}

struct ExpressionCase {
  const char* expr;
  const char* collated;  // {"r": ...}
  const char* binary;
};

class CollatedExpressionCases : public ::testing::TestWithParam<ExpressionCase> {};

std::string EvaluateUnder(const char* expr_json, std::shared_ptr<const ExpressionContext> context) {
  BsonDoc expr = BsonDoc::FromJson(std::string("{\"e\": ") + expr_json + "}");
  ParseContext ctx(std::move(context));
  bson_iter_t it;
  expr.view().Init(&it);
  bson_iter_next(&it);
  Result<ExpressionPtr> parsed = ParseOperand(&it, ctx);
  if (!parsed.ok()) return parsed.status().ToString();
  Variables vars(ctx.num_slots());
  BsonDoc doc = BsonDoc::FromJson(R"({"s": "ABC", "list": ["x", "abc"]})");
  vars.SetRoot(doc.view());
  Result<Value> value = (*parsed)->Evaluate(&vars);
  if (!value.ok()) return value.status().ToString();
  BsonDoc out;
  value->AppendTo(out.get(), "r");
  return Canonical(out.view());
}

TEST_P(CollatedExpressionCases, ShouldCompareUnderTheCommandsCollation) {
  const ExpressionCase& c = GetParam();
  EXPECT_EQ(EvaluateUnder(c.expr, CaseInsensitive()),
            Canonical(BsonDoc::FromJson(c.collated).view()))
      << c.expr << " collated";
  EXPECT_EQ(EvaluateUnder(c.expr, nullptr), Canonical(BsonDoc::FromJson(c.binary).view()))
      << c.expr << " binary";
}

const ExpressionCase kExpressionCases[] = {
    {R"({"$in": ["$s", "$list"]})", R"({"r": true})", R"({"r": false})"},
    {R"({"$in": ["ABC", ["abc"]]})", R"({"r": true})", R"({"r": false})"},
    {R"({"$indexOfArray": ["$list", "ABC"]})", R"({"r": 1})", R"({"r": -1})"},
    {R"({"$setUnion": [["a", "A", "b"]]})", R"({"r": ["a", "b"]})", R"({"r": ["A", "a", "b"]})"},
    {R"({"$setIntersection": [["a", "B"], ["b"]]})", R"({"r": ["B"]})", R"({"r": []})"},
    {R"({"$setDifference": [["a", "B"], ["b"]]})", R"({"r": ["a"]})", R"({"r": ["a", "B"]})"},
    {R"({"$setEquals": [["a", "B"], ["b", "A"]]})", R"({"r": true})", R"({"r": false})"},
    {R"({"$setIsSubset": [["A"], "$list"]})", R"({"r": false})", R"({"r": false})"},
    {R"({"$setIsSubset": [["ABC"], "$list"]})", R"({"r": true})", R"({"r": false})"},
    {R"({"$sortArray": {"input": ["b", "C", "a"], "sortBy": 1}})", R"({"r": ["a", "b", "C"]})",
     R"({"r": ["C", "a", "b"]})"},
    {R"({"$sortArray": {"input": [{"n": "b"}, {"n": "C"}], "sortBy": {"n": 1}}})",
     R"({"r": [{"n": "b"}, {"n": "C"}]})", R"({"r": [{"n": "C"}, {"n": "b"}]})"},
};

INSTANTIATE_TEST_SUITE_P(Expression, CollatedExpressionCases,
                         ::testing::ValuesIn(kExpressionCases));

}  // namespace
}  // namespace cairn::query
