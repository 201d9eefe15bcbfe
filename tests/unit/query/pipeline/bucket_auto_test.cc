// Specification of $bucketAuto: buckets of about equal counts over the sorted groupBy values,
// equal values never split, each bucket's max the next one's min (the last: its largest value),
// missing values as null, `output` accumulators as $group has them, the granularity series
// rounding the boundaries (R5, E6, 1-2-5, POWERSOF2 — MongoDB's worked examples), and MongoDB's
// parse and run-time errors (40239…40246, 40257…40261).
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "query/pipeline/pipeline.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::ExpectError;
using testing::ExpectOutput;

// MongoDB's $bucketAuto documentation: the artwork collection's prices.
const std::vector<std::string> kArtwork = {
    R"({"_id": 1, "title": "The Pillars of Society", "year": 1926, "price": {"$numberDecimal": "199.99"}})",
    R"({"_id": 2, "title": "Melancholy III", "year": 1902, "price": {"$numberDecimal": "280.00"}})",
    R"({"_id": 3, "title": "Dancer", "year": 1925, "price": {"$numberDecimal": "76.04"}})",
    R"({"_id": 4, "title": "The Great Wave off Kanagawa", "price": {"$numberDecimal": "167.30"}})",
    R"({"_id": 5, "title": "The Persistence of Memory", "year": 1931, "price": {"$numberDecimal": "483.00"}})",
    R"({"_id": 6, "title": "Composition VII", "year": 1913, "price": {"$numberDecimal": "385.00"}})",
    R"({"_id": 7, "title": "The Scream", "price": {"$numberDecimal": "159.00"}})",
    R"({"_id": 8, "title": "Blue Flower", "year": 1918, "price": {"$numberDecimal": "118.42"}})"};

// {_id: i} for i in [0, n).
std::vector<std::string> Ids(int n) {
  std::vector<std::string> docs;
  for (int i = 0; i < n; ++i) docs.push_back(R"({"_id": )" + std::to_string(i) + "}");
  return docs;
}

struct BucketAutoCase {
  const char* name;
  const char* stage;
  std::vector<std::string> input;
  std::vector<std::string> expected;
};

// Names the row in gtest's failure messages.
void PrintTo(const BucketAutoCase& row, std::ostream* os) { *os << row.stage; }

class BucketAutoOutput : public ::testing::TestWithParam<BucketAutoCase> {};

