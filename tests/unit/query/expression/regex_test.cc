// Regular-expression operators as MongoDB 7.0 answers them: $regexMatch, $regexFind and
// $regexFindAll with string and BSON-regex patterns, code-point indexes, unmatched captures,
// empty matches, null handling and error codes.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

const Case kRegexCases[] = {
    {R"j({"$regexMatch": {"input": "Hello", "regex": "^h", "options": "i"}})j", "{}",
     R"j({"r": true})j"},
    {R"j({"$regexMatch": {"input": "Hello", "regex": "^h"}})j", "{}", R"j({"r": false})j"},
    {R"j({"$regexMatch": {"input": "ABC", "regex": {"$regularExpression": {"pattern": "b",
         "options": "i"}}}})j",
     "{}", R"j({"r": true})j"},
    {R"j({"$regexMatch": {"input": null, "regex": "a"}})j", "{}", R"j({"r": false})j"},
    {R"j({"$regexMatch": {"input": "a", "regex": "$missing"}})j", "{}", R"j({"r": false})j"},
    {R"j({"$regexMatch": {"input": "$s", "regex": "$p"}})j", R"j({"s": "xay", "p": "a"})j",
     R"j({"r": true})j"},
    {R"j({"$regexFind": {"input": "abc123def45", "regex": "([a-z]+)(\\d+)"}})j", "{}",
     R"j({"r": {"match": "abc123", "idx": 0, "captures": ["abc", "123"]}})j"},
    {R"j({"$regexFind": {"input": "héllo", "regex": "l"}})j", "{}",
     R"j({"r": {"match": "l", "idx": 2, "captures": []}})j"},
    {R"j({"$regexFind": {"input": "a", "regex": "(a)|(b)"}})j", "{}",
     R"j({"r": {"match": "a", "idx": 0, "captures": ["a", null]}})j"},
    {R"j({"$regexFind": {"input": "abc", "regex": "z"}})j", "{}", R"j({"r": null})j"},
    {R"j({"$regexFind": {"input": null, "regex": "z"}})j", "{}", R"j({"r": null})j"},
    {R"j({"$regexFindAll": {"input": "abc123def45", "regex": "(\\d+)"}})j", "{}",
     R"j({"r": [{"match": "123", "idx": 3, "captures": ["123"]},
               {"match": "45", "idx": 9, "captures": ["45"]}]})j"},
    {R"j({"$regexFindAll": {"input": "éb", "regex": ""}})j", "{}",
     R"j({"r": [{"match": "", "idx": 0, "captures": []}, {"match": "", "idx": 1, "captures": []},
               {"match": "", "idx": 2, "captures": []}]})j"},
    {R"j({"$regexFindAll": {"input": "abc", "regex": "z"}})j", "{}", R"j({"r": []})j"},
    {R"j({"$regexFindAll": {"input": "$missing", "regex": "z"}})j", "{}", R"j({"r": []})j"},
    // errors
    {R"j({"$regexMatch": "a"})j", "{}", nullptr, 51103,
     "$regexMatch expects an object of named arguments but found: string"},
    {R"j({"$regexMatch": {"regex": "a"}})j", "{}", nullptr, 31022,
     "$regexMatch requires 'input' parameter"},
    {R"j({"$regexFind": {"input": "a"}})j", "{}", nullptr, 31023,
     "$regexFind requires 'regex' parameter"},
    {R"j({"$regexFindAll": {"input": "a", "regex": "a", "x": 1}})j", "{}", nullptr, 31024,
     "$regexFindAll found an unknown argument: x"},
    {R"j({"$regexMatch": {"input": 1, "regex": "a"}})j", "{}", nullptr, 51104,
     "$regexMatch needs 'input' to be of type string"},
    {R"j({"$regexMatch": {"input": "a", "regex": 1}})j", "{}", nullptr, 51105,
     "$regexMatch needs 'regex' to be of type string or regex"},
    {R"j({"$regexMatch": {"input": "a", "regex": "a", "options": 1}})j", "{}", nullptr, 51106,
     "$regexMatch needs 'options' to be of type string"},
    {R"j({"$regexMatch": {"input": "a", "regex": {"$regularExpression": {"pattern": "a",
         "options": "i"}}, "options": "m"}})j",
     "{}", nullptr, 51107,
     "$regexMatch found regex option(s) specified in both 'regex' and 'option' fields"},
    {R"j({"$regexMatch": {"input": "a", "regex": "("}})j", "{}", nullptr, 51111},
    {R"j({"$regexMatch": {"input": "a", "regex": "a", "options": "z"}})j", "{}", nullptr, 51108},
    {R"j({"$regexMatch": {"input": "a", "regex": "$p"}})j", R"j({"p": "("})j", nullptr, 51111},
};

CAIRN_EXPRESSION_CASES(Regex, kRegexCases);

}  // namespace
}  // namespace cairn::query::testing
