// Specification of $group: MongoDB's parse errors in their order, Cairn's precise refusals
// (expressions, accumulators and _id shapes it lacks), grouping by MongoDB's value comparison,
// and each accumulator's semantics including the numeric type of $sum/$avg results.
#include <gtest/gtest.h>

#include "query/pipeline/pipeline.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::C;
using testing::ExpectError;
using testing::ExpectOutput;
using testing::RunPipeline;

struct GroupErrorCase {
  const char* group;  // the $group argument
  int code;
  const char* reason;
};

void PrintTo(const GroupErrorCase& c, std::ostream* os) { *os << c.group; }

class GroupParseError : public ::testing::TestWithParam<GroupErrorCase> {};

TEST_P(GroupParseError, ShouldAnswerAPreciseError) {
  const GroupErrorCase& c = GetParam();
  ExpectError(std::string(R"([{"$group": )") + c.group + "}]", {}, c.code, c.reason);
}

const GroupErrorCase kGroupErrors[] = {
    // MongoDB's own errors.
    {R"(1)", 15947, "a group's fields must be specified in an object"},
    {R"({})", 15955, "a group specification must include an _id"},
    {R"({"n": {"$sum": 1}})", 15955, "a group specification must include an _id"},
    {R"({"_id": 1, "_id": 2})", 15948, "a group's _id may only be specified once"},
    {R"({"_id": 1, "n": 1})", 40234, "The field 'n' must be an accumulator object"},
    {R"({"_id": 1, "n": {}})", 40234, "The field 'n' must be an accumulator object"},
    {R"({"_id": 1, "n": {"sum": 1}})", 40234, "The field 'n' must be an accumulator object"},
    {R"({"_id": 1, "a.b": {"$sum": 1}})", 40235, "The field name 'a.b' cannot contain '.'"},
    {R"({"_id": 1, "$n": {"$sum": 1}})", 40236, "The field name '$n' cannot be an operator name"},
    {R"({"_id": 1, "n": {"$sum": 1, "$avg": 1}})", 40238,
     "The field 'n' must specify one accumulator"},
    {R"({"_id": 1, "n": {"$sum": [1]}})", 40237, "The $sum accumulator is a unary operator"},
    {R"({"_id": 1, "n": {"$count": []}})", 40237, "The $count accumulator is a unary operator"},
    {R"({"_id": 1, "n": {"$foo": 1}})", 15952, "unknown group operator '$foo'"},
    {R"({"_id": 1, "n": {"$count": 1}})", 14, "$count takes no arguments, i.e. $count:{}"},
    {R"({"_id": 1, "n": {"$count": {"a": 1}}})", 14, "$count takes no arguments, i.e. $count:{}"},
    {R"({"_id": 1, "n": {"$sum": "$"}})", 16872, "'$' by itself is not a valid FieldPath"},
    {R"({"_id": "$a."})", 40353, "FieldPath must not end with a '.'."},
    {R"({"_id": "$a..b"})", 15998, "FieldPath field names may not be empty strings."},
    {R"({"_id": "$a.$b"})", 16410,
     "FieldPath field names may not start with '$'. Consider using $getField or $setField."},
    {R"({"_id": 1, "n": {"$sum": {"$bogus": 1}}})", 168, "Unrecognized expression '$bogus'"},
    {R"({"_id": 1, "n": {"$sum": {"$add": [1], "$sub": 1}}})", 15983,
     "An object representing an expression must have exactly one field: { $add: [ 1 ], $sub: 1 }"},
    {R"({"_id": {"a": 1}})", 17390, "$group does not support inclusion-style expressions"},
    {R"({"_id": "$$foo"})", 17276, "Use of undefined variable: foo"},
    {R"({"_id": "$$"})", 9, "empty variable names are not allowed"},
    // What Cairn does not have yet, named.
    {R"({"_id": 1, "n": {"$median": "$a"}})", 2,
     "The $group accumulator $median is not supported by Cairn yet"},
    {R"({"_id": 1, "n": {"$mergeObjects": "$a"}})", 2,
     "The $group accumulator $mergeObjects is not supported by Cairn yet"},
};

INSTANTIATE_TEST_SUITE_P(Group, GroupParseError, ::testing::ValuesIn(kGroupErrors));

TEST(Group, ShouldAnswerNothingForNoInput) {
  ExpectOutput(R"([{"$group": {"_id": null, "n": {"$sum": 1}}}])", {}, {});
}

