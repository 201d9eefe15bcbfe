// Object operators as MongoDB 7.0 answers them: $mergeObjects, $objectToArray, $arrayToObject,
// $getField, $setField and $unsetField.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

const Case kObjectCases[] = {
    // $mergeObjects
    {R"({"$mergeObjects": [{"a": 1, "b": 1}, {"b": 2, "c": 3}]})", "{}",
     R"({"r": {"a": 1, "b": 2, "c": 3}})"},
    {R"({"$mergeObjects": [{"a": 1}, null, "$missing"]})", "{}", R"({"r": {"a": 1}})"},
    {R"({"$mergeObjects": "$arr"})", R"({"arr": [{"a": 1}, {"a": 2, "b": 1}]})",
     R"({"r": {"a": 2, "b": 1}})"},
    {R"({"$mergeObjects": []})", "{}", R"({"r": {}})"},
    {R"({"$mergeObjects": [{"a": 1}, 5]})", "{}", nullptr, 40400,
     "$mergeObjects requires object inputs, but input 5 is of type int"},
    // $objectToArray / $arrayToObject
    {R"({"$objectToArray": {"$literal": {"a": 1, "b": [2]}}})", "{}",
     R"({"r": [{"k": "a", "v": 1}, {"k": "b", "v": [2]}]})"},
    {R"({"$objectToArray": "$missing"})", "{}", R"({"r": null})"},
    {R"({"$objectToArray": 1})", "{}", nullptr, 40390,
     "$objectToArray requires a document input, found: int"},
    {R"({"$arrayToObject": [[["a", 1], ["b", 2], ["a", 3]]]})", "{}", R"({"r": {"a": 3, "b": 2}})"},
    {R"({"$arrayToObject": [[{"k": "a", "v": 1}]]})", "{}", R"({"r": {"a": 1}})"},
    {R"({"$arrayToObject": [[]]})", "{}", R"({"r": {}})"},
    {R"({"$arrayToObject": null})", "{}", R"({"r": null})"},
    {R"({"$arrayToObject": [[1]]})", "{}", nullptr, 40398,
     "Unrecognised input type format for $arrayToObject: int"},
    {R"({"$arrayToObject": [[["a"]]]})", "{}", nullptr, 40397},
    {R"({"$arrayToObject": [[[1, 2]]]})", "{}", nullptr, 40395},
    {R"({"$arrayToObject": [[{"k": "a"}]]})", "{}", nullptr, 40392},
    {R"({"$arrayToObject": [[{"k": "a", "x": 1}]]})", "{}", nullptr, 40393},
    {R"({"$arrayToObject": [[["a", 1], {"k": "b", "v": 2}]]})", "{}", nullptr, 40396},
    // $getField
    {R"({"$getField": "a.b"})", R"({"a.b": 1, "a": {"b": 2}})", R"({"r": 1})"},
    {R"({"$getField": {"field": "$x", "input": {"$literal": {"$x": 5}}}})", "{}", nullptr, 5654600,
     "'$x' is a field path reference which is not allowed in this context. Did you mean "
     "{$literal: '$x'}?"},
    {R"({"$getField": {"field": {"$literal": "$x"}, "input": {"$literal": {"$x": 5}}}})", "{}",
     R"({"r": 5})"},
    {R"({"$getField": {"field": "a", "input": "$missing"}})", "{}", R"({})"},
    {R"({"$getField": {"field": "a", "input": null}})", "{}", R"({"r": null})"},
    {R"({"$getField": {"field": "a", "input": 5}})", "{}", R"({})"},
    {R"({"$getField": {"field": 5, "input": {}}})", "{}", nullptr, 5654602,
     "$getField requires 'field' to evaluate to type String, but got int"},
    {R"({"$getField": {"input": {}}})", "{}", nullptr, 3041702},
    {R"({"$getField": {"field": "a", "bogus": 1}})", "{}", nullptr, 3041701},
    // $setField / $unsetField
    {R"({"$setField": {"field": "b", "input": {"a": 1}, "value": 2}})", "{}",
     R"({"r": {"a": 1, "b": 2}})"},
    {R"({"$setField": {"field": "a", "input": {"a": 1, "c": 3}, "value": 2}})", "{}",
     R"({"r": {"a": 2, "c": 3}})"},
    {R"({"$setField": {"field": "a.b", "input": {}, "value": 1}})", "{}", R"({"r": {"a.b": 1}})"},
    {R"({"$setField": {"field": "a", "input": {"a": 1, "b": 2}, "value": "$$REMOVE"}})", "{}",
     R"({"r": {"b": 2}})"},
    {R"({"$unsetField": {"field": "a", "input": {"a": 1, "b": 2}}})", "{}", R"({"r": {"b": 2}})"},
    {R"({"$setField": {"field": "a", "input": null, "value": 1}})", "{}", R"({"r": null})"},
    {R"({"$setField": {"field": "a", "input": 1, "value": 1}})", "{}", nullptr, 4161105},
    {R"({"$setField": {"field": "a", "input": {}}})", "{}", nullptr, 4161103},
    {R"({"$unsetField": {"field": "a", "input": {}, "value": 1}})", "{}", nullptr, 4161101},
};

CAIRN_EXPRESSION_CASES(Object, kObjectCases);

}  // namespace
}  // namespace cairn::query::testing
