// $firstN $lastN $maxN $minN as array expressions and $stdDevPop / $stdDevSamp as expressions,
// as MongoDB 7.0 answers them (rows from the array-operator examples of MongoDB's pages), and
// $top / $topN, which are accumulators only.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

class ArrayN : public ::testing::TestWithParam<Case> {};
TEST_P(ArrayN, ShouldAnswerAsMongoDB) { CheckCase(GetParam()); }

const Case kArrayNCases[] = {
    // docs: {$firstN: {n: 3, input: "$score"}} over arrays of scores
    {R"({"$firstN": {"n": 3, "input": "$score"}})", R"({"score": [1, 2, 3, 4, 5]})",
     R"({"r": [1, 2, 3]})"},
    {R"({"$firstN": {"n": 3, "input": "$score"}})", R"({"score": [12, 90]})", R"({"r": [12, 90]})"},
    {R"({"$lastN": {"n": 3, "input": "$score"}})", R"({"score": [1, 2, 3, 4, 5]})",
     R"({"r": [3, 4, 5]})"},
    {R"({"$firstN": {"n": 2, "input": [null, 1]}})", "{}", R"({"r": [null, 1]})"},
    // docs: $maxN / $minN skip null
    {R"({"$maxN": {"n": 2, "input": "$score"}})", R"({"score": [90, 100, null, 10]})",
     R"({"r": [100, 90]})"},
    {R"({"$minN": {"n": 2, "input": "$score"}})", R"({"score": [90, 100, null, 10]})",
     R"({"r": [10, 90]})"},
    {R"({"$maxN": {"n": 3, "input": ["a", 5, {"x": 1}]}})", "{}", R"({"r": [{"x": 1}, "a", 5]})"},
    {R"({"$minN": {"n": 2, "input": []}})", "{}", R"({"r": []})"},
    {R"({"$maxN": {"n": {"$numberLong": "2"}, "input": [1, 2, 3]}})", "{}", R"({"r": [3, 2]})"},
    {R"({"$maxN": {"n": 2.0, "input": [1, 2, 3]}})", "{}", R"({"r": [3, 2]})"},
    // errors: n first, then input
    {R"({"$firstN": {"n": 0, "input": "$a"}})", "{}", nullptr, 5787908,
     "'n' must be greater than 0, found 0"},
    {R"({"$lastN": {"n": 2, "input": 5}})", "{}", nullptr, 5788200, "Input must be an array"},
    {R"({"$lastN": {"n": 2, "input": "$missing"}})", "{}", nullptr, 5788200},
    {R"({"$minN": {"n": null, "input": [1]}})", "{}", nullptr, 5787902,
     "Value for 'n' must be of integral type, but found null"},
    {R"({"$minN": [1, 2]})", "{}", nullptr, 5787900,
     "specification must be an object; found $minN: [ 1, 2 ]"},
    {R"({"$lastN": {"n": 1}})", "{}", nullptr, 5787907, "Missing value for 'input'"},
    {R"({"$top": {"output": "$a", "sortBy": {"a": 1}}})", "{}", nullptr, 168},
    {R"({"$bottomN": {"output": "$a", "sortBy": {"a": 1}, "n": 1}})", "{}", nullptr, 168},
    // $stdDevPop / $stdDevSamp as expressions: one array operand or several operands
    {R"({"$stdDevPop": [[1, 2, 3, 4]]})", "{}", R"({"r": 1.118033988749895})"},
    {R"({"$stdDevPop": "$a"})", R"({"a": [1, "x", 3]})", R"({"r": 1.0})"},
    {R"({"$stdDevSamp": [1, 3]})", "{}", R"({"r": 1.4142135623730951})"},
    {R"({"$stdDevSamp": [5]})", "{}", R"({"r": null})"},
    {R"({"$stdDevPop": "$missing"})", "{}", R"({"r": null})"},
};

INSTANTIATE_TEST_SUITE_P(Expressions, ArrayN, ::testing::ValuesIn(kArrayNCases));

}  // namespace
}  // namespace cairn::query::testing