TEST(Group, ShouldGroupEqualNumbersOfAnyTypeTogetherShowingTheFirstSeen) {
  ExpectOutput(R"([{"$group": {"_id": "$k", "n": {"$sum": 1}}}])",
               {R"({"k": 1})", R"({"k": 2})", R"({"k": 1.0})", R"({"k": {"$numberLong": "1"}})",
                R"({"k": "1"})"},
               {R"({"_id": 1, "n": 3})", R"({"_id": 2, "n": 1})", R"({"_id": "1", "n": 1})"});
}

TEST(Group, ShouldGroupMissingAndNullAsNull) {
  ExpectOutput(R"([{"$group": {"_id": "$k", "n": {"$count": {}}}}])",
               {R"({"k": null})", R"({})", R"({"k": 0})"},
               {R"({"_id": null, "n": 2})", R"({"_id": 0, "n": 1})"});
}

TEST(Group, ShouldGroupByConstants) {
  const std::vector<std::string> docs = {R"({"a": 1})", R"({"a": 2})"};
  ExpectOutput(R"([{"$group": {"_id": null, "n": {"$sum": 1}}}])", docs,
               {R"({"_id": null, "n": 2})"});
  ExpectOutput(R"([{"$group": {"_id": "all", "n": {"$sum": 1}}}])", docs,
               {R"({"_id": "all", "n": 2})"});
  ExpectOutput(R"([{"$group": {"_id": true, "n": {"$sum": 1}}}])", docs,
               {R"({"_id": true, "n": 2})"});
  ExpectOutput(R"([{"$group": {"_id": 1.5, "n": {"$sum": 1}}}])", docs,
               {R"({"_id": 1.5, "n": 2})"});
  ExpectOutput(R"([{"$group": {"_id": {}, "n": {"$sum": 1}}}])", docs, {R"({"_id": {}, "n": 2})"});
  ExpectOutput(R"([{"$group": {"_id": {"$literal": "$a"}, "n": {"$sum": 1}}}])", docs,
               {R"({"_id": "$a", "n": 2})"});
}

TEST(Group, ShouldEvaluateFieldPathsThroughDocumentsAndArrays) {
  ExpectOutput(R"([{"$group": {"_id": "$a.b", "n": {"$sum": 1}}}])",
               {R"({"a": {"b": "x"}})", R"({"a": [{"b": 1}, {"c": 2}, 5, {"b": [3]}]})",
                R"({"a": 5})", R"({"a": []})"},
               {R"({"_id": "x", "n": 1})", R"({"_id": [1, [3]], "n": 1})",
                R"({"_id": null, "n": 1})", R"({"_id": [], "n": 1})"});
}

TEST(Group, ShouldGroupByAndAccumulateExpressions) {
  const std::vector<std::string> docs = {R"({"a": 1, "b": "x", "v": 2})",
                                         R"({"a": 2, "b": "x", "v": 3})",
                                         R"({"a": 1, "b": "y", "v": 4})"};
  ExpectOutput(
      R"([{"$group": {"_id": {"a": "$a", "b": "$b"}, "n": {"$sum": {"$add": ["$v", 1]}}}}])", docs,
      {R"({"_id": {"a": 1, "b": "x"}, "n": 3})", R"({"_id": {"a": 2, "b": "x"}, "n": 4})",
       R"({"_id": {"a": 1, "b": "y"}, "n": 5})"});
  ExpectOutput(R"([{"$group": {"_id": {"$toUpper": "$b"}, "all": {"$push": "$$CURRENT.v"}}}])",
               docs, {R"({"_id": "X", "all": [2, 3]})", R"({"_id": "Y", "all": [4]})"});
  ExpectOutput(R"([{"$group": {"_id": ["$b"], "n": {"$count": {}}}}])", docs,
               {R"({"_id": ["x"], "n": 2})", R"({"_id": ["y"], "n": 1})"});
  ExpectOutput(R"([{"$group": {"_id": "$$ROOT.b", "first": {"$first": "$$ROOT"}}}, {"$limit": 1}])",
               docs, {R"({"_id": "x", "first": {"a": 1, "b": "x", "v": 2}})"});
}

TEST(Group, ShouldReadCommandLetVariables) {
  PipelineOptions options;
  BsonDoc let = BsonDoc::FromJson(R"({"k": 10})");
  options.expression_context = *ExpressionContext::Make(let.view());
  Result<std::vector<std::string>> out =
      RunPipeline(R"([{"$group": {"_id": null, "n": {"$sum": {"$multiply": ["$v", "$$k"]}}}}])",
                  {R"({"v": 1})", R"({"v": 2})"}, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"_id": null, "n": 30})"}));
}

