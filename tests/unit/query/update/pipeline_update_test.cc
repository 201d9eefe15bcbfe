// Pipeline-style updates (query/update/pipeline_update.cc): the stages MongoDB allows, the
// replacement rules on the result (_id kept first and immutable, no-op detection, '$'-prefixed
// top-level fields allowed), `let` variables, upsert seeds, and MongoDB's errors.
#include <gtest/gtest.h>

#include "query/expression/expression.h"
#include "query/update/update.h"
#include "tests/unit/query/bson_test_util.h"

namespace cairn::query {
namespace {

Result<Update> ParseStages(const char* stages_json, const char* let = "{}") {
  BsonDoc holder;
  BsonView stages = testing::JsonArray(stages_json, &holder);
  BsonDoc l = BsonDoc::FromJson(let);
  auto context = ExpressionContext::Make(l.view());
  if (!context.ok()) return context.status();
  return Update::ParsePipeline(stages, BsonView(), *context);
}

// Applies and returns {"modified": bool, "doc": result} as canonical JSON, or the error.
Result<std::string> Apply(const char* stages, const char* doc, const char* let = "{}",
                          bool upsert_insert = false) {
  CAIRN_ASSIGN_OR_RETURN(Update update, ParseStages(stages, let));
  BsonDoc in = BsonDoc::FromJson(doc);
  BsonDoc out;
  Update::ApplyOptions options;
  options.is_upsert_insert = upsert_insert;
  CAIRN_ASSIGN_OR_RETURN(bool modified, update.Apply(in.view(), out.get(), options));
  return std::string(modified ? "modified " : "unchanged ") + testing::Canonical(out.view());
}

std::string Expect(const char* modified, const char* doc_json) {
  BsonDoc doc = BsonDoc::FromJson(doc_json);
  return std::string(modified) + " " + testing::Canonical(doc.view());
}

TEST(PipelineUpdate, ShouldRunTheStagesOverTheDocument) {
  EXPECT_EQ(*Apply(R"([{"$set": {"total": {"$multiply": ["$price", "$qty"]}}}])",
                   R"({"_id": 1, "price": 3, "qty": 4})"),
            Expect("modified", R"({"_id": 1, "price": 3, "qty": 4, "total": 12})"));
  EXPECT_EQ(*Apply(R"([{"$project": {"x": 1}}, {"$addFields": {"foo": 1}}])",
                   R"({"_id": 1, "x": 1, "y": 2})"),
            Expect("modified", R"({"_id": 1, "x": 1, "foo": 1})"));
  EXPECT_EQ(*Apply(R"([{"$unset": ["y"]}])", R"({"_id": 1, "x": 1, "y": 2})"),
            Expect("modified", R"({"_id": 1, "x": 1})"));
}

TEST(PipelineUpdate, ShouldKeepTheIdFirstWhenTheResultDropsIt) {
  EXPECT_EQ(*Apply(R"([{"$replaceRoot": {"newRoot": "$t"}}, {"$addFields": {"foo": 1}}])",
                   R"({"_id": 1, "t": {"u": {"v": 1}}})"),
            Expect("modified", R"({"_id": 1, "u": {"v": 1}, "foo": 1})"));
}

TEST(PipelineUpdate, ShouldRefuseChangingTheId) {
  Result<std::string> out = Apply(R"([{"$set": {"_id": 2}}])", R"({"_id": 1})");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), ErrorCode::kImmutableField);
  EXPECT_EQ(out.status().reason(),
            "After applying the update, the (immutable) field '_id' was found to have been "
            "altered to _id: 2");
}

TEST(PipelineUpdate, ShouldReportANoOpWhenNothingChanges) {
  EXPECT_EQ(*Apply(R"([{"$set": {"x": "$x"}}])", R"({"_id": 1, "x": 1})"),
            Expect("unchanged", R"({"_id": 1, "x": 1})"));
}

TEST(PipelineUpdate, ShouldAllowDollarPrefixedAndDottedFieldNames) {
  EXPECT_EQ(*Apply(R"([{"$replaceWith": {"$setField": {"field": {"$literal": "$a"}, "value": 1,
                                                       "input": "$$ROOT"}}}])",
                   R"({"_id": 1, "foo": {}})"),
            Expect("modified", R"({"_id": 1, "foo": {}, "$a": 1})"));
  EXPECT_EQ(*Apply(R"([{"$set": {"foo": {"$setField": {"field": {"$literal": "a.b"}, "value": 1,
                                                       "input": "$foo"}}}}])",
                   R"({"_id": 1, "foo": {}})"),
            Expect("modified", R"({"_id": 1, "foo": {"a.b": 1}})"));
}

TEST(PipelineUpdate, ShouldReadCommandLetVariables) {
  EXPECT_EQ(*Apply(R"([{"$set": {"x": "$$x"}}])", R"({"_id": 1})", R"({"x": "foo"})"),
            Expect("modified", R"({"_id": 1, "x": "foo"})"));
}

TEST(PipelineUpdate, ShouldBuildAnUpsertFromTheSeed) {
  EXPECT_EQ(*Apply(R"([{"$set": {"n": {"$add": ["$a", 1]}}}])", R"({"a": 1})", "{}", true),
            Expect("modified", R"({"a": 1, "n": 2})"));
}

TEST(PipelineUpdate, ShouldAnswerMongoDBsErrors) {
  Result<Update> bad = ParseStages(R"([{"$match": {}}])");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidOptions);
  EXPECT_EQ(bad.status().reason(), "$match is not allowed to be used within an update");
  bad = ParseStages(R"([{"$set": {"a": {"$bogus": 1}}}, {"$group": {"_id": 1}}])");
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidPipelineOperator);
  bad = ParseStages(R"([{"$nope": 1}])");
  EXPECT_EQ(bad.status().code_number(), 40324);
  bad = ParseStages(R"([1])");
  EXPECT_EQ(bad.status().code(), ErrorCode::kTypeMismatch);
  Result<std::string> out = Apply(R"([{"$replaceWith": "$a"}])", R"({"_id": 1, "a": 5})");
  EXPECT_EQ(out.status().code_number(), 40228);
}

}  // namespace
}  // namespace cairn::query
