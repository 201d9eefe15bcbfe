// String operators as MongoDB 7.0 answers them: null handling, byte versus code-point indexes,
// coercion to string, and error codes.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

const Case kStringCases[] = {
    // $concat
    {R"({"$concat": ["a", "b", "c"]})", "{}", R"({"r": "abc"})"},
    {R"({"$concat": []})", "{}", R"({"r": ""})"},
    {R"({"$concat": ["a", "$missing"]})", "{}", R"({"r": null})"},
    {R"({"$concat": ["a", 1]})", "{}", nullptr, 16702, "$concat only supports strings, not int"},
    // $toLower $toUpper $strcasecmp (coerceToString)
    {R"({"$toLower": "AbC"})", "{}", R"({"r": "abc"})"},
    {R"({"$toUpper": "AbÉ"})", "{}", R"({"r": "ABÉ"})"},
    {R"({"$toUpper": 12})", "{}", R"({"r": "12"})"},
    {R"({"$toUpper": 1.5})", "{}", R"({"r": "1.5"})"},
    {R"({"$toLower": null})", "{}", R"({"r": ""})"},
    {R"({"$toLower": "$missing"})", "{}", R"({"r": ""})"},
    {R"({"$toUpper": [[1]]})", "{}", nullptr, 16007,
     "can't convert from BSON type array to String"},
    {R"({"$strcasecmp": ["abc", "ABC"]})", "{}", R"({"r": 0})"},
    {R"({"$strcasecmp": ["a", "B"]})", "{}", R"({"r": -1})"},
    {R"({"$strcasecmp": ["b", "A"]})", "{}", R"({"r": 1})"},
    // $substr / $substrBytes / $substrCP
    {R"({"$substr": ["hello", 1, 3]})", "{}", R"({"r": "ell"})"},
    {R"({"$substrBytes": ["hello", 1, -1]})", "{}", R"({"r": "ello"})"},
    {R"({"$substrBytes": ["hello", 10, 2]})", "{}", R"({"r": ""})"},
    {R"({"$substrBytes": [123, 0, 2]})", "{}", R"({"r": "12"})"},
    {R"({"$substrBytes": ["héllo", 2, 1]})", "{}", nullptr, 28656},
    {R"({"$substrBytes": ["héllo", 1, 1]})", "{}", nullptr, 28657},
    {R"({"$substrBytes": ["hello", -1, 1]})", "{}", nullptr, 50752,
     "$substrBytes:  starting index must be non-negative (got: -1)"},
    {R"({"$substrBytes": ["hello", "a", 1]})", "{}", nullptr, 16034,
     "$substrBytes:  starting index must be a numeric type (is BSON type string)"},
    {R"({"$substrCP": ["héllo", 1, 2]})", "{}", R"({"r": "él"})"},
    {R"({"$substrCP": ["abc", 5, 2]})", "{}", R"({"r": ""})"},
    {R"({"$substrCP": ["abc", 1.5, 2]})", "{}", nullptr, 34451},
    {R"({"$substrCP": ["abc", 0, -1]})", "{}", nullptr, 34454,
     "$substrCP: length must be a nonnegative integer."},
    // $strLenBytes / $strLenCP
    {R"({"$strLenBytes": "héllo"})", "{}", R"({"r": 6})"},
    {R"({"$strLenCP": "héllo"})", "{}", R"({"r": 5})"},
    {R"({"$strLenCP": "$missing"})", "{}", nullptr, 34471,
     "$strLenCP requires a string argument, found: missing"},
    {R"({"$strLenBytes": 1})", "{}", nullptr, 34473},
    // $split
    {R"({"$split": ["a-b-c", "-"]})", "{}", R"({"r": ["a", "b", "c"]})"},
    {R"({"$split": ["-a-", "-"]})", "{}", R"({"r": ["", "a", ""]})"},
    {R"({"$split": ["abc", "x"]})", "{}", R"({"r": ["abc"]})"},
    {R"({"$split": [null, "-"]})", "{}", R"({"r": null})"},
    {R"({"$split": ["abc", ""]})", "{}", nullptr, 40087, "$split requires a non-empty separator"},
    {R"({"$split": [1, "-"]})", "{}", nullptr, 40085},
    // $trim $ltrim $rtrim
    {R"({"$trim": {"input": "  a b \n"}})", "{}", R"({"r": "a b"})"},
    {R"({"$ltrim": {"input": "  a  "}})", "{}", R"({"r": "a  "})"},
    {R"({"$rtrim": {"input": "  a  "}})", "{}", R"({"r": "  a"})"},
    {R"({"$trim": {"input": "xxaxx", "chars": "x"}})", "{}", R"({"r": "a"})"},
    {R"({"$trim": {"input": "$missing"}})", "{}", R"({"r": null})"},
    {R"({"$trim": {"input": 1}})", "{}", nullptr, 50699,
     "$trim requires its input to be a string, got 1 (of type int) instead."},
    {R"({"$trim": {"chars": "x"}})", "{}", nullptr, 50695, "$trim requires an 'input' field"},
    {R"({"$trim": {"input": "a", "bad": 1}})", "{}", nullptr, 50694,
     "$trim found an unknown argument: bad"},
    {R"({"$trim": "a"})", "{}", nullptr, 50696,
     "$trim only supports an object as an argument, found string"},
    // $indexOfBytes / $indexOfCP
    {R"({"$indexOfBytes": ["abcb", "b"]})", "{}", R"({"r": 1})"},
    {R"({"$indexOfBytes": ["abcb", "b", 2]})", "{}", R"({"r": 3})"},
    {R"({"$indexOfBytes": ["abcb", "b", 2, 3]})", "{}", R"({"r": -1})"},
    {R"({"$indexOfBytes": ["abc", "z"]})", "{}", R"({"r": -1})"},
    {R"({"$indexOfBytes": [null, "z"]})", "{}", R"({"r": null})"},
    {R"({"$indexOfBytes": ["abc", null]})", "{}", nullptr, 40092,
     "$indexOfBytes requires a string as the second argument, found: null"},
    {R"({"$indexOfBytes": ["abc", "b", -1]})", "{}", nullptr, 40097,
     "$indexOfBytes requires a nonnegative starting index, found: -1"},
    {R"({"$indexOfBytes": ["abc", "b", 1.5]})", "{}", nullptr, 40096,
     "$indexOfBytesrequires an integral starting index, found a value of type: double, with "
     "value: 1.5"},
    {R"({"$indexOfCP": ["héllo", "l"]})", "{}", R"({"r": 2})"},
    {R"({"$indexOfCP": ["", ""]})", "{}", R"({"r": 0})"},
    // $replaceOne / $replaceAll
    {R"({"$replaceOne": {"input": "aXbXc", "find": "X", "replacement": "-"}})", "{}",
     R"({"r": "a-bXc"})"},
    {R"({"$replaceAll": {"input": "aXbXc", "find": "X", "replacement": "-"}})", "{}",
     R"({"r": "a-b-c"})"},
    {R"({"$replaceAll": {"input": "ab", "find": "", "replacement": "."}})", "{}",
     R"({"r": ".a.b."})"},
    {R"({"$replaceOne": {"input": null, "find": "X", "replacement": "-"}})", "{}",
     R"({"r": null})"},
    {R"({"$replaceOne": {"input": 1, "find": "X", "replacement": "-"}})", "{}", nullptr, 51746,
     "$replaceOne requires that 'input' be a string, found: 1"},
    {R"({"$replaceOne": {"input": "a", "find": "X"}})", "{}", nullptr, 51747},
};

CAIRN_EXPRESSION_CASES(String, kStringCases);

}  // namespace
}  // namespace cairn::query::testing
