// Specification of Pipeline: MongoDB's pipeline-level parse errors (element type, stage object
// shape 40323, unknown stage 40324, known-but-unimplemented stages), the order in which errors
// surface, the countDocuments shapes drivers send, leading_match()/Bind(skip_leading_match),
// and error propagation from the input.
#include "query/pipeline/pipeline.h"

#include <gtest/gtest.h>

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

struct ParseErrorCase {
  const char* pipeline;
  int code;
  const char* reason;
};

void PrintTo(const ParseErrorCase& c, std::ostream* os) { *os << c.pipeline; }

class PipelineParseError : public ::testing::TestWithParam<ParseErrorCase> {};

TEST_P(PipelineParseError, ShouldAnswerMongoDBsCodeAndMessage) {
  const ParseErrorCase& c = GetParam();
  Result<Pipeline> pipeline = ParseJson(c.pipeline);
  ASSERT_FALSE(pipeline.ok()) << c.pipeline;
  EXPECT_EQ(pipeline.status().code_number(), c.code) << pipeline.status().ToString();
  EXPECT_EQ(pipeline.status().reason(), c.reason);
}

const ParseErrorCase kParseErrors[] = {
    {R"([1])", 14, "Each element of the 'pipeline' array must be an object"},
    {R"([{"$match": {}}, "x"])", 14, "Each element of the 'pipeline' array must be an object"},
    {R"([{}])", 40323, "A pipeline stage specification object must contain exactly one field."},
    {R"([{"$match": {}, "$limit": 1}])", 40323,
     "A pipeline stage specification object must contain exactly one field."},
    {R"([{"$foo": 1}])", 40324, "Unrecognized pipeline stage name: '$foo'"},
    {R"([{"match": {}}])", 40324, "Unrecognized pipeline stage name: 'match'"},
    // Every stage's shape is checked before any stage's argument (LiteParsedPipeline first).
    {R"([{"$limit": 0}, {"$foo": 1}])", 40324, "Unrecognized pipeline stage name: '$foo'"},
    // Then arguments are parsed in order.
    {R"([{"$limit": 0}, {"$lookup": {}}])", 15958, "the limit must be positive"},
    {R"([{"$graphLookup": {}}, {"$limit": 0}])", 2, "$graphLookup is not supported by Cairn yet"},
    // Real MongoDB stages Cairn lacks are named, not "unrecognized".
    {R"([{"$densify": {}}])", 2, "$densify is not supported by Cairn yet"},
    {R"([{"$redact": "$$KEEP"}])", 2, "$redact is not supported by Cairn yet"},
    {R"([{"$fill": {}}])", 2, "$fill is not supported by Cairn yet"},
};

INSTANTIATE_TEST_SUITE_P(Pipeline, PipelineParseError, ::testing::ValuesIn(kParseErrors));

TEST(Pipeline, ShouldPassDocumentsThroughAnEmptyPipeline) {
  ExpectOutput("[]", {R"({"_id": 1})", R"({"_id": 2})"}, {R"({"_id": 1})", R"({"_id": 2})"});
}

// countDocuments(filter, {skip, limit}) as drivers send it: $match, $skip?, $limit?, then
// $group {_id: 1, n: {$sum: 1}}; the driver reads n, and no document means 0.
struct CountDocumentsCase {
  const char* pipeline;
  std::vector<std::string> expected;
};

void PrintTo(const CountDocumentsCase& c, std::ostream* os) { *os << c.pipeline; }

class CountDocuments : public ::testing::TestWithParam<CountDocumentsCase> {};

const std::vector<std::string> kCountInput = {
    R"({"_id": 1, "a": 1})", R"({"_id": 2, "a": 2})", R"({"_id": 3, "a": 2})",
    R"({"_id": 4, "a": 3})", R"({"_id": 5, "a": 2})", R"({"_id": 6})",
};

TEST_P(CountDocuments, ShouldAnswerTheDriversShape) {
  const CountDocumentsCase& c = GetParam();
  ExpectOutput(c.pipeline, kCountInput, c.expected);
}

const CountDocumentsCase kCountDocumentsCases[] = {
    {R"([{"$match": {}}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])", {R"({"_id": 1, "n": 6})"}},
    {R"([{"$match": {"a": 2}}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
     {R"({"_id": 1, "n": 3})"}},
    {R"([{"$match": {"a": 2}}, {"$skip": 1}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
     {R"({"_id": 1, "n": 2})"}},
    {R"([{"$match": {"a": 2}}, {"$limit": 2}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
     {R"({"_id": 1, "n": 2})"}},
    {R"([{"$match": {"a": 2}}, {"$skip": 1}, {"$limit": 1},
         {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
     {R"({"_id": 1, "n": 1})"}},
    {R"([{"$match": {}}, {"$skip": {"$numberLong": "2"}}, {"$limit": {"$numberLong": "10"}},
         {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
     {R"({"_id": 1, "n": 4})"}},
    // Nothing matches, or everything is skipped: no document at all.
    {R"([{"$match": {"a": 99}}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])", {}},
    {R"([{"$match": {}}, {"$skip": 6}, {"$group": {"_id": 1, "n": {"$sum": 1}}}])", {}},
    {R"([{"$match": {"a": {"$gt": 1}}}, {"$skip": 10}, {"$limit": 5},
         {"$group": {"_id": 1, "n": {"$sum": 1}}}])",
     {}},
};

