// Specification of the stages MongoDB builds on $group — $sortByCount (counts per value, most
// frequent first), $bucket (counts or accumulators per boundary range) — and of $sample (N
// random input documents), with MongoDB's argument errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "query/pipeline/pipeline.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::C;
using testing::ExpectError;
using testing::ExpectOutput;
using testing::RunPipeline;

TEST(SortByCountStage, ShouldCountPerValueMostFrequentFirst) {
  const std::vector<std::string> docs = {R"({"a": "x"})", R"({"a": "y"})", R"({"a": "x"})",
                                         R"({"a": "x"})", R"({"b": 1})"};
  ExpectOutput(R"([{"$match": {"a": {"$exists": true}}}, {"$sortByCount": "$a"}])", docs,
               {R"({"_id": "x", "count": 3})", R"({"_id": "y", "count": 1})"});
  ExpectOutput(R"([{"$sortByCount": {"$toUpper": "$a"}}, {"$limit": 1}])", docs,
               {R"({"_id": "X", "count": 3})"});
  ExpectOutput(R"([{"$sortByCount": "$a"}])", {}, {});
}

TEST(SortByCountStage, ShouldRejectWhatIsNotAPathOrAnExpression) {
  const char* kInvalid =
      "the sortByCount field must be defined as a $-prefixed path or an expression inside an "
      "object";
  ExpectError(R"([{"$sortByCount": "a"}])", {}, 40148, kInvalid);
  ExpectError(R"([{"$sortByCount": {"a": 1}}])", {}, 40147, kInvalid);
  ExpectError(R"([{"$sortByCount": 1}])", {}, 40149,
              "the sortByCount field must be specified as a string or as an object");
}

TEST(BucketStage, ShouldGroupByBoundaryRangesSortedByLowerBound) {
  const std::vector<std::string> docs = {R"({"p": 5})",  R"({"p": 25})", R"({"p": 12})",
                                         R"({"p": 10})", R"({"p": 99})", R"({"q": 1})"};
  ExpectOutput(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 10, 20, 30],
                                "default": "other"}}])",
               docs,
               {R"({"_id": 0, "count": 1})", R"({"_id": 10, "count": 2})",
                R"({"_id": 20, "count": 1})", R"({"_id": "other", "count": 2})"});
  ExpectOutput(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 20], "default": -1,
                                "output": {"total": {"$sum": "$p"}, "n": {"$sum": 1}}}}])",
               docs,
               {R"({"_id": -1, "total": 124, "n": 3})", R"({"_id": 0, "total": 27, "n": 3})"});
}

TEST(BucketStage, ShouldAnswerMongoDBsErrors) {
  const std::vector<std::string> docs = {R"({"p": 50})"};
  ExpectError(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 10]}}])", docs, 40066);
  ExpectError(R"([{"$bucket": 1}])", {}, 40201,
              "Argument to $bucket stage must be an object, but found type: int.");
  ExpectError(R"([{"$bucket": {"groupBy": "$p"}}])", {}, 40198,
              "$bucket requires 'groupBy' and 'boundaries' to be specified.");
  ExpectError(R"([{"$bucket": {"groupBy": "p", "boundaries": [0, 1]}}])", {}, 40202);
  ExpectError(R"([{"$bucket": {"groupBy": "$p", "boundaries": 1}}])", {}, 40200,
              "The $bucket 'boundaries' field must be an array, but found type: int.");
  ExpectError(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0]}}])", {}, 40192,
              "The $bucket 'boundaries' field must have at least 2 values, but found 1 value(s).");
  ExpectError(R"([{"$bucket": {"groupBy": "$p", "boundaries": ["$x", 1]}}])", {}, 40191);
  ExpectError(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, "a"]}}])", {}, 40193,
              "All values in the the 'boundaries' option to $bucket must have the same type. "
              "Found conflicting types int and string.");
  ExpectError(R"([{"$bucket": {"groupBy": "$p", "boundaries": [5, 1]}}])", {}, 40194,
              "The 'boundaries' option to $bucket must be sorted, but elements 0 and 1 are not "
              "in ascending order (5 is not less than 1).");
  ExpectError(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 10], "default": 5}}])", {},
              40199);
  ExpectError(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 10], "output": 1}}])", {}, 40196);
  ExpectError(R"([{"$bucket": {"groupBy": "$p", "boundaries": [0, 10], "x": 1}}])", {}, 40197,
              "Unrecognized option to $bucket: x.");
}

TEST(SampleStage, ShouldReturnSizeDistinctInputDocuments) {
  std::vector<std::string> docs;
  for (int i = 0; i < 50; ++i) docs.push_back("{\"_id\": " + std::to_string(i) + "}");
  Result<std::vector<std::string>> out = RunPipeline(R"([{"$sample": {"size": 10}}])", docs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->size(), 10u);
  std::set<std::string> distinct(out->begin(), out->end());
  EXPECT_EQ(distinct.size(), 10u);
  std::vector<std::string> all = C(docs);
  for (const std::string& doc : *out) {
    EXPECT_NE(std::find(all.begin(), all.end(), doc), all.end()) << doc;
  }
  // Asking for more than there is returns everything.
  out = RunPipeline(R"([{"$sample": {"size": 100}}])", docs);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->size(), 50u);
  ExpectOutput(R"([{"$sample": {"size": 0}}])", docs, {});
}

TEST(SampleStage, ShouldAnswerMongoDBsArgumentErrors) {
  ExpectError(R"([{"$sample": 1}])", {}, 28745,
              "the $sample stage specification must be an object");
  ExpectError(R"([{"$sample": {}}])", {}, 28749, "$sample stage must specify a size");
  ExpectError(R"([{"$sample": {"size": "1"}}])", {}, 28746,
              "size argument to $sample must be a number");
  ExpectError(R"([{"$sample": {"size": -1}}])", {}, 28747,
              "size argument to $sample must not be negative");
  ExpectError(R"([{"$sample": {"size": 1, "x": 1}}])", {}, 28748,
              "unrecognized option to $sample: x");
}

}  // namespace
}  // namespace cairn::query
