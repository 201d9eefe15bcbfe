// $type, $isNumber, $convert and the $toX shortcuts as MongoDB 7.0 answers them: the conversion
// table, onError/onNull, and Decimal128 conversions.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

const Case kConvertCases[] = {
    // $type $isNumber
    {R"({"$type": [1]})", "{}", R"({"r": "int"})"},
    {R"({"$type": ["$a"]})", R"({"a": {"$numberLong": "1"}})", R"({"r": "long"})"},
    {R"({"$type": ["$missing"]})", "{}", R"({"r": "missing"})"},
    {R"({"$type": [[1]]})", "{}", R"({"r": "array"})"},
    {R"({"$type": [{"$literal": {"$oid": "5f0000000000000000000000"}}]})", "{}",
     R"({"r": "objectId"})"},
    {R"({"$isNumber": 1.5})", "{}", R"({"r": true})"},
    {R"({"$isNumber": "1"})", "{}", R"({"r": false})"},
    // Numbers.
    {R"({"$toInt": 1.9})", "{}", R"({"r": 1})"},
    {R"({"$toInt": -1.9})", "{}", R"({"r": -1})"},
    {R"({"$toInt": "42"})", "{}", R"({"r": 42})"},
    {R"({"$toInt": "4.2"})", "{}", nullptr, 241},
    {R"({"$toInt": 3000000000.0})", "{}", nullptr, 241},
    {R"({"$toInt": {"$numberLong": "5"}})", "{}", R"({"r": 5})"},
    {R"({"$toLong": "12345678901"})", "{}", R"({"r": {"$numberLong": "12345678901"}})"},
    {R"({"$toLong": true})", "{}", R"({"r": {"$numberLong": "1"}})"},
    {R"({"$toLong": {"$literal": {"$date": 1000}}})", "{}", R"({"r": {"$numberLong": "1000"}})"},
    {R"({"$toDouble": "1.5"})", "{}", R"({"r": 1.5})"},
    {R"({"$toDouble": "abc"})", "{}", nullptr, 241,
     "Failed to parse number 'abc' in $convert with no onError value: No digits"},
    {R"({"$toDouble": "0x1F"})", "{}", nullptr, 241,
     "Illegal hexadecimal input in $convert with no onError value: 0x1F"},
    {R"({"$toDouble": false})", "{}", R"({"r": 0.0})"},
    {R"({"$toDecimal": 2.5})", "{}", R"({"r": {"$numberDecimal": "2.50000000000000"}})"},
    {R"({"$toDecimal": 5})", "{}", R"({"r": {"$numberDecimal": "5"}})"},
    {R"({"$toDecimal": "1.25"})", "{}", R"({"r": {"$numberDecimal": "1.25"}})"},
    {R"({"$toInt": {"$numberDecimal": "7.9"}})", "{}", R"({"r": 7})"},
    {R"({"$toDouble": {"$numberDecimal": "0.5"}})", "{}", R"({"r": 0.5})"},
    // Strings, booleans, ObjectIds, dates.
    {R"({"$toString": 1.5})", "{}", R"({"r": "1.5"})"},
    {R"({"$toString": 1234567.1})", "{}", R"({"r": "1.23457e+06"})"},
    {R"({"$toString": {"$numberLong": "10"}})", "{}", R"({"r": "10"})"},
    {R"({"$toString": true})", "{}", R"({"r": "true"})"},
    {R"({"$toString": {"$numberDecimal": "1.10"}})", "{}", R"({"r": "1.10"})"},
    {R"({"$toString": {"$literal": {"$date": 0}}})", "{}", R"({"r": "1970-01-01T00:00:00.000Z"})"},
    {R"({"$toString": {"$literal": {"$oid": "5f0000000000000000000001"}}})", "{}",
     R"({"r": "5f0000000000000000000001"})"},
    {R"({"$toString": [[1]]})", "{}", nullptr, 241,
     "Unsupported conversion from array to string in $convert with no onError value"},
    {R"({"$toObjectId": "5f0000000000000000000001"})", "{}",
     R"({"r": {"$oid": "5f0000000000000000000001"}})"},
    {R"({"$toObjectId": "xyz"})", "{}", nullptr, 241},
    {R"({"$toBool": 0})", "{}", R"({"r": false})"},
    {R"({"$toBool": ""})", "{}", R"({"r": true})"},
    {R"({"$toBool": [[]]})", "{}", R"({"r": true})"},
    {R"({"$toDate": {"$numberLong": "86400000"}})", "{}", R"({"r": {"$date": 86400000}})"},
    {R"({"$toDate": "1970-01-02T00:00:00Z"})", "{}", R"({"r": {"$date": 86400000}})"},
    {R"({"$toDate": "1970-01-02"})", "{}", R"({"r": {"$date": 86400000}})"},
    {R"({"$toDate": 5})", "{}", nullptr, 241,
     "Unsupported conversion from int to date in $convert with no onError value"},
    {R"({"$toInt": null})", "{}", R"({"r": null})"},
    {R"({"$toInt": "$missing"})", "{}", R"({"r": null})"},
    {R"({"$toInt": [1, 2]})", "{}", nullptr, 50723, "$toInt requires a single argument, got 2"},
    // $convert
    {R"({"$convert": {"input": "x", "to": "int", "onError": -1}})", "{}", R"({"r": -1})"},
    {R"({"$convert": {"input": null, "to": "int", "onNull": 0}})", "{}", R"({"r": 0})"},
    {R"({"$convert": {"input": "5", "to": 16}})", "{}", R"({"r": 5})"},
    {R"({"$convert": {"input": "5", "to": null}})", "{}", R"({"r": null})"},
    {R"({"$convert": {"input": "5", "to": "bogus"}})", "{}", nullptr, 2,
     "Unknown type name: bogus"},
    {R"({"$convert": {"input": "5", "to": 100}})", "{}", nullptr, 9,
     "In $convert, numeric value for 'to' does not correspond to a BSON type: 100"},
    {R"({"$convert": {"input": "5", "to": 1.5}})", "{}", nullptr, 9},
    {R"({"$convert": {"input": "5", "to": true}})", "{}", nullptr, 9,
     "$convert's 'to' argument must be a string or number, but is bool"},
    {R"({"$convert": {"input": "5", "to": "missing"}})", "{}", nullptr, 241},
    {R"({"$convert": {"input": "5"}})", "{}", nullptr, 9, "Missing 'to' parameter to $convert"},
    {R"({"$convert": {"to": "int"}})", "{}", nullptr, 9, "Missing 'input' parameter to $convert"},
    {R"({"$convert": {"input": 1, "to": "int", "foo": 1}})", "{}", nullptr, 9,
     "$convert found an unknown argument: foo"},
    {R"({"$convert": 1})", "{}", nullptr, 9,
     "$convert expects an object of named arguments but found: int"},
};

CAIRN_EXPRESSION_CASES(Convert, kConvertCases);

}  // namespace
}  // namespace cairn::query::testing