INSTANTIATE_TEST_SUITE_P(Pipeline, CountDocuments, ::testing::ValuesIn(kCountDocumentsCases));

TEST(Pipeline, ShouldExposeTheLeadingMatchAndSkipItWhenAsked) {
  Result<Pipeline> pipeline = ParseJson(R"([{"$match": {"a": 2}}, {"$count": "n"}])");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
  EXPECT_EQ(C(pipeline->leading_match().ToJson()), C(R"({"a": 2})"));

  // The server already filtered: Bind skips the $match and counts what it is given.
  auto skipped =
      pipeline->Bind(std::make_unique<VectorSource>(Docs({R"({"a": 1})", R"({"a": 3})"})),
                     /*skip_leading_match=*/true);
  Result<std::vector<std::string>> out = Drain(skipped.get());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"n": 2})"}));

  // Not skipped: the $match runs.
  auto matched =
      pipeline->Bind(std::make_unique<VectorSource>(Docs({R"({"a": 1})", R"({"a": 2})"})),
                     /*skip_leading_match=*/false);
  out = Drain(matched.get());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"n": 1})"}));
}

TEST(Pipeline, ShouldHaveNoLeadingMatchWhenTheFirstStageIsAnotherStage) {
  Result<Pipeline> pipeline = ParseJson(R"([{"$limit": 1}, {"$match": {"a": 2}}])");
  ASSERT_TRUE(pipeline.ok());
  EXPECT_TRUE(pipeline->leading_match().empty());
  // skip_leading_match has nothing to skip: the later $match still runs.
  auto exec = pipeline->Bind(std::make_unique<VectorSource>(Docs({R"({"a": 1})", R"({"a": 2})"})),
                             /*skip_leading_match=*/true);
  Result<std::vector<std::string>> out = Drain(exec.get());
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->empty());
}

TEST(Pipeline, ShouldOutliveItsSpecificationBytes) {
  // ParseJson frees the spec after parsing: stages keep their own copies.
  ExpectOutput(R"([{"$match": {"a": {"$in": [1, 2]}}}, {"$project": {"_id": 0, "a": 1}},
                  {"$sort": {"a": -1}}, {"$group": {"_id": "$a", "c": {"$push": "x"}}}])",
               {R"({"a": 1, "b": 0})", R"({"a": 2})", R"({"a": 3})"},
               {R"({"_id": 2, "c": ["x"]})", R"({"_id": 1, "c": ["x"]})"});
}

TEST(Pipeline, ShouldCoalesceConsecutiveLimits) {
  Result<Pipeline> pipeline = ParseJson(R"([{"$limit": 5}, {"$limit": 2}, {"$limit": 9}])");
  ASSERT_TRUE(pipeline.ok());
  EXPECT_EQ(pipeline->size(), 1u);
  ExpectOutput(R"([{"$limit": 5}, {"$limit": 2}, {"$limit": 9}])",
               {R"({"i": 1})", R"({"i": 2})", R"({"i": 3})"}, {R"({"i": 1})", R"({"i": 2})"});
}

TEST(Pipeline, ShouldReportAnInputErrorThroughEveryStageAndStayEnded) {
  for (const char* spec :
       {R"([{"$match": {}}, {"$skip": 0}, {"$sort": {"a": 1}}, {"$project": {"a": 1}}])",
        R"([{"$limit": 5}, {"$unset": "b"}, {"$group": {"_id": "$a", "n": {"$sum": 1}}}])",
        R"([{"$count": "n"}])"}) {
    Result<Pipeline> pipeline = ParseJson(spec);
    ASSERT_TRUE(pipeline.ok()) << spec;
    auto exec = pipeline->Bind(
        std::make_unique<VectorSource>(Docs({R"({"a": 1})", R"({"a": 2})"}),
                                       Status(ErrorCode::kInternalError, "disk on fire")),
        /*skip_leading_match=*/false);
    Result<std::vector<std::string>> out = Drain(exec.get());
    ASSERT_FALSE(out.ok()) << spec;
    EXPECT_EQ(out.status().code(), ErrorCode::kInternalError) << spec;
    EXPECT_EQ(out.status().reason(), "disk on fire") << spec;
    EXPECT_FALSE(exec->Next()) << spec;
    EXPECT_FALSE(exec->Next()) << spec;
  }
}

}  // namespace
}  // namespace cairn::query
