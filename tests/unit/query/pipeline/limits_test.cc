// Pipeline limits: the number of stages (FailedToParse past 1000), $lookup / $unionWith nesting
// (MaxSubPipelineDepthExceeded 232 past 20), result documents past 16 MiB + 16 KiB
// (BSONObjectTooLarge 10334, MongoDB's message) or 200 levels (Overflow), and $bucketAuto's
// granularity rounding terminating on every series for tiny, zero, huge and infinite values.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "query/pipeline/pipeline.h"
#include "query/projection/projection.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::ExpectError;
using testing::RunPipeline;

std::string Repeat(const std::string& stage, int n) {
  std::string out = "[";
  for (int i = 0; i < n; ++i) out += (i ? "," : "") + stage;
  return out + "]";
}

TEST(PipelineLimits, ShouldRefuseMoreThan1000Stages) {
  Result<std::vector<std::string>> ok = RunPipeline(Repeat(R"({"$skip": 0})", 1000), {"{}"});
  EXPECT_TRUE(ok.ok()) << ok.status().ToString();
  ExpectError(Repeat(R"({"$skip": 0})", 1001), {"{}"}, 9,
              "Pipeline length must be no longer than 1000 stages");
  // Sub-pipelines too.
  ExpectError(R"([{"$facet": {"f": )" + Repeat(R"({"$skip": 0})", 1001) + "}}]", {"{}"}, 9,
              "Pipeline length must be no longer than 1000 stages");
}

// n $lookup (or $unionWith) stages, each in the previous one's sub-pipeline.
std::string NestedLookups(int n) {
  std::string inner = "[]";
  for (int i = 0; i < n; ++i) {
    inner = R"([{"$lookup": {"from": "c", "as": "x", "pipeline": )" + inner + "}}]";
  }
  return inner;
}

std::string NestedUnions(int n) {
  std::string inner = "[]";
  for (int i = 0; i < n; ++i) {
    inner = R"([{"$unionWith": {"coll": "c", "pipeline": )" + inner + "}}]";
  }
  return inner;
}

TEST(PipelineLimits, ShouldRefuseSubPipelinesNestedPast20) {
  const std::string reason = "Maximum number of nested sub-pipelines exceeded. Limit is 20";
  EXPECT_TRUE(testing::ParseJson(NestedLookups(20)).ok());
  ExpectError(NestedLookups(21), {}, 232, reason);
  EXPECT_TRUE(testing::ParseJson(NestedUnions(20)).ok());
  ExpectError(NestedUnions(21), {}, 232, reason);
  // A localField/foreignField $lookup counts as a level too (MongoDB copies its context).
  std::string mixed = NestedLookups(20);
  mixed.replace(
      mixed.find("[]"), 2,
      R"([{"$lookup": {"from": "c", "as": "y", "localField": "a", "foreignField": "b"}}])");
  ExpectError(mixed, {}, 232, reason);
}

TEST(PipelineLimits, ShouldRefuseAResultDocumentPast16MiB) {
  // Two 9 MB strings side by side: each value fits, the document does not.
  // NOLINTNEXTLINE(bugprone-string-constructor): the length is meant, past the 8 MB it suspects.
  const std::string big(9'000'000, 'x');
  std::vector<std::string> docs = {R"({"_id": 1, "s": ")" + big + R"("})"};
  ExpectError(R"([{"$addFields": {"t": "$s"}}])", docs, 10334,
              "BSONObj size: 18000030 (0x112A89E) is invalid. Size must be between 0 and "
              "16793600(16MB) First element: _id: 1");
  // 16 MiB + 16 KiB is still a valid result (BSONObjMaxInternalSize).
  Result<std::vector<std::string>> fits = RunPipeline(R"([{"$project": {"s": 1}}])", docs);
  EXPECT_TRUE(fits.ok()) << fits.status().ToString();
}

