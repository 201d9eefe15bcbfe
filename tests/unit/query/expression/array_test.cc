// Array operators as MongoDB 7.0 answers them: indexes from either end, null handling, value
// equality across numeric types, and error codes.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

const Case kArrayCases[] = {
    // $size $isArray
    {R"({"$size": [[1, 2, 3]]})", "{}", R"({"r": 3})"},
    {R"({"$size": "$a"})", R"({"a": []})", R"({"r": 0})"},
    {R"({"$size": "$a"})", "{}", nullptr, 17124,
     "The argument to $size must be an array, but was of type: missing"},
    {R"({"$size": [1, 2]})", "{}", nullptr, 16020},
    {R"({"$isArray": "$a"})", R"({"a": [1]})", R"({"r": true})"},
    {R"({"$isArray": ["$a"]})", R"({"a": "x"})", R"({"r": false})"},
    // $arrayElemAt $first $last
    {R"({"$arrayElemAt": [[1, 2, 3], 0]})", "{}", R"({"r": 1})"},
    {R"({"$arrayElemAt": [[1, 2, 3], -1]})", "{}", R"({"r": 3})"},
    {R"({"$arrayElemAt": [[1, 2, 3], 3]})", "{}", R"({})"},
    {R"({"$arrayElemAt": [[1, 2, 3], -4]})", "{}", R"({})"},
    {R"({"$arrayElemAt": [[1, 2, 3], 1.0]})", "{}", R"({"r": 2})"},
    {R"({"$arrayElemAt": ["$missing", 1]})", "{}", R"({"r": null})"},
    {R"({"$arrayElemAt": ["x", 1]})", "{}", nullptr, 28689,
     "$arrayElemAt's first argument must be an array, but is string"},
    {R"({"$arrayElemAt": [[1], "x"]})", "{}", nullptr, 28690},
    {R"({"$arrayElemAt": [[1], 1.5]})", "{}", nullptr, 28691,
     "$arrayElemAt's second argument must be representable as a 32-bit integer: 1.5"},
    {R"({"$first": [[1, 2]]})", "{}", R"({"r": 1})"},
    {R"({"$last": "$a"})", R"({"a": [1, {"b": 2}]})", R"({"r": {"b": 2}})"},
    {R"({"$first": "$a"})", R"({"a": []})", R"({})"},
    {R"({"$first": "x"})", "{}", nullptr, 28689,
     "$first's argument must be an array, but is string"},
    // $in
    {R"({"$in": [2, [1, 2]]})", "{}", R"({"r": true})"},
    {R"({"$in": [2, [1, 2.0]]})", "{}", R"({"r": true})"},
    {R"({"$in": ["2", [1, 2]]})", "{}", R"({"r": false})"},
    {R"({"$in": [1, "$missing"]})", "{}", nullptr, 40081,
     "$in requires an array as a second argument, found: missing"},
    // $slice
    {R"({"$slice": [[1, 2, 3, 4], 2]})", "{}", R"({"r": [1, 2]})"},
    {R"({"$slice": [[1, 2, 3, 4], -2]})", "{}", R"({"r": [3, 4]})"},
    {R"({"$slice": [[1, 2, 3, 4], 1, 2]})", "{}", R"({"r": [2, 3]})"},
    {R"({"$slice": [[1, 2, 3, 4], -3, 2]})", "{}", R"({"r": [2, 3]})"},
    {R"({"$slice": [[1, 2, 3, 4], 10, 2]})", "{}", R"({"r": []})"},
    {R"({"$slice": [null, 1]})", "{}", R"({"r": null})"},
    {R"({"$slice": [[1], 1, 0]})", "{}", nullptr, 28729,
     "Third argument to $slice must be positive: 0"},
    // $concatArrays $reverseArray $range
    {R"({"$concatArrays": [[1], [2, [3]], []]})", "{}", R"({"r": [1, 2, [3]]})"},
    {R"({"$concatArrays": [[1], null]})", "{}", R"({"r": null})"},
    {R"({"$concatArrays": [[1], 2]})", "{}", nullptr, 28664,
     "$concatArrays only supports arrays, not int"},
    {R"({"$reverseArray": [[1, 2, 3]]})", "{}", R"({"r": [3, 2, 1]})"},
    {R"({"$reverseArray": "$missing"})", "{}", R"({"r": null})"},
    {R"({"$range": [0, 5]})", "{}", R"({"r": [0, 1, 2, 3, 4]})"},
    {R"({"$range": [0, 10, 3]})", "{}", R"({"r": [0, 3, 6, 9]})"},
    {R"({"$range": [5, 0, -2]})", "{}", R"({"r": [5, 3, 1]})"},
    {R"({"$range": [0, 5, -1]})", "{}", R"({"r": []})"},
    {R"({"$range": [0, 5, 0]})", "{}", nullptr, 34449, "$range requires a non-zero step value"},
    {R"({"$range": [0.5, 5]})", "{}", nullptr, 34444},
    // $indexOfArray
    {R"({"$indexOfArray": [["a", "b", "a"], "a"]})", "{}", R"({"r": 0})"},
    {R"({"$indexOfArray": [["a", "b", "a"], "a", 1]})", "{}", R"({"r": 2})"},
    {R"({"$indexOfArray": [["a", "b", "a"], "a", 1, 2]})", "{}", R"({"r": -1})"},
    {R"({"$indexOfArray": [[1, 2], 2.0]})", "{}", R"({"r": 1})"},
    {R"({"$indexOfArray": [null, 1]})", "{}", R"({"r": null})"},
    {R"({"$indexOfArray": ["x", 1]})", "{}", nullptr, 40090},
    // $zip
    {R"({"$zip": {"inputs": [[1, 2], ["a", "b", "c"]]}})", "{}", R"({"r": [[1, "a"], [2, "b"]]})"},
    {R"({"$zip": {"inputs": [[1, 2], ["a"]], "useLongestLength": true}})", "{}",
     R"({"r": [[1, "a"], [2, null]]})"},
    {R"({"$zip": {"inputs": [[1, 2], ["a"]], "useLongestLength": true, "defaults": [0, "z"]}})",
     "{}", R"({"r": [[1, "a"], [2, "z"]]})"},
    {R"({"$zip": {"inputs": [[1], null]}})", "{}", R"({"r": null})"},
    {R"({"$zip": {"inputs": [[1]], "defaults": [0]}})", "{}", nullptr, 34466},
    {R"({"$zip": {"inputs": []}})", "{}", nullptr, 34465},
    // $sortArray
    {R"({"$sortArray": {"input": [3, 1, 2], "sortBy": 1}})", "{}", R"({"r": [1, 2, 3]})"},
    {R"({"$sortArray": {"input": [3, "a", 1], "sortBy": -1}})", "{}", R"({"r": ["a", 3, 1]})"},
    {R"({"$sortArray": {"input": [{"a": 2}, {"a": 1}, {"b": 1}], "sortBy": {"a": 1}}})", "{}",
     R"({"r": [{"b": 1}, {"a": 1}, {"a": 2}]})"},
    {R"({"$sortArray": {"input": null, "sortBy": 1}})", "{}", R"({"r": null})"},
    {R"({"$sortArray": {"input": [1], "sortBy": 2}})", "{}", nullptr, 2942506},
    {R"({"$sortArray": {"input": 1, "sortBy": 1}})", "{}", nullptr, 2942504},
    {R"({"$sortArray": {"input": [1]}})", "{}", nullptr, 2942503},
};

CAIRN_EXPRESSION_CASES(Array, kArrayCases);

}  // namespace
}  // namespace cairn::query::testing
