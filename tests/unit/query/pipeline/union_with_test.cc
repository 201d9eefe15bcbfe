// Specification of $unionWith: the input documents then the sub-pipeline's results over another
// collection (string and object forms, a missing collection read as empty, 7.0's collectionless
// form with $documents, nested $unionWith and $lookup), a following $limit that never opens the
// other collection, and MongoDB's parse errors (9, 40415, 14, 31441).
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
using testing::FakeCollections;
using testing::RunWithCollections;

// MongoDB's $unionWith documentation: suppliers and warehouses.
std::shared_ptr<FakeCollections> Warehouses() {
  auto foreign = std::make_shared<FakeCollections>();
  foreign->collections["warehouses"] = {
      R"({"_id": 1, "warehouse": "A", "region": "West", "state": "California"})",
      R"({"_id": 2, "warehouse": "B", "region": "Central", "state": "Colorado"})",
      R"({"_id": 3, "warehouse": "C", "region": "East", "state": "Florida"})"};
  foreign->collections["inner"] = {R"({"k": 1})", R"({"k": 2})"};
  return foreign;
}

const std::vector<std::string> kSuppliers = {
    R"({"_id": 1, "supplier": "Aardvark and Sons", "state": "Texas"})",
    R"({"_id": 2, "supplier": "Bears Run Amok.", "state": "Colorado"})",
    R"({"_id": 3, "supplier": "Squid Mark Inc. ", "state": "Rhode Island"})"};

struct UnionCase {
  const char* name;
  const char* pipeline;
  std::vector<std::string> input;
  std::vector<std::string> expected;
};

// Names the row in gtest's failure messages.
void PrintTo(const UnionCase& row, std::ostream* os) { *os << row.pipeline; }

class UnionWithOutput : public ::testing::TestWithParam<UnionCase> {};

TEST_P(UnionWithOutput, ShouldOutputTheInputThenTheSubPipelineResults) {
  const UnionCase& row = GetParam();
  Result<std::vector<std::string>> out = RunWithCollections(row.pipeline, row.input, Warehouses());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(row.expected));
}

INSTANTIATE_TEST_SUITE_P(
    Rows, UnionWithOutput,
    ::testing::Values(
        UnionCase{"DocsExampleDistinctStates",
                  R"([{"$project": {"state": 1, "_id": 0}},
                      {"$unionWith": {"coll": "warehouses",
                                      "pipeline": [{"$project": {"state": 1, "_id": 0}}]}},
                      {"$group": {"_id": "$state"}}, {"$sort": {"_id": 1}}])",
                  kSuppliers,
                  {R"({"_id": "California"})", R"({"_id": "Colorado"})", R"({"_id": "Florida"})",
                   R"({"_id": "Rhode Island"})", R"({"_id": "Texas"})"}},
        UnionCase{"StringForm",
                  R"([{"$project": {"_id": 1}}, {"$unionWith": "warehouses"},
                      {"$project": {"_id": 1}}])",
                  {R"({"_id": 9})"},
                  {R"({"_id": 9})", R"({"_id": 1})", R"({"_id": 2})", R"({"_id": 3})"}},
        UnionCase{"ObjectFormWithoutPipeline",
                  R"([{"$unionWith": {"coll": "inner"}}])",
                  {R"({"a": 1})"},
                  {R"({"a": 1})", R"({"k": 1})", R"({"k": 2})"}},
        UnionCase{"MissingCollectionIsEmpty",
                  R"([{"$unionWith": "nope"}])",
                  {R"({"a": 1})"},
                  {R"({"a": 1})"}},
        UnionCase{"EmptyInput", R"([{"$unionWith": "inner"}])", {}, {R"({"k": 1})", R"({"k": 2})"}},
        UnionCase{"SubPipelineFiltersAndSorts",
                  R"([{"$unionWith": {"coll": "warehouses", "pipeline": [
                        {"$match": {"region": {"$ne": "West"}}}, {"$sort": {"_id": -1}},
                        {"$project": {"_id": 0, "warehouse": 1}}]}}])",
                  {R"({"a": 1})"},
                  {R"({"a": 1})", R"({"warehouse": "C"})", R"({"warehouse": "B"})"}},
        // The 7.0 documentation's collectionless form.
        UnionCase{"CollectionlessWithDocuments",
                  R"([{"$unionWith": {"pipeline": [{"$documents": [
                        {"_id": 4, "flavor": "orange"},
                        {"_id": 5, "flavor": "vanilla", "price": 20}]}]}}])",
                  {R"({"_id": 1, "flavor": "chocolate"})"},
                  {R"({"_id": 1, "flavor": "chocolate"})", R"({"_id": 4, "flavor": "orange"})",
                   R"({"_id": 5, "flavor": "vanilla", "price": 20})"}},
        UnionCase{"NestedUnionWith",
                  R"([{"$unionWith": {"coll": "inner", "pipeline": [
                        {"$unionWith": {"coll": "warehouses",
                                        "pipeline": [{"$match": {"_id": 1}},
                                                     {"$project": {"_id": 1}}]}}]}}])",
                  {R"({"a": 0})"},
                  {R"({"a": 0})", R"({"k": 1})", R"({"k": 2})", R"({"_id": 1})"}},
        UnionCase{"LookupInside",
                  R"([{"$unionWith": {"coll": "inner", "pipeline": [
                        {"$lookup": {"from": "warehouses", "localField": "k",
                                     "foreignField": "_id", "as": "w"}},
                        {"$project": {"_id": 0, "k": 1, "w": "$w.warehouse"}}]}}])",
                  {},
                  {R"({"k": 1, "w": ["A"]})", R"({"k": 2, "w": ["B"]})"}},
        UnionCase{"LimitAfterStopsInTheInput",
                  R"([{"$unionWith": "inner"}, {"$limit": 3}])",
                  {R"({"a": 1})", R"({"a": 2})"},
                  {R"({"a": 1})", R"({"a": 2})", R"({"k": 1})"}}),
    [](const ::testing::TestParamInfo<UnionCase>& info) { return info.param.name; });