TEST(Group, ShouldStopAtAnExpressionError) {
  ExpectError(R"([{"$group": {"_id": {"$divide": [1, "$d"]}}}])", {R"({"d": 0})"}, 2,
              "can't $divide by zero");
}

TEST(Group, ShouldEmitIdThenAccumulatorsInSpecificationOrder) {
  ExpectOutput(R"([{"$group": {"n": {"$sum": 1}, "_id": "$g", "m": {"$max": "$v"}}}])",
               {R"({"g": "a", "v": 1})", R"({"g": "b", "v": 5})", R"({"g": "a", "v": 3})"},
               {R"({"_id": "a", "n": 2, "m": 3})", R"({"_id": "b", "n": 1, "m": 5})"});
}

// $sum/$count/$avg results by input, exact to the BSON type.
struct NumericCase {
  const char* accumulator;
  std::vector<std::string> values;  // the "v" of each input document; "" = missing
  const char* expected;             // the "r" of the single output, relaxed JSON
};

void PrintTo(const NumericCase& c, std::ostream* os) {
  *os << c.accumulator << " → " << c.expected;
}

class GroupNumeric : public ::testing::TestWithParam<NumericCase> {};

TEST_P(GroupNumeric, ShouldAnswerMongoDBsValueAndType) {
  const NumericCase& c = GetParam();
  std::vector<std::string> docs;
  for (const std::string& v : c.values) docs.push_back(v.empty() ? "{}" : "{\"v\": " + v + "}");
  ExpectOutput(std::string(R"([{"$group": {"_id": null, "r": )") + c.accumulator + "}}]", docs,
               {std::string(R"({"_id": null, "r": )") + c.expected + "}"});
}

const NumericCase kNumericCases[] = {
    // int32 stays int32 while it fits; outgrowing int32 gives int64; int64 input gives int64.
    {R"({"$sum": "$v"})", {"1", "2", "3"}, "6"},
    {R"({"$sum": "$v"})", {"2147483647", "1"}, R"({"$numberLong": "2147483648"})"},
    {R"({"$sum": "$v"})", {"-2147483648", "-1"}, R"({"$numberLong": "-2147483649"})"},
    {R"({"$sum": "$v"})", {"2147483647", "1", "-1"}, "2147483647"},
    {R"({"$sum": "$v"})", {R"({"$numberLong": "1"})", "2"}, R"({"$numberLong": "3"})"},
    // Leaving int64's range gives a double.
    {R"({"$sum": "$v"})",
     {R"({"$numberLong": "9223372036854775807"})", "1"},
     "9223372036854775808.0"},
    {R"({"$sum": "$v"})",
     {R"({"$numberLong": "-9223372036854775808"})", "-1"},
     "-9223372036854775808.0"},
    // Any double makes a double; the sum is compensated (ten 0.1 are exactly 1).
    {R"({"$sum": "$v"})", {"1", "2.5"}, "3.5"},
    {R"({"$sum": "$v"})",
     {"0.1", "0.1", "0.1", "0.1", "0.1", "0.1", "0.1", "0.1", "0.1", "0.1"},
     "1.0"},
    // Non-numbers and missing values are ignored; nothing numeric sums to int32 0.
    {R"({"$sum": "$v"})", {"1", "\"7\"", "null", "", "[1, 2]", "true"}, "1"},
    {R"({"$sum": "$v"})", {"\"a\"", ""}, "0"},
    // Constants: $sum: 1 counts, $sum: 2 doubles it, a non-number constant sums to 0.
    {R"({"$sum": 1})", {"1", "", "\"x\""}, "3"},
    {R"({"$sum": 2})", {"1", ""}, "4"},
    {R"({"$sum": 1.5})", {"1", ""}, "3.0"},
    {R"({"$sum": "abc"})", {"1", ""}, "0"},
    {R"({"$count": {}})", {"1", "", "null"}, "3"},
    // $avg: a double over the numeric values; null when there are none.
    {R"({"$avg": "$v"})", {"1", "2"}, "1.5"},
    {R"({"$avg": "$v"})", {"1", "2", "\"x\"", "null", ""}, "1.5"},
    {R"({"$avg": "$v"})", {R"({"$numberLong": "4"})", "2.0"}, "3.0"},
    {R"({"$avg": "$v"})", {"\"x\"", ""}, "null"},
    {R"({"$avg": 5})", {"1", ""}, "5.0"},
};