TEST_P(BucketAutoOutput, ShouldBucketAsMongoDB) {
  const BucketAutoCase& row = GetParam();
  ExpectOutput(std::string("[{\"$bucketAuto\": ") + row.stage + "}]", row.input, row.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, BucketAutoOutput,
    ::testing::Values(
        BucketAutoCase{
            "DocsPriceInFourBuckets",
            R"({"groupBy": "$price", "buckets": 4})",
            kArtwork,
            {R"({"_id": {"min": {"$numberDecimal": "76.04"}, "max": {"$numberDecimal": "159.00"}}, "count": 2})",
             R"({"_id": {"min": {"$numberDecimal": "159.00"}, "max": {"$numberDecimal": "199.99"}}, "count": 2})",
             R"({"_id": {"min": {"$numberDecimal": "199.99"}, "max": {"$numberDecimal": "385.00"}}, "count": 2})",
             R"({"_id": {"min": {"$numberDecimal": "385.00"}, "max": {"$numberDecimal": "483.00"}}, "count": 2})"}},
        BucketAutoCase{"MissingValuesAreNull",
                       R"({"groupBy": "$year", "buckets": 4})",
                       kArtwork,
                       {R"({"_id": {"min": null, "max": 1902}, "count": 2})",
                        R"({"_id": {"min": 1902, "max": 1918}, "count": 2})",
                        R"({"_id": {"min": 1918, "max": 1926}, "count": 2})",
                        R"({"_id": {"min": 1926, "max": 1931}, "count": 2})"}},
        BucketAutoCase{"OutputAccumulators",
                       R"({"groupBy": "$year", "buckets": 2,
                "output": {"n": {"$sum": 1}, "titles": {"$push": "$title"},
                           "top": {"$max": "$price"}}})",
                       kArtwork,
                       {R"({"_id": {"min": null, "max": 1918}, "n": 4,
                 "titles": ["The Great Wave off Kanagawa", "The Scream", "Melancholy III",
                            "Composition VII"],
                 "top": {"$numberDecimal": "385.00"}})",
                        R"({"_id": {"min": 1918, "max": 1931}, "n": 4,
                 "titles": ["Blue Flower", "Dancer", "The Pillars of Society",
                            "The Persistence of Memory"],
                 "top": {"$numberDecimal": "483.00"}})"}},
        BucketAutoCase{"MoreBucketsThanDocuments",
                       R"({"groupBy": "$v", "buckets": 5})",
                       {R"({"v": 3})", R"({"v": 1})", R"({"v": 2})"},
                       {R"({"_id": {"min": 1, "max": 2}, "count": 1})",
                        R"({"_id": {"min": 2, "max": 3}, "count": 1})",
                        R"({"_id": {"min": 3, "max": 3}, "count": 1})"}},
        BucketAutoCase{"EqualValuesStayTogether",
                       R"({"groupBy": "$v", "buckets": 2})",
                       {R"({"v": 1})", R"({"v": 1})", R"({"v": 2})", R"({"v": 1})", R"({"v": 1})"},
                       {R"({"_id": {"min": 1, "max": 2}, "count": 4})",
                        R"({"_id": {"min": 2, "max": 2}, "count": 1})"}},
        BucketAutoCase{"LastBucketTakesTheRest",
                       R"({"groupBy": "$_id", "buckets": 3})",
                       Ids(10),
                       {R"({"_id": {"min": 0, "max": 3}, "count": 3})",
                        R"({"_id": {"min": 3, "max": 6}, "count": 3})",
                        R"({"_id": {"min": 6, "max": 9}, "count": 4})"}},
        BucketAutoCase{"ExpressionGroupBy",
                       R"({"groupBy": {"$mod": ["$_id", 2]}, "buckets": 2})",
                       Ids(5),
                       {R"({"_id": {"min": 0, "max": 1}, "count": 3})",
                        R"({"_id": {"min": 1, "max": 1}, "count": 2})"}},
        BucketAutoCase{"MixedTypesInCanonicalOrder",
                       R"({"groupBy": "$v", "buckets": 3})",
                       {R"({"v": "a"})", R"({"v": 1})", R"({"v": null})"},
                       {R"({"_id": {"min": null, "max": 1}, "count": 1})",
                        R"({"_id": {"min": 1, "max": "a"}, "count": 1})",
                        R"({"_id": {"min": "a", "max": "a"}, "count": 1})"}},
        BucketAutoCase{"EmptyInput", R"({"groupBy": "$v", "buckets": 3})", {}, {}},
        // The documentation's granularity comparison over _id 0..99 in 5 buckets.
        BucketAutoCase{"GranularityR5",
                       R"({"groupBy": "$_id", "buckets": 5, "granularity": "R5"})",
                       Ids(100),
                       {R"({"_id": {"min": 0, "max": 25.0}, "count": 25})",
                        R"({"_id": {"min": 25.0, "max": 63.0}, "count": 38})",
                        R"({"_id": {"min": 63.0, "max": 100.0}, "count": 37})"}},
        BucketAutoCase{"GranularityE6",
                       R"({"groupBy": "$_id", "buckets": 5, "granularity": "E6"})",
                       Ids(100),
                       {R"({"_id": {"min": 0, "max": 22.0}, "count": 22})",
                        R"({"_id": {"min": 22.0, "max": 47.0}, "count": 25})",
                        R"({"_id": {"min": 47.0, "max": 68.0}, "count": 21})",
                        R"({"_id": {"min": 68.0, "max": 100.0}, "count": 32})"}},
        BucketAutoCase{"Granularity125",
                       R"({"groupBy": "$_id", "buckets": 5, "granularity": "1-2-5"})",
                       Ids(100),
                       {R"({"_id": {"min": 0, "max": 20.0}, "count": 20})",
                        R"({"_id": {"min": 20.0, "max": 50.0}, "count": 30})",
                        R"({"_id": {"min": 50.0, "max": 100.0}, "count": 50})"}},
        BucketAutoCase{"GranularityPowersOf2",
                       R"({"groupBy": "$v", "buckets": 3, "granularity": "POWERSOF2"})",
                       {R"({"v": 1})", R"({"v": 2})", R"({"v": 3})", R"({"v": 4})", R"({"v": 5})",
                        R"({"v": 6})", R"({"v": 7})", R"({"v": 8})", R"({"v": 9})", R"({"v": 10})"},
                       {R"({"_id": {"min": 0.5, "max": 4}, "count": 3})",
                        R"({"_id": {"min": 4, "max": 8}, "count": 4})",
                        R"({"_id": {"min": 8, "max": 16}, "count": 3})"}},
        BucketAutoCase{"GranularityBelowOne",
                       R"({"groupBy": "$v", "buckets": 2, "granularity": "R5"})",
                       {R"({"v": 0.5})", R"({"v": 0.8})"},
                       {R"({"_id": {"min": 0.4, "max": 0.63}, "count": 1})",
                        R"({"_id": {"min": 0.63, "max": 1.0}, "count": 1})"}}),
    [](const ::testing::TestParamInfo<BucketAutoCase>& info) { return info.param.name; });

