// Specification of the document-at-a-time and blocking stages other than $group: $match, $skip,
// $limit, $sort (incl. top-N after $limit and the memory limit), $project, $unset and $count —
// their output and MongoDB's argument errors.
#include <gtest/gtest.h>

#include "query/pipeline/pipeline.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::C;
using testing::Docs;
using testing::Drain;
using testing::ExpectError;
using testing::ExpectOutput;
using testing::ParseJson;
using testing::RunPipeline;
using testing::VectorSource;

// Argument errors of each stage, exactly as MongoDB 7.0 words them.
struct StageErrorCase {
  const char* pipeline;
  int code;
  const char* reason;
};

void PrintTo(const StageErrorCase& c, std::ostream* os) { *os << c.pipeline; }

class StageArgumentError : public ::testing::TestWithParam<StageErrorCase> {};

TEST_P(StageArgumentError, ShouldAnswerMongoDBsCodeAndMessage) {
  const StageErrorCase& c = GetParam();
  ExpectError(c.pipeline, {}, c.code, c.reason);
}

const StageErrorCase kStageErrors[] = {
    // $match
    {R"([{"$match": 1}])", 15959, "the match filter must be an expression in an object"},
    {R"([{"$match": {"a": {"$foo": 1}}}])", 2, "unknown operator: $foo"},
    // $skip
    {R"([{"$skip": -1}])", 5107200,
     "invalid argument to $skip stage: Expected a non-negative number in: $skip: -1"},
    {R"([{"$skip": 1.5}])", 5107200,
     "invalid argument to $skip stage: Expected an integer: $skip: 1.5"},
    {R"([{"$skip": "x"}])", 5107200,
     "invalid argument to $skip stage: Expected a number in: $skip: \"x\""},
    {R"([{"$skip": true}])", 5107200,
     "invalid argument to $skip stage: Expected a number in: $skip: true"},
    {R"([{"$skip": {"$numberDouble": "NaN"}}])", 5107200,
     "invalid argument to $skip stage: Expected an integer, but found NaN in: $skip: nan.0"},
    {R"([{"$skip": 1e300}])", 5107200,
     "invalid argument to $skip stage: Cannot represent as a 64-bit integer: $skip: 1e+300.0"},
    // $limit
    {R"([{"$limit": 0}])", 15958, "the limit must be positive"},
    {R"([{"$limit": -2.0}])", 5107201,
     "invalid argument to $limit stage: Expected a non-negative number in: $limit: -2.0"},
    {R"([{"$limit": "1"}])", 5107201,
     "invalid argument to $limit stage: Expected a number in: $limit: \"1\""},
    {R"([{"$limit": [1]}])", 5107201,
     "invalid argument to $limit stage: Expected a number in: $limit: [ 1 ]"},
    {R"([{"$limit": 2.5}])", 5107201,
     "invalid argument to $limit stage: Expected an integer: $limit: 2.5"},
    // $sort
    {R"([{"$sort": 1}])", 15973, "the $sort key specification must be an object"},
    {R"([{"$sort": {}}])", 15976, "$sort stage must have at least one sort key"},
    {R"([{"$sort": {"a": 2}}])", 15975,
     "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
    // $project
    {R"([{"$project": 1}])", 15969, "$project specification must be an object"},
    {R"([{"$project": {}}])", 51272,
     "Invalid $project :: caused by :: projection specification must have at least one field"},
    {R"([{"$project": {"a": 1, "b": 0}}])", 31254,
     "Invalid $project :: caused by :: Cannot do exclusion on field b in inclusion projection"},
    {R"([{"$project": {"a": 0, "b": 1}}])", 31253,
     "Invalid $project :: caused by :: Cannot do inclusion on field b in exclusion projection"},
    {R"([{"$project": {"$a": 1}}])", 16410,
     "Invalid $project :: caused by :: FieldPath field names may not start with '$'. Consider "
     "using $getField or $setField."},
    // $unset
    {R"([{"$unset": 1}])", 31002, "$unset specification must be a string or an array"},
    {R"([{"$unset": {}}])", 31002, "$unset specification must be a string or an array"},
    {R"([{"$unset": []}])", 31119,
     "$unset specification must be a string or an array with at least one field"},
    {R"([{"$unset": ["a", 1]}])", 31120,
     "$unset specification must be a string or an array containing only string values"},
    {R"([{"$unset": ""}])", 40352,
     "Invalid $unset :: caused by :: FieldPath cannot be constructed with empty string"},
    {R"([{"$unset": "v..foo"}])", 15998,
     "Invalid $unset :: caused by :: FieldPath field names may not be empty strings."},
    // $count
    {R"([{"$count": 1}])", 40156, "the count field must be a non-empty string"},
    {R"([{"$count": ""}])", 40157, "the count field must be a non-empty string"},
    {R"([{"$count": "$n"}])", 40158, "the count field cannot be a $-prefixed path"},
    {R"([{"$count": "a.b"}])", 40160, "the count field cannot contain '.'"},
    {R"([{"$count": "_id"}])", 15948, "a group's _id may only be specified once"},
};

INSTANTIATE_TEST_SUITE_P(Stages, StageArgumentError, ::testing::ValuesIn(kStageErrors));

const std::vector<std::string> kPeople = {
    R"({"_id": 1, "name": "ann", "age": 30, "city": {"name": "oslo", "zip": "0150"}})",
    R"({"_id": 2, "name": "bob", "age": 25})",
    R"({"_id": 3, "name": "cy", "age": 35, "city": {"name": "rome", "zip": "00100"}})",
    R"({"_id": 4, "name": "di", "age": 25.0})",
};

TEST(MatchStage, ShouldKeepOnlyMatchingDocuments) {
  ExpectOutput(R"([{"$match": {"age": 25}}])", kPeople, {kPeople[1], kPeople[3]});
  ExpectOutput(R"([{"$match": {"city.name": "rome"}}])", kPeople, {kPeople[2]});
  ExpectOutput(R"([{"$match": {}}])", kPeople, kPeople);
}

TEST(SkipStage, ShouldDropTheFirstDocuments) {
  ExpectOutput(R"([{"$skip": 0}])", kPeople, kPeople);
  ExpectOutput(R"([{"$skip": 3}])", kPeople, {kPeople[3]});
  ExpectOutput(R"([{"$skip": 2.0}])", kPeople, {kPeople[2], kPeople[3]});
  ExpectOutput(R"([{"$skip": {"$numberDecimal": "3"}}])", kPeople, {kPeople[3]});
  ExpectOutput(R"([{"$skip": {"$numberLong": "9223372036854775807"}}])", kPeople, {});
}

TEST(LimitStage, ShouldPassTheFirstDocumentsAndStopReading) {
  ExpectOutput(R"([{"$limit": 2}])", kPeople, {kPeople[0], kPeople[1]});
  ExpectOutput(R"([{"$limit": 10}])", kPeople, kPeople);
  Result<Pipeline> pipeline = ParseJson(R"([{"$limit": 1}])");
  ASSERT_TRUE(pipeline.ok());
  auto source = std::make_unique<VectorSource>(Docs(kPeople));
  const size_t* pulled = source->pulled_counter();
  auto exec = pipeline->Bind(std::move(source), false);
  ASSERT_TRUE(Drain(exec.get()).ok());
  EXPECT_EQ(*pulled, 1u);
}

TEST(SortStage, ShouldOrderByThePatternKeepingInputOrderForTies) {
  ExpectOutput(R"([{"$sort": {"age": 1}}])", kPeople,
               {kPeople[1], kPeople[3], kPeople[0], kPeople[2]});
  ExpectOutput(R"([{"$sort": {"age": -1, "name": -1}}])", kPeople,
               {kPeople[2], kPeople[0], kPeople[3], kPeople[1]});
  // Missing sorts as null, before strings.
  ExpectOutput(R"([{"$sort": {"city.name": 1}}])", kPeople,
               {kPeople[1], kPeople[3], kPeople[0], kPeople[2]});
}

TEST(SortStage, ShouldKeepOnlyTheTopDocumentsWhenALimitFollows) {
  std::vector<std::string> docs;
  for (int i = 0; i < 50; ++i) {
    docs.push_back("{\"i\": " + std::to_string((i * 37) % 50) +
                   ", \"g\": " + std::to_string(i % 3) + "}");
  }
  // Top-N equals the full sort's prefix, ties in input order.
  Result<std::vector<std::string>> full = RunPipeline(R"([{"$sort": {"g": 1}}])", docs);
  Result<std::vector<std::string>> top =
      RunPipeline(R"([{"$sort": {"g": 1}}, {"$limit": 7}])", docs);
  ASSERT_TRUE(full.ok() && top.ok());
  ASSERT_EQ(top->size(), 7u);
  EXPECT_TRUE(std::equal(top->begin(), top->end(), full->begin()));

  Result<std::vector<std::string>> skipped =
      RunPipeline(R"([{"$sort": {"i": -1}}, {"$skip": 3}, {"$limit": 2}])", docs);
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(*skipped, C(std::vector<std::string>{R"({"i": 46, "g": 2})", R"({"i": 45, "g": 2})"}));
}

TEST(SortStage, ShouldFailPastTheMemoryLimitWithoutDiskUseUnlessTopNFitsIt) {
  PipelineOptions small;
  small.sort_max_memory_bytes = 200;
  small.allow_disk_use = false;
  std::vector<std::string> docs;
  for (int i = 0; i < 20; ++i) docs.push_back("{\"i\": " + std::to_string(i) + "}");  // 14 bytes
  Result<std::vector<std::string>> out = RunPipeline(R"([{"$sort": {"i": -1}}])", docs, small);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 292);
  EXPECT_EQ(out.status().reason(),
            "Sort exceeded memory limit of 200 bytes, but did not opt in to external sorting.");
  // Keeping the top 3 holds 3 documents only.
  out = RunPipeline(R"([{"$sort": {"i": -1}}, {"$limit": 3}])", docs, small);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"i": 19})", R"({"i": 18})", R"({"i": 17})"}));
}