TEST(PipelineLimits, ShouldRefuseAProjectedDocumentPast16MiB) {
  // find's projection: computed fields can outgrow the stored document.
  BsonDoc spec = BsonDoc::FromJson(R"({"a": {"$concat": ["$s", "$s"]}, "b": "$s"})");
  Result<Projection> projection = Projection::Parse(spec.view());
  ASSERT_TRUE(projection.ok()) << projection.status().ToString();
  BsonDoc doc = BsonDoc::FromJson(R"({"_id": 1, "s": ")" + std::string(6'000'000, 'x') + R"("})");
  BsonDoc out;
  Status status = projection->Apply(doc.view(), out.get());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), ErrorCode::kBSONObjectTooLarge);
  EXPECT_EQ(status.reason().substr(0, 14), "BSONObj size: ");
}

TEST(PipelineLimits, ShouldRefuseAResultDocumentDeeperThan200Levels) {
  // Each stage wraps the document once more: 201 levels after 200 stages over {}.
  std::vector<std::string> docs = {"{}"};
  ExpectError(Repeat(R"({"$replaceWith": {"w": "$$ROOT"}})", 200), docs, 15,
              "cannot convert document to BSON because it exceeds the limit of 200 levels of "
              "nesting");
  Result<std::vector<std::string>> ok =
      RunPipeline(Repeat(R"({"$replaceWith": {"w": "$$ROOT"}})", 199), docs);
  EXPECT_TRUE(ok.ok()) << ok.status().ToString();
}

TEST(BucketAutoLimits, ShouldTerminateOnEveryGranularityForExtremeValues) {
  const char* granularities[] = {"R5",  "R10", "R20", "R40", "R80",  "1-2-5",    "E6",
                                 "E12", "E24", "E48", "E96", "E192", "POWERSOF2"};
  // Tiny normal and subnormal doubles (the multiplier underflows to 0 below ~1e-322), zero,
  // huge doubles, infinity, a Decimal128 and large integers.
  std::vector<std::string> docs = {R"({"v": 5e-324})",
                                   R"({"v": 1e-320})",
                                   R"({"v": 2.2250738585072014e-308})",
                                   R"({"v": 1e-300})",
                                   R"({"v": 0})",
                                   R"({"v": 0.0})",
                                   R"({"v": 0.8})",
                                   R"({"v": 1e300})",
                                   R"({"v": 1.7976931348623157e308})",
                                   R"({"v": {"$numberDouble": "Infinity"}})",
                                   R"({"v": {"$numberDecimal": "1E-400"}})",
                                   R"({"v": {"$numberLong": "9223372036854775807"}})",
                                   R"({"v": 2147483647})"};
  for (const char* granularity : granularities) {
    for (int buckets : {1, 3, 20}) {
      auto start = std::chrono::steady_clock::now();
      Result<std::vector<std::string>> out = RunPipeline(
          R"([{"$bucketAuto": {"groupBy": "$v", "buckets": )" + std::to_string(buckets) +
              R"(, "granularity": ")" + granularity + R"("}}])",
          docs);
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      EXPECT_TRUE(out.ok()) << granularity << ": " << out.status().ToString();
      EXPECT_LT(seconds, 2.0) << granularity;
    }
  }
  // Negative values are refused (MongoDB's 40260), NaN too (40259).
  ExpectError(R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "R80"}}])",
              {R"({"v": -1e-320})"}, 40260);
  ExpectError(R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "R80"}}])",
              {R"({"v": {"$numberDouble": "NaN"}})"}, 40259);
}

TEST(BucketAutoLimits, ShouldRoundTinyValuesOntoTheSeries) {
  // Below every scaled series value a number rounds down to 0 and up to the smallest scaled
  // value (MongoDB's loops never end there); elsewhere as MongoDB's loops compute, with their
  // floating-point error (6.8e-301 is 6.8 * 1e-301 reached by repeated division by ten).
  testing::ExpectOutput(
      R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 1, "granularity": "R80"}}])",
      {R"({"v": 5e-324})"},
      {R"({"_id": {"min": 0.0, "max": {"$numberDouble": "1.017775230432967881e-321"}},)"
       R"( "count": 1})"});
  testing::ExpectOutput(
      R"([{"$bucketAuto": {"groupBy": "$v", "buckets": 1, "granularity": "E6"}}])",
      {R"({"v": 1e-300})"},
      {R"({"_id": {"min": {"$numberDouble": "6.8000000000000144607e-301"},)"
       R"( "max": {"$numberDouble": "1.0000000000000021802e-300"}}, "count": 1})"});
}

}  // namespace
}  // namespace cairn::query