struct BucketAutoError {
  const char* stage;
  std::vector<std::string> input;
  int code;
  const char* reason;
};

// Names the row in gtest's failure messages.
void PrintTo(const BucketAutoError& row, std::ostream* os) { *os << row.stage; }

class BucketAutoErrors : public ::testing::TestWithParam<BucketAutoError> {};

TEST_P(BucketAutoErrors, ShouldAnswerMongoDBsError) {
  const BucketAutoError& row = GetParam();
  ExpectError(std::string("[{\"$bucketAuto\": ") + row.stage + "}]", row.input, row.code,
              row.reason);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, BucketAutoErrors,
    ::testing::Values(
        BucketAutoError{
            "1", {}, 40240, "The argument to $bucketAuto must be an object, but found type: int"},
        BucketAutoError{R"({"groupBy": "v", "buckets": 1})", {}, 40239, ""},
        BucketAutoError{R"({"groupBy": "$", "buckets": 1})", {}, 40239, ""},
        BucketAutoError{R"({"groupBy": {"a": 1}, "buckets": 1})", {}, 40239, ""},
        BucketAutoError{R"({"groupBy": "$v", "buckets": "1"})",
                        {},
                        40241,
                        "The $bucketAuto 'buckets' field must be a numeric value, but found "
                        "type: string"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 1.5})",
                        {},
                        40242,
                        "The $bucketAuto 'buckets' field must be representable as a 32-bit "
                        "integer, but found 1.5"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 0})",
                        {},
                        40243,
                        "The $bucketAuto 'buckets' field must be greater than 0, but found: 0"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": -2})",
                        {},
                        40243,
                        "The $bucketAuto 'buckets' field must be greater than 0, but found: -2"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 1, "output": 1})",
                        {},
                        40244,
                        "The $bucketAuto 'output' field must be an object, but found type: int"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 1, "foo": 1})",
                        {},
                        40245,
                        "Unrecognized option to $bucketAuto: foo"},
        BucketAutoError{R"({"buckets": 1})",
                        {},
                        40246,
                        "$bucketAuto requires 'groupBy' and 'buckets' to be specified"},
        BucketAutoError{R"({"groupBy": "$v"})",
                        {},
                        40246,
                        "$bucketAuto requires 'groupBy' and 'buckets' to be specified"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 1, "granularity": 1})",
                        {},
                        40261,
                        "The $bucketAuto 'granularity' field must be a string, but found type: "
                        "int"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 1, "granularity": "R7"})",
                        {},
                        40257,
                        "Unknown rounding granularity 'R7'"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 1, "output": {"n": 1}})", {}, 40234, ""},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 1, "granularity": "R5"})",
                        {R"({"v": "a"})"},
                        40258,
                        "$bucketAuto can specify a 'granularity' with numeric boundaries only, "
                        "but found a value with type: string"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 1, "granularity": "R5"})",
                        {R"({"v": NaN})"},
                        40259,
                        "$bucketAuto can specify a 'granularity' with numeric boundaries only, "
                        "but found a NaN"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 1, "granularity": "R5"})",
                        {R"({"v": -1})"},
                        40260,
                        "$bucketAuto can specify a 'granularity' with non-negative numbers "
                        "only, but found a negative number"},
        BucketAutoError{R"({"groupBy": "$v", "buckets": 1, "granularity": "R5"})",
                        {R"({"w": 1})"},
                        40258,
                        ""}));

}  // namespace
}  // namespace cairn::query