TEST(ProjectStage, ShouldIncludeOrExcludeFields) {
  ExpectOutput(R"([{"$project": {"name": 1}}, {"$limit": 2}])", kPeople,
               {R"({"_id": 1, "name": "ann"})", R"({"_id": 2, "name": "bob"})"});
  ExpectOutput(R"([{"$project": {"_id": 0, "city.zip": 1}}, {"$limit": 2}])", kPeople,
               {R"({"city": {"zip": "0150"}})", R"({})"});
  ExpectOutput(R"([{"$project": {"city": 0, "age": false}}, {"$limit": 1}])", kPeople,
               {R"({"_id": 1, "name": "ann"})"});
}

TEST(ProjectStage, ShouldComputeFieldsAfterTheIncludedOnes) {
  ExpectOutput(R"([{"$project": {"n": {"$toUpper": "$name"}, "age": 1}}, {"$limit": 1}])", kPeople,
               {R"({"_id": 1, "age": 30, "n": "ANN"})"});
  ExpectOutput(R"([{"$project": {"_id": 0, "n": "$name", "lit": "x", "arr": ["$age", 1]}},
                   {"$limit": 1}])",
               kPeople, {R"({"n": "ann", "lit": "x", "arr": [30, 1]})"});
  ExpectOutput(R"([{"$project": {"city": {"name": 1, "upper": {"$toUpper": "$city.name"}}}},
                   {"$limit": 1}])",
               kPeople, {R"({"_id": 1, "city": {"name": "oslo", "upper": "OSLO"}})"});
  ExpectOutput(R"([{"$project": {"_id": "$name", "x": {"$literal": 1}}}, {"$limit": 1}])", kPeople,
               {R"({"_id": "ann", "x": 1})"});
  ExpectOutput(R"([{"$project": {"gone": "$$REMOVE", "a": "$age"}}, {"$limit": 1}])", kPeople,
               {R"({"_id": 1, "a": 30})"});
}

