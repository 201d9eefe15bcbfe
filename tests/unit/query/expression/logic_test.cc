// Comparison, boolean and conditional operators as MongoDB 7.0 answers them: value order across
// types (missing below null), truthiness, short-circuiting, and parse errors.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

const Case kLogicCases[] = {
    // Comparison.
    {R"({"$eq": [1, 1.0]})", "{}", R"({"r": true})"},
    {R"({"$eq": [1, {"$numberLong": "1"}]})", "{}", R"({"r": true})"},
    {R"({"$eq": ["$missing", null]})", "{}", R"({"r": false})"},
    {R"({"$eq": ["$missing", "$alsoMissing"]})", "{}", R"({"r": true})"},
    {R"({"$lt": ["$missing", null]})", "{}", R"({"r": true})"},
    {R"({"$gt": ["a", 5]})", "{}", R"({"r": true})"},
    {R"({"$gte": [[1, 2], [1]]})", "{}", R"({"r": true})"},
    {R"({"$ne": [{"a": 1}, {"a": 1}]})", "{}", R"({"r": false})"},
    {R"({"$lte": [2, 1]})", "{}", R"({"r": false})"},
    {R"({"$cmp": [1, 2]})", "{}", R"({"r": -1})"},
    {R"({"$cmp": ["b", "a"]})", "{}", R"({"r": 1})"},
    {R"({"$cmp": [null, null]})", "{}", R"({"r": 0})"},
    {R"({"$eq": [1]})", "{}", nullptr, 16020,
     "Expression $eq takes exactly 2 arguments. 1 were passed in."},
    // Boolean.
    {R"({"$and": [1, "a", []]})", "{}", R"({"r": true})"},
    {R"({"$and": [1, 0]})", "{}", R"({"r": false})"},
    {R"({"$and": []})", "{}", R"({"r": true})"},
    {R"({"$and": [false, {"$divide": ["$x", 0]}]})", R"({"x": 1})", R"({"r": false})"},
    {R"({"$or": [null, "$missing", 0]})", "{}", R"({"r": false})"},
    {R"({"$or": [0, "$x"]})", R"({"x": 2})", R"({"r": true})"},
    {R"({"$or": []})", "{}", R"({"r": false})"},
    {R"({"$not": [null]})", "{}", R"({"r": true})"},
    {R"({"$not": 1})", "{}", R"({"r": false})"},
    // $cond
    {R"({"$cond": [true, "y", "n"]})", "{}", R"({"r": "y"})"},
    {R"({"$cond": ["$missing", "y", "n"]})", "{}", R"({"r": "n"})"},
    {R"({"$cond": {"if": {"$gt": ["$a", 1]}, "then": "big", "else": "small"}})", R"({"a": 5})",
     R"({"r": "big"})"},
    {R"({"$cond": {"if": "$a", "then": "$missing", "else": 1}})", R"({"a": 1})", R"({})"},
    {R"({"$cond": [true, 1]})", "{}", nullptr, 16020},
    {R"({"$cond": {"if": 1, "then": 2}})", "{}", nullptr, 17082,
     "Missing 'else' parameter to $cond"},
    {R"({"$cond": {"if": 1, "then": 2, "else": 3, "x": 4}})", "{}", nullptr, 17083,
     "Unrecognized parameter to $cond: x"},
    // $ifNull
    {R"({"$ifNull": ["$a", "default"]})", "{}", R"({"r": "default"})"},
    {R"({"$ifNull": ["$a", "default"]})", R"({"a": null})", R"({"r": "default"})"},
    {R"({"$ifNull": ["$a", "default"]})", R"({"a": 0})", R"({"r": 0})"},
    {R"({"$ifNull": ["$a", "$b", "c"]})", R"({"b": 2})", R"({"r": 2})"},
    {R"({"$ifNull": ["$a", "$b"]})", "{}", R"({})"},
    {R"({"$ifNull": ["$a"]})", "{}", nullptr, 1257300,
     "$ifNull needs at least two arguments, had: 1"},
    // $switch
    {R"({"$switch": {"branches": [{"case": {"$eq": ["$a", 1]}, "then": "one"},
                                  {"case": {"$eq": ["$a", 2]}, "then": "two"}],
                     "default": "other"}})",
     R"({"a": 2})", R"({"r": "two"})"},
    {R"({"$switch": {"branches": [{"case": {"$eq": ["$a", 1]}, "then": "one"}], "default": "other"}})",
     R"({"a": 3})", R"({"r": "other"})"},
    {R"({"$switch": {"branches": [{"case": {"$eq": ["$a", 1]}, "then": "one"}]}})", R"({"a": 3})",
     nullptr, 40066,
     "$switch could not find a matching branch for an input, and no default was specified."},
    {R"({"$switch": {"branches": [{"case": false, "then": 1}]}})", "{}", nullptr, 40069},
    {R"({"$switch": {"branches": []}})", "{}", nullptr, 40068,
     "$switch requires at least one branch."},
    {R"({"$switch": {"branches": [{"case": true}]}})", "{}", nullptr, 40065},
    {R"({"$switch": {"branches": [{"case": true, "then": 1, "else": 2}]}})", "{}", nullptr, 40063},
    {R"({"$switch": {"branches": {}}})", "{}", nullptr, 40061},
    {R"({"$switch": []})", "{}", nullptr, 40060},
};

CAIRN_EXPRESSION_CASES(Logic, kLogicCases);

}  // namespace
}  // namespace cairn::query::testing
