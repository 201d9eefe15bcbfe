// Specification of $facet: one output document holding each sub-pipeline's results over the
// whole input (the documentation's artwork example with $unwind + $sortByCount, $bucket and
// $bucketAuto), an empty input, stages after $facet, the 16 MiB result cap and the memory limit
// of its input buffer, and MongoDB's parse errors (40169, 40170, 40171, field-name rules, 2 for an
// empty sub-pipeline, 40600 for stages not allowed inside).
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "query/pipeline/pipeline.h"
#include "tests/unit/query/pipeline/fake_collections.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::C;
using testing::ExpectError;
using testing::ExpectOutput;
using testing::RunPipeline;

// MongoDB's $facet documentation: the artwork collection.
const std::vector<std::string> kArtwork = {
    R"({"_id": 1, "title": "The Pillars of Society", "artist": "Grosz", "year": 1926,
        "price": {"$numberDecimal": "199.99"}, "tags": ["painting", "satire", "Expressionism", "caricature"]})",
    R"({"_id": 2, "title": "Melancholy III", "artist": "Munch", "year": 1902,
        "price": {"$numberDecimal": "280.00"}, "tags": ["woodcut", "Expressionism"]})",
    R"({"_id": 3, "title": "Dancer", "artist": "Miro", "year": 1925,
        "price": {"$numberDecimal": "76.04"}, "tags": ["oil", "Surrealism", "painting"]})",
    R"({"_id": 4, "title": "The Great Wave off Kanagawa", "artist": "Hokusai",
        "price": {"$numberDecimal": "167.30"}, "tags": ["woodblock", "ukiyo-e"]})",
    R"({"_id": 5, "title": "The Persistence of Memory", "artist": "Dali", "year": 1931,
        "price": {"$numberDecimal": "483.00"}, "tags": ["Surrealism", "painting", "oil"]})",
    R"({"_id": 6, "title": "Composition VII", "artist": "Kandinsky", "year": 1913,
        "price": {"$numberDecimal": "385.00"}, "tags": ["oil", "painting", "abstract"]})",
    R"({"_id": 7, "title": "The Scream", "artist": "Munch",
        "tags": ["Expressionism", "painting", "oil"]})",
    R"({"_id": 8, "title": "Blue Flower", "artist": "O'Keefe", "year": 1918,
        "price": {"$numberDecimal": "118.42"}, "tags": ["abstract", "painting"]})"};

TEST(FacetStage, ShouldRunEachSubPipelineOverTheWholeInput) {
  ExpectOutput(
      R"j([{"$facet": {
            "categorizedByTags": [{"$unwind": "$tags"}, {"$sortByCount": "$tags"},
                                  {"$match": {"count": {"$gte": 4}}}],
            "categorizedByPrice": [
              {"$match": {"price": {"$exists": 1}}},
              {"$bucket": {"groupBy": "$price", "boundaries": [0, 150, 200, 300, 400],
                           "default": "Other",
                           "output": {"count": {"$sum": 1}, "titles": {"$push": "$title"}}}}],
            "categorizedByYears(Auto)": [{"$bucketAuto": {"groupBy": "$year", "buckets": 4}}]}}])j",
      kArtwork, {R"j({"categorizedByTags": [{"_id": "painting", "count": 6},
                                 {"_id": "oil", "count": 4}],
           "categorizedByPrice": [
             {"_id": 0, "count": 2, "titles": ["Dancer", "Blue Flower"]},
             {"_id": 150, "count": 2,
              "titles": ["The Pillars of Society", "The Great Wave off Kanagawa"]},
             {"_id": 200, "count": 1, "titles": ["Melancholy III"]},
             {"_id": 300, "count": 1, "titles": ["Composition VII"]},
             {"_id": "Other", "count": 1, "titles": ["The Persistence of Memory"]}],
           "categorizedByYears(Auto)": [
             {"_id": {"min": null, "max": 1902}, "count": 2},
             {"_id": {"min": 1902, "max": 1918}, "count": 2},
             {"_id": {"min": 1918, "max": 1926}, "count": 2},
             {"_id": {"min": 1926, "max": 1931}, "count": 2}]})j"});
}

TEST(FacetStage, ShouldOutputOneDocumentOfEmptyArraysForAnEmptyInput) {
  ExpectOutput(R"([{"$facet": {"a": [{"$match": {}}], "n": [{"$count": "n"}]}}])", {},
               {R"({"a": [], "n": []})"});
}

TEST(FacetStage, ShouldFeedStagesAfterIt) {
  ExpectOutput(R"([{"$facet": {"total": [{"$count": "n"}], "page": [{"$skip": 1}, {"$limit": 1}]}},
                  {"$project": {"page": 1, "total": {"$arrayElemAt": ["$total.n", 0]}}}])",
               {R"({"_id": 1})", R"({"_id": 2})", R"({"_id": 3})"},
               {R"({"page": [{"_id": 2}], "total": 3})"});
}