TEST(ProjectStage, ShouldApplyMongoDBsMixingRules) {
  ExpectError(R"([{"$project": {"a": 0, "b": "$x"}}])", {}, 31252,
              "Invalid $project :: caused by :: Cannot use expression other than $meta in "
              "exclusion projection");
  ExpectError(R"([{"$project": {"b": "$x", "a": 0}}])", {}, 31254,
              "Invalid $project :: caused by :: Cannot do exclusion on field a in inclusion "
              "projection");
  ExpectError(R"([{"$project": {"a": 0, "b": 1, "c": "$x"}}])", {}, 31253);
  ExpectError(R"([{"$project": {"b": 1, "b.c": "$x"}}])", {}, 31249,
              "Invalid $project :: caused by :: Path collision at b.c remaining portion c");
  ExpectError(R"([{"$project": {"a": {"$bogus": 1}}}])", {}, 168,
              "Invalid $project :: caused by :: Unrecognized expression '$bogus'");
  ExpectError(R"([{"$project": {"a": {"$elemMatch": {"b": 1}}}}])", {}, 168,
              "Invalid $project :: caused by :: Cannot use $elemMatch in this context");
  ExpectOutput(R"([{"$project": {"_id": 0, "a": "$x"}}])", {R"({"_id": 1, "x": 2})"},
               {R"({"a": 2})"});
}

