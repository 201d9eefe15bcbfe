// $map, $filter, $reduce and $let as MongoDB 7.0 answers them: variable scoping, null input,
// limits, and parse errors.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

const Case kIterationCases[] = {
    // $map
    {R"({"$map": {"input": [1, 2, 3], "in": {"$multiply": ["$$this", 2]}}})", "{}",
     R"({"r": [2, 4, 6]})"},
    {R"({"$map": {"input": "$a", "as": "x", "in": {"$add": ["$$x", "$k"]}}})",
     R"({"a": [1, 2], "k": 10})", R"({"r": [11, 12]})"},
    {R"({"$map": {"input": "$a", "in": "$$this.b"}})", R"({"a": [{"b": 1}, {"c": 2}]})",
     R"({"r": [1, null]})"},
    {R"({"$map": {"input": "$missing", "in": 1}})", "{}", R"({"r": null})"},
    {R"({"$map": {"input": 5, "in": 1}})", "{}", nullptr, 16883,
     "input to $map must be an array not int"},
    {R"({"$map": {"input": [], "as": "Bad", "in": 1}})", "{}", nullptr, 9},
    {R"({"$map": {"input": []}})", "{}", nullptr, 16882, "Missing 'in' parameter to $map"},
    {R"({"$map": {"input": [], "in": 1, "x": 1}})", "{}", nullptr, 16879},
    {R"({"$map": {"input": [1], "as": "v", "in": "$$this"}})", "{}", nullptr, 17276,
     "Use of undefined variable: this"},
    {R"({"$map": {"input": [[1, 2], [3]], "as": "o", "in": {"$map": {"input": "$$o", "in": {"$add": ["$$this", 1]}}}}})",
     "{}", R"({"r": [[2, 3], [4]]})"},
    // $filter
    {R"({"$filter": {"input": [1, 2, 3, 4], "cond": {"$gt": ["$$this", 2]}}})", "{}",
     R"({"r": [3, 4]})"},
    {R"({"$filter": {"input": [1, 2, 3, 4], "as": "n", "cond": {"$lt": ["$$n", 4]}, "limit": 2}})",
     "{}", R"({"r": [1, 2]})"},
    {R"({"$filter": {"input": [1, 2], "cond": true, "limit": null}})", "{}", R"({"r": [1, 2]})"},
    {R"({"$filter": {"input": [1, 2], "cond": true, "limit": 0}})", "{}", nullptr, 327392},
    {R"({"$filter": {"input": [1, 2], "cond": true, "limit": 1.5}})", "{}", nullptr, 327391},
    {R"({"$filter": {"input": null, "cond": true}})", "{}", R"({"r": null})"},
    {R"({"$filter": {"input": "x", "cond": true}})", "{}", nullptr, 28651,
     "input to $filter must be an array not string"},
    {R"({"$filter": {"input": []}})", "{}", nullptr, 28650, "Missing 'cond' parameter to $filter"},
    {R"({"$filter": 1})", "{}", nullptr, 28646},
    // $reduce
    {R"({"$reduce": {"input": [1, 2, 3], "initialValue": 0, "in": {"$add": ["$$value", "$$this"]}}})",
     "{}", R"({"r": 6})"},
    {R"({"$reduce": {"input": ["a", "b"], "initialValue": "", "in": {"$concat": ["$$value", "$$this"]}}})",
     "{}", R"({"r": "ab"})"},
    {R"({"$reduce": {"input": [[1], [2, 3]], "initialValue": [], "in": {"$concatArrays": ["$$value", "$$this"]}}})",
     "{}", R"({"r": [1, 2, 3]})"},
    {R"({"$reduce": {"input": [], "initialValue": 7, "in": 0}})", "{}", R"({"r": 7})"},
    {R"({"$reduce": {"input": null, "initialValue": 0, "in": 0}})", "{}", R"({"r": null})"},
    {R"({"$reduce": {"input": 5, "initialValue": 0, "in": 0}})", "{}", nullptr, 40080,
     "$reduce requires that 'input' be an array, found: 5"},
    {R"({"$reduce": {"input": [], "in": 0}})", "{}", nullptr, 40078},
    // $let
    {R"({"$let": {"vars": {"a": 1, "b": "$x"}, "in": {"$add": ["$$a", "$$b"]}}})", R"({"x": 2})",
     R"({"r": 3})"},
    {R"({"$let": {"vars": {"a": 1}, "in": {"$let": {"vars": {"a": 2}, "in": "$$a"}}}})", "{}",
     R"({"r": 2})"},
    {R"({"$let": {"vars": {"a": 1, "b": "$$a"}, "in": "$$b"}})", "{}", nullptr, 17276},
    {R"({"$let": {"vars": {"A": 1}, "in": 1}})", "{}", nullptr, 9},
    {R"({"$let": {"vars": 1, "in": 1}})", "{}", nullptr, 10065},
    {R"({"$let": {"in": 1}})", "{}", nullptr, 16876, "Missing 'vars' parameter to $let"},
    {R"({"$let": {"vars": {}}})", "{}", nullptr, 16877, "Missing 'in' parameter to $let"},
    {R"({"$let": {"vars": {}, "in": 1, "x": 1}})", "{}", nullptr, 16875},
    {R"({"$let": [1]})", "{}", nullptr, 16874},
    // $rand
    {R"({"$lt": [{"$rand": {}}, 1]})", "{}", R"({"r": true})"},
    {R"({"$rand": {"a": 1}})", "{}", nullptr, 3040501, "$rand does not currently accept arguments"},
};

CAIRN_EXPRESSION_CASES(Iteration, kIterationCases);

}  // namespace
}  // namespace cairn::query::testing