TEST(UnionWithStage, ShouldNotOpenTheOtherCollectionWhenTheInputSatisfiesALimit) {
  auto foreign = Warehouses();
  Result<std::vector<std::string>> out = RunWithCollections(
      R"([{"$unionWith": "inner"}, {"$limit": 1}])", {R"({"a": 1})", R"({"a": 2})"}, foreign);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"a": 1})"}));
  EXPECT_EQ(foreign->opens, 0);
}

TEST(UnionWithStage, ShouldReadEveryCollectionAsEmptyWithoutForeignCollections) {
  testing::ExpectOutput(R"([{"$unionWith": "inner"}])", {R"({"a": 1})"}, {R"({"a": 1})"});
}

struct UnionError {
  const char* pipeline;
  int code;
  const char* reason;
};

// Names the row in gtest's failure messages.
void PrintTo(const UnionError& row, std::ostream* os) { *os << row.pipeline; }

class UnionWithErrors : public ::testing::TestWithParam<UnionError> {};

TEST_P(UnionWithErrors, ShouldAnswerMongoDBsError) {
  const UnionError& row = GetParam();
  Result<std::vector<std::string>> out = RunWithCollections(row.pipeline, {}, Warehouses());
  ASSERT_FALSE(out.ok()) << row.pipeline;
  EXPECT_EQ(out.status().code_number(), row.code) << out.status().ToString();
  if (row.reason[0] != '\0') {
    EXPECT_EQ(out.status().reason(), row.reason);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rows, UnionWithErrors,
    ::testing::Values(
        UnionError{R"([{"$unionWith": 1}])", 9,
                   "the $unionWith stage specification must be an object or string, but found "
                   "int"},
        UnionError{R"([{"$unionWith": ["a"]}])", 9,
                   "the $unionWith stage specification must be an object or string, but found "
                   "array"},
        UnionError{R"([{"$unionWith": {"coll": "a", "foo": 1}}])", 40415,
                   "BSON field '$unionWith.foo' is an unknown field."},
        UnionError{R"([{"$unionWith": {"coll": 1}}])", 14,
                   "BSON field '$unionWith.coll' is the wrong type 'int', expected type "
                   "'string'"},
        UnionError{R"([{"$unionWith": {"coll": "a", "pipeline": {}}}])", 14,
                   "BSON field '$unionWith.pipeline' is the wrong type 'object', expected type "
                   "'array'"},
        UnionError{R"([{"$unionWith": {"coll": "a", "pipeline": [1]}}])", 14,
                   "BSON field '$unionWith.pipeline.0' is the wrong type 'int', expected type "
                   "'object'"},
        UnionError{R"([{"$unionWith": {}}])", 9,
                   "$unionWith stage without explicit collection must have a pipeline with "
                   "$documents as first stage"},
        UnionError{R"([{"$unionWith": {"pipeline": []}}])", 9,
                   "$unionWith stage without explicit collection must have a pipeline with "
                   "$documents as first stage"},
        UnionError{R"([{"$unionWith": {"pipeline": [{"$match": {}}]}}])", 9,
                   "$unionWith stage without explicit collection must have a pipeline with "
                   "$documents as first stage"},
        UnionError{R"([{"$unionWith": {"coll": "a", "pipeline": [{"$out": "b"}]}}])", 31441,
                   "$out is not allowed within a $unionWith's sub-pipeline"},
        UnionError{R"([{"$unionWith": {"coll": "a", "pipeline": [{"$merge": "b"}]}}])", 31441,
                   "$merge is not allowed within a $unionWith's sub-pipeline"},
        UnionError{R"([{"$unionWith": {"coll": "a", "pipeline": [{"$bogus": 1}]}}])", 40324,
                   "Unrecognized pipeline stage name: '$bogus'"},
        UnionError{R"([{"$unionWith": {"coll": "a", "pipeline": [{"$limit": -1}]}}])", 5107201,
                   ""}));

}  // namespace
}  // namespace cairn::query