TEST(AddFieldsStage, ShouldSetFieldsInPlaceOrAppendThem) {
  ExpectOutput(R"([{"$addFields": {"age": {"$add": ["$age", 1]}, "tag": "t"}}, {"$limit": 1}])",
               kPeople,
               {R"({"_id": 1, "name": "ann", "age": 31, "city": {"name": "oslo", "zip": "0150"},
                    "tag": "t"})"});
  ExpectOutput(
      R"([{"$set": {"city.country": "no", "name": "$$REMOVE"}}, {"$limit": 1}])", kPeople,
      {R"({"_id": 1, "age": 30, "city": {"name": "oslo", "zip": "0150", "country": "no"}})"});
  ExpectOutput(R"([{"$addFields": {"a": {"b": 1, "c": {}}}}])", {R"({"a": {"x": 0}})"},
               {R"({"a": {"x": 0, "b": 1, "c": {}}})"});
  ExpectOutput(R"([{"$addFields": {"a.b": "$v"}}])", {R"({"a": [1, {"x": 1}, [2]], "v": 7})"},
               {R"({"a": [{"b": 7}, {"x": 1, "b": 7}, [{"b": 7}]], "v": 7})"});
  ExpectOutput(R"([{"$addFields": {"a.b": 1}}])", {R"({"a": 5})", R"({})"},
               {R"({"a": {"b": 1}})", R"({"a": {"b": 1}})"});
  ExpectOutput(R"([{"$addFields": {}}])", {R"({"a": 5})"}, {R"({"a": 5})"});
}

TEST(AddFieldsStage, ShouldAnswerMongoDBsErrors) {
  ExpectError(R"([{"$addFields": 1}])", {}, 40272,
              "$addFields specification stage must be an object, got int");
  ExpectError(R"([{"$set": []}])", {}, 40272,
              "$set specification stage must be an object, got array");
  ExpectError(R"([{"$addFields": {"$a": 1}}])", {}, 16410,
              "Invalid $addFields :: caused by :: FieldPath field names may not start with '$'. "
              "Consider using $getField or $setField.");
  ExpectError(R"([{"$set": {"a": 1, "a.b": 2}}])", {}, 31249,
              "Invalid $set :: caused by :: Path collision at a.b remaining portion b");
  ExpectError(R"([{"$set": {"a.b": 1, "a": 2}}])", {}, 31250,
              "Invalid $set :: caused by :: Path collision at a");
  ExpectError(R"([{"$set": {"a": {"$divide": ["$x", 0]}}}])", {R"({"x": 1})"}, 2,
              "can't $divide by zero");
}