INSTANTIATE_TEST_SUITE_P(Group, GroupNumeric, ::testing::ValuesIn(kNumericCases));

TEST(Group, ShouldTakeMinAndMaxByValueIgnoringNullAndMissing) {
  const std::vector<std::string> docs = {R"({"v": 3})",   R"({"v": null})", R"({})",
                                         R"({"v": 1.5})", R"({"v": "b"})",  R"({"v": 10})"};
  ExpectOutput(R"([{"$group": {"_id": 0, "lo": {"$min": "$v"}, "hi": {"$max": "$v"}}}])", docs,
               {R"({"_id": 0, "lo": 1.5, "hi": "b"})"});
  ExpectOutput(R"([{"$group": {"_id": 0, "lo": {"$min": "$v"}, "hi": {"$max": "$v"}}}])",
               {R"({"v": null})", R"({})"}, {R"({"_id": 0, "lo": null, "hi": null})"});
  // Equal values: the first seen stays.
  ExpectOutput(R"([{"$group": {"_id": 0, "lo": {"$min": "$v"}}}])",
               {R"({"v": 2})", R"({"v": 2.0})"}, {R"({"_id": 0, "lo": 2})"});
}

TEST(Group, ShouldTakeFirstAndLastInInputOrderWithMissingAsNull) {
  ExpectOutput(R"([{"$group": {"_id": "$g", "f": {"$first": "$v"}, "l": {"$last": "$v"}}}])",
               {R"({"g": 1, "v": "a"})", R"({"g": 1, "v": "b"})", R"({"g": 1})", R"({"g": 2})",
                R"({"g": 2, "v": [1]})"},
               {R"({"_id": 1, "f": "a", "l": null})", R"({"_id": 2, "f": null, "l": [1]})"});
}

TEST(Group, ShouldPushEveryPresentValueAndAddEachDistinctValueOnce) {
  ExpectOutput(R"([{"$group": {"_id": 0, "p": {"$push": "$v"}, "s": {"$addToSet": "$v"}}}])",
               {R"({"v": 1})", R"({})", R"({"v": [1, 2]})", R"({"v": 1.0})", R"({"v": null})",
                R"({"v": {"$numberLong": "1"}})", R"({"v": [1, 2]})", R"({"v": "1"})"},
               {R"({"_id": 0, "p": [1, [1, 2], 1.0, null, {"$numberLong": "1"}, [1, 2], "1"],
                    "s": [1, [1, 2], null, "1"]})"});
  ExpectOutput(R"([{"$group": {"_id": 0, "p": {"$push": "$v"}, "s": {"$addToSet": "$v"}}}])",
               {R"({})"}, {R"({"_id": 0, "p": [], "s": []})"});
}

TEST(Group, ShouldSumAndAverageDecimalsExactly) {
  ExpectOutput(
      R"([{"$group": {"_id": 0, "s": {"$sum": "$v"}, "a": {"$avg": "$v"}}}])",
      {R"({"v": {"$numberDecimal": "0.1"}})", R"({"v": {"$numberDecimal": "0.2"}})", R"({"v": 3})"},
      {R"({"_id": 0, "s": {"$numberDecimal": "3.3"}, "a": {"$numberDecimal": "1.1"}})"});
}

TEST(Group, ShouldFailPastTheMemoryLimitWithoutDiskUse) {
  PipelineOptions small;
  small.group_max_memory_bytes = 2000;
  small.allow_disk_use = false;
  std::vector<std::string> docs;
  for (int i = 0; i < 100; ++i) docs.push_back("{\"k\": " + std::to_string(i) + "}");
  Result<std::vector<std::string>> out =
      RunPipeline(R"([{"$group": {"_id": "$k", "n": {"$sum": 1}}}])", docs, small);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 292);
  EXPECT_EQ(out.status().reason(),
            "Exceeded memory limit for $group, but didn't allow external sort. Pass "
            "allowDiskUse:true to opt in.");
  // One group stays small however many documents feed it.
  out = RunPipeline(R"([{"$group": {"_id": null, "n": {"$sum": 1}}}])", docs, small);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"_id": null, "n": 100})"}));
}

}  // namespace
}  // namespace cairn::query