TEST(FacetStage, ShouldAllowLookupAndUnionWithInside) {
  auto foreign = std::make_shared<testing::FakeCollections>();
  foreign->collections["other"] = {R"({"_id": 1, "v": "x"})"};
  Result<std::vector<std::string>> out = testing::RunWithCollections(
      R"([{"$facet": {
            "joined": [{"$lookup": {"from": "other", "localField": "_id", "foreignField": "_id",
                                    "as": "o"}}],
            "unioned": [{"$unionWith": "other"}]}}])",
      {R"({"_id": 1})"}, foreign);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{
                      R"({"joined": [{"_id": 1, "o": [{"_id": 1, "v": "x"}]}],
                          "unioned": [{"_id": 1}, {"_id": 1, "v": "x"}]})"}));
}

TEST(FacetStage, ShouldFailPast16MiBOfOutput) {
  std::vector<std::string> docs;
  std::string big(1024 * 1024, 'x');
  for (int i = 0; i < 9; ++i) docs.push_back(R"({"s": ")" + big + R"("})");
  // mongod's message; the first element (a 9 MiB array) is too long to show.
  ExpectError(R"([{"$facet": {"a": [{"$match": {}}], "b": [{"$match": {}}]}}])", docs, 10334,
              "BSONObj size: 17826085 (0x1100125) is invalid. Size must be between 0 and "
              "16793600(16MB)");
  Result<std::vector<std::string>> out = RunPipeline(
      R"([{"$facet": {"a": [{"$match": {}}]}}, {"$project": {"n": {"$size": "$a"}}}])", docs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"n": 9})"}));
}

TEST(FacetStage, ShouldFailWhenItsInputPassesTheMemoryLimit) {
  PipelineOptions options;
  options.max_memory_bytes = 100;
  testing::PipelineSpec spec(R"([{"$facet": {"a": [{"$match": {}}]}}])");
  Result<Pipeline> pipeline = Pipeline::Parse(spec.array(), options);
  ASSERT_TRUE(pipeline.ok());
  auto exec = pipeline->Bind(std::make_unique<testing::VectorSource>(testing::Docs(
                                 {R"({"s": "0123456789012345678901234567890123456789"})",
                                  R"({"s": "0123456789012345678901234567890123456789"})",
                                  R"({"s": "0123456789012345678901234567890123456789"})"})),
                             false);
  Result<std::vector<std::string>> out = testing::Drain(exec.get());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 292);
}

struct FacetError {
  const char* pipeline;
  int code;
  const char* reason;
};

// Names the row in gtest's failure messages.
void PrintTo(const FacetError& row, std::ostream* os) { *os << row.pipeline; }

class FacetErrors : public ::testing::TestWithParam<FacetError> {};

TEST_P(FacetErrors, ShouldAnswerMongoDBsError) {
  const FacetError& row = GetParam();
  ExpectError(row.pipeline, {}, row.code, row.reason);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, FacetErrors,
    ::testing::Values(
        FacetError{R"([{"$facet": 1}])", 40169,
                   "the $facet specification must be a non-empty object, but found: $facet: 1"},
        FacetError{R"([{"$facet": {}}])", 40169,
                   "the $facet specification must be a non-empty object, but found: $facet: {}"},
        FacetError{R"([{"$facet": {"a": 1}}])", 40170,
                   "arguments to $facet must be arrays, a is type int"},
        FacetError{R"([{"$facet": {"a": [1]}}])", 40171,
                   "elements of arrays in $facet spec must be non-empty objects, a argument "
                   "contained an element of type int: 0: 1"},
        FacetError{R"([{"$facet": {"$a": [{"$match": {}}]}}])", 16410,
                   "$facet pipeline names must follow the naming rules of field path "
                   "expressions. :: caused by :: FieldPath field names may not start with '$'. "
                   "Consider using $getField or $setField."},
        FacetError{R"([{"$facet": {"a.b": [{"$match": {}}]}}])", 16412,
                   "$facet pipeline names must follow the naming rules of field path "
                   "expressions. :: caused by :: FieldPath field names may not contain '.'. "
                   "Consider using $getField or $setField."},
        FacetError{R"([{"$facet": {"": [{"$match": {}}]}}])", 15998,
                   "$facet pipeline names must follow the naming rules of field path "
                   "expressions. :: caused by :: FieldPath field names may not be empty "
                   "strings."},
        FacetError{R"([{"$facet": {"a": []}}])", 2, "sub-pipeline in $facet stage cannot be empty"},
        FacetError{R"([{"$facet": {"a": [{"$out": "x"}]}}])", 40600,
                   "$out is not allowed to be used within a $facet stage"},
        FacetError{R"([{"$facet": {"a": [{"$merge": "x"}]}}])", 40600,
                   "$merge is not allowed to be used within a $facet stage"},
        FacetError{R"([{"$facet": {"a": [{"$facet": {"b": [{"$match": {}}]}}]}}])", 40600,
                   "$facet is not allowed to be used within a $facet stage"},
        FacetError{R"([{"$facet": {"a": [{"$collStats": {}}]}}])", 40600,
                   "$collStats is not allowed to be used within a $facet stage"},
        FacetError{R"([{"$facet": {"a": [{"$bogus": 1}]}}])", 40324,
                   "Unrecognized pipeline stage name: '$bogus'"},
        // Every facet's shape is checked before any sub-pipeline is parsed.
        FacetError{R"([{"$facet": {"a": [{"$bogus": 1}], "b": 1}}])", 40170,
                   "arguments to $facet must be arrays, b is type int"}));

}  // namespace
}  // namespace cairn::query