TEST(MatchStage, ShouldEvaluateExprWithTheCommandsLetVariables) {
  PipelineOptions options;
  BsonDoc let = BsonDoc::FromJson(R"({"minAge": 30, "tag": "old"})");
  options.expression_context = *ExpressionContext::Make(let.view());
  Result<std::vector<std::string>> out = RunPipeline(
      R"([{"$match": {"$expr": {"$gte": ["$age", "$$minAge"]}}},
          {"$project": {"_id": 1, "tag": "$$tag"}}])",
      kPeople, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"_id": 1, "tag": "old"})",
                                             R"({"_id": 3, "tag": "old"})"}));
}

TEST(MatchStage, ShouldStopAtAnExprEvaluationError) {
  ExpectError(R"([{"$match": {"$expr": {"$divide": ["$age", 0]}}}])", kPeople, 2,
              "can't $divide by zero");
}

TEST(ReplaceRootStage, ShouldReplaceEachDocument) {
  ExpectOutput(R"([{"$replaceRoot": {"newRoot": "$city"}}, {"$limit": 1}])", kPeople,
               {R"({"name": "oslo", "zip": "0150"})"});
  ExpectOutput(R"([{"$replaceWith": {"$mergeObjects": [{"n": "$name"}, "$city"]}}, {"$limit": 1}])",
               kPeople, {R"({"n": "ann", "name": "oslo", "zip": "0150"})"});
}

TEST(ReplaceRootStage, ShouldAnswerMongoDBsErrors) {
  ExpectError(R"([{"$replaceRoot": {"newRoot": "$missing"}}])", {R"({"_id": 1})"}, 40228,
              "'newRoot' expression  must evaluate to an object, but resulting value was: "
              "MISSING. Type of resulting value: 'missing'. Input document: {_id: 1}");
  ExpectError(R"([{"$replaceWith": "$a"}])", {R"({"_id": 1, "a": [1]})"}, 40228,
              "'replacement document'  must evaluate to an object, but resulting value was: [1]. "
              "Type of resulting value: 'array'. Input document: {_id: 1, a: [1]}");
  ExpectError(R"([{"$replaceRoot": "$a"}])", {}, 40229,
              "expected an object as specification for $replaceRoot stage, got string");
  ExpectError(R"([{"$replaceRoot": {}}])", {}, 40414,
              "BSON field '$replaceRoot.newRoot' is missing but a required field");
  ExpectError(R"([{"$replaceRoot": {"newRoot": "$a", "x": 1}}])", {}, 40415,
              "BSON field '$replaceRoot.x' is an unknown field.");
}

TEST(UnsetStage, ShouldRemoveTheNamedFields) {
  ExpectOutput(R"([{"$unset": "city"}, {"$limit": 1}])", kPeople,
               {R"({"_id": 1, "name": "ann", "age": 30})"});
  ExpectOutput(R"([{"$unset": ["_id", "age", "city.zip"]}, {"$limit": 1}])", kPeople,
               {R"({"name": "ann", "city": {"name": "oslo"}})"});
}

TEST(CountStage, ShouldAnswerOneDocumentWithTheCountOrNone) {
  ExpectOutput(R"([{"$count": "total"}])", kPeople, {R"({"total": 4})"});
  ExpectOutput(R"([{"$match": {"age": 25}}, {"$count": "n"}])", kPeople, {R"({"n": 2})"});
  ExpectOutput(R"([{"$match": {"age": 99}}, {"$count": "n"}])", kPeople, {});
  ExpectOutput(R"([{"$count": "n"}])", {}, {});
}

}  // namespace
}  // namespace cairn::query
