// Set operators as MongoDB 7.0 answers them: duplicates ignored, members equal by value, results
// of $setUnion/$setIntersection in value order, and error codes.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

const Case kSetCases[] = {
    {R"({"$setEquals": [[1, 2, 2], [2, 1.0]]})", "{}", R"({"r": true})"},
    {R"({"$setEquals": [[1, 2], [1]]})", "{}", R"({"r": false})"},
    {R"({"$setEquals": [[1]]})", "{}", nullptr, 17045,
     "$setEquals needs at least two arguments had: 1"},
    {R"({"$setEquals": [[1], "$missing"]})", "{}", nullptr, 17044,
     "All operands of $setEquals must be arrays. 2-th argument is of type: missing"},
    {R"({"$setEquals": [[1], 5]})", "{}", nullptr, 5887502},
    {R"({"$setIntersection": [[3, 1, 2, 2], [2, 3, 4]]})", "{}", R"({"r": [2, 3]})"},
    {R"({"$setIntersection": []})", "{}", R"({"r": []})"},
    {R"({"$setIntersection": [[1], null]})", "{}", R"({"r": null})"},
    {R"({"$setIntersection": [[1], 2]})", "{}", nullptr, 17047},
    {R"({"$setUnion": [[3, 1], [2, 1]]})", "{}", R"({"r": [1, 2, 3]})"},
    {R"({"$setUnion": [[1], "$missing"]})", "{}", R"({"r": null})"},
    {R"({"$setDifference": [[3, 1, 2, 1], [2]]})", "{}", R"({"r": [3, 1]})"},
    {R"({"$setDifference": [[1], null]})", "{}", R"({"r": null})"},
    {R"({"$setDifference": [1, [1]]})", "{}", nullptr, 17048},
    {R"({"$setIsSubset": [[1, 1], [1, 2]]})", "{}", R"({"r": true})"},
    {R"({"$setIsSubset": [[1, 3], [1, 2]]})", "{}", R"({"r": false})"},
    {R"({"$setIsSubset": [null, [1]]})", "{}", nullptr, 17046,
     "both operands of $setIsSubset must be arrays. First argument is of type: null"},
    {R"({"$allElementsTrue": [[1, true, "x"]]})", "{}", R"({"r": true})"},
    {R"({"$allElementsTrue": [[1, 0]]})", "{}", R"({"r": false})"},
    {R"({"$allElementsTrue": [[]]})", "{}", R"({"r": true})"},
    {R"({"$anyElementTrue": [[0, null, false]]})", "{}", R"({"r": false})"},
    {R"({"$anyElementTrue": [[0, [false]]]})", "{}", R"({"r": true})"},
    {R"({"$anyElementTrue": "$missing"})", "{}", nullptr, 17041,
     "$anyElementTrue's argument must be an array, but is missing"},
};

CAIRN_EXPRESSION_CASES(Set, kSetCases);

}  // namespace
}  // namespace cairn::query::testing
