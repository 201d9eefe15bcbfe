// Specification of $bitsAllSet, $bitsAllClear, $bitsAnySet and $bitsAnyClear as MongoDB 7.0
// answers them: the three mask forms (number, bit positions, BinData), which values are tested
// (integral numbers as two's complement int64, BinData bytes little-endian; nothing else), and
// the errors for bad masks. The first tables follow the examples of MongoDB's manual (a: 54 is
// 0b00110110, a: 20 is 0b00010100, BinData "Zg==" is the byte 0b01100110).
#include <gtest/gtest.h>

#include "tests/unit/query/matcher/matcher_test_util.h"

namespace cairn::query {
namespace {

using testing::ErrorCase;
using testing::MatchCase;

class BitsSpec : public ::testing::TestWithParam<MatchCase> {};
TEST_P(BitsSpec, ShouldMatchAsMongoDB) { testing::ExpectMatch(GetParam()); }

#define BIN(base64) "{\"$binary\": {\"base64\": \"" base64 "\", \"subType\": \"00\"}}"

const MatchCase kManualExamples[] = {
    {R"({"a": {"$bitsAllSet": [1, 5]}})", R"({"a": 54})", true},
    {R"({"a": {"$bitsAllSet": [1, 5]}})", R"({"a": 20})", false},
    {R"({"a": {"$bitsAllSet": [1, 5]}})", R"({"a": )" BIN("Zg==") "}", true},
    {R"({"a": {"$bitsAllSet": 50}})", R"({"a": 54})", true},
    {R"({"a": {"$bitsAllSet": 50}})", R"({"a": )" BIN("Zg==") "}", false},
    {R"({"a": {"$bitsAllSet": )" BIN("MA==") "}}", R"({"a": 54})", true},
    {R"({"a": {"$bitsAllSet": )" BIN("MA==") "}}", R"({"a": 20})", false},
    {R"({"a": {"$bitsAnySet": [1, 5]}})", R"({"a": 54})", true},
    {R"({"a": {"$bitsAnySet": [1, 5]}})", R"({"a": 20})", false},
    {R"({"a": {"$bitsAnySet": [1, 5]}})", R"({"a": )" BIN("Zg==") "}", true},
    {R"({"a": {"$bitsAnySet": 35}})", R"({"a": 20})", false},
    {R"({"a": {"$bitsAllClear": [1, 5]}})", R"({"a": 54})", false},
    {R"({"a": {"$bitsAllClear": [1, 5]}})", R"({"a": 20})", true},
    {R"({"a": {"$bitsAllClear": [1, 5]}})", R"({"a": 20.0})", true},
    {R"({"a": {"$bitsAllClear": [1, 5]}})", R"({"a": )" BIN("Zg==") "}", false},
    {R"({"a": {"$bitsAnyClear": [1, 5]}})", R"({"a": 54})", false},
    {R"({"a": {"$bitsAnyClear": [1, 5]}})", R"({"a": 20})", true},
    {R"({"a": {"$bitsAnyClear": [1, 5]}})", R"({"a": )" BIN("Zg==") "}", false},
    {R"({"a": {"$bitsAnyClear": 35}})", R"({"a": 20})", true},
};
INSTANTIATE_TEST_SUITE_P(ManualExamples, BitsSpec, ::testing::ValuesIn(kManualExamples));

const MatchCase kValues[] = {
    // Numbers of every type, sign-extended: bits past 63 read the sign bit.
    {R"({"a": {"$bitsAllSet": [0, 63, 100]}})", R"({"a": -1})", true},
    {R"({"a": {"$bitsAllClear": [100]}})", R"({"a": -1})", false},
    {R"({"a": {"$bitsAllClear": [100]}})", R"({"a": 1})", true},
    {R"({"a": {"$bitsAllSet": [63]}})", R"({"a": {"$numberLong": "-9223372036854775808"}})", true},
    {R"({"a": {"$bitsAllSet": [40]}})", R"({"a": {"$numberLong": "1099511627776"}})", true},
    {R"({"a": {"$bitsAllSet": [1, 5]}})", R"({"a": {"$numberDecimal": "54"}})", true},
    {R"({"a": {"$bitsAllSet": [1, 5]}})", R"({"a": 54.0})", true},
    // Doubles that are not integral int64 values never match, not even "all clear".
    {R"({"a": {"$bitsAllClear": [1]}})", R"({"a": 20.5})", false},
    {R"({"a": {"$bitsAnyClear": [1]}})", R"({"a": {"$numberDouble": "NaN"}})", false},
    {R"({"a": {"$bitsAllClear": [1]}})", R"({"a": 1e20})", false},
    {R"({"a": {"$bitsAllClear": [1]}})", R"({"a": {"$numberDouble": "Infinity"}})", false},
    // Other types and missing never match.
    {R"({"a": {"$bitsAllClear": [1]}})", R"({"a": "20"})", false},
    {R"({"a": {"$bitsAllClear": [1]}})", R"({"a": null})", false},
    {R"({"a": {"$bitsAllClear": [1]}})", R"({"a": true})", false},
    {R"({"a": {"$bitsAllClear": [1]}})", R"({})", false},
    {R"({"a": {"$bitsAnyClear": [1]}})", R"({})", false},
    // Arrays are traversed.
    {R"({"a": {"$bitsAllSet": [1, 5]}})", R"({"a": [1, 54]})", true},
    {R"({"a": {"$bitsAllSet": [1, 5]}})", R"({"a": [1, 20]})", false},
    {R"({"a.b": {"$bitsAnySet": 1}})", R"({"a": [{"b": 2}, {"b": 3}]})", true},
    // BinData values are zero-extended past their end.
    {R"({"a": {"$bitsAllClear": [8, 100]}})", R"({"a": )" BIN("AQ==") "}", true},
    {R"({"a": {"$bitsAllSet": [0, 8]}})", R"({"a": )" BIN("AQ==") "}", false},
    {R"({"a": {"$bitsAllSet": [0, 8]}})", R"({"a": )" BIN("AQE=") "}", true},
    {R"({"a": {"$bitsAnySet": [7]}})", R"({"a": )" BIN("gA==") "}", true},
    // An empty mask: every bit of it is set and clear; none is.
    {R"({"a": {"$bitsAllSet": []}})", R"({"a": 7})", true},
    {R"({"a": {"$bitsAllClear": 0}})", R"({"a": )" BIN("") "}", true},
    {R"({"a": {"$bitsAnySet": []}})", R"({"a": 7})", false},
    {R"({"a": {"$bitsAnyClear": 0}})", R"({"a": 7})", false},
    // Mask forms: long and integral double numbers; a BinData mask past 8 bytes tests the sign
    // bit of numbers.
    {R"({"a": {"$bitsAllSet": {"$numberLong": "34"}}})", R"({"a": 54})", true},
    {R"({"a": {"$bitsAllSet": 34.0}})", R"({"a": 54})", true},
    {R"({"a": {"$bitsAllSet": )" BIN("AAAAAAAAAAAB") "}}", R"({"a": -1})", true},
    {R"({"a": {"$bitsAllSet": )" BIN("AAAAAAAAAAAB") "}}", R"({"a": 1})", false},
    {R"({"a": {"$bitsAllSet": )" BIN("AAAAAAAAAAAB") "}}", R"({"a": )" BIN("AAAAAAAAAAAB") "}",
     true},
    // MongoDB widens a BinData mask byte through a signed char: a byte with its top bit set also
    // sets every higher bit of the mask numbers are tested against.
    {R"({"a": {"$bitsAllSet": )" BIN("gA==") "}}", R"({"a": 128})", false},
    {R"({"a": {"$bitsAllSet": )" BIN("gA==") "}}", R"({"a": -128})", true},
    {R"({"a": {"$bitsAllSet": )" BIN("gA==") "}}", R"({"a": )" BIN("gA==") "}", true},
};
INSTANTIATE_TEST_SUITE_P(Values, BitsSpec, ::testing::ValuesIn(kValues));

#undef BIN

class BitsErrors : public ::testing::TestWithParam<ErrorCase> {};
TEST_P(BitsErrors, ShouldRejectWithMongoDBCodeAndMessage) { testing::ExpectParseError(GetParam()); }

constexpr ErrorCode kBadValue = ErrorCode::kBadValue;
constexpr ErrorCode kFailedToParse = ErrorCode::kFailedToParse;

const ErrorCase kErrors[] = {
    {R"({"a": {"$bitsAllSet": -1}})", kFailedToParse,
     "Expected a non-negative number in: $bitsAllSet: -1"},
    {R"({"a": {"$bitsAnySet": 1.5}})", kFailedToParse, "Expected an integer: $bitsAnySet: 1.5"},
    {R"({"a": {"$bitsAllClear": {"$numberDouble": "NaN"}}})", kFailedToParse,
     "Expected an integer, but found NaN in: $bitsAllClear: nan.0"},
    {R"({"a": {"$bitsAllSet": "x"}})", kBadValue,
     "a takes an Array, a number, or a BinData but received: $bitsAllSet: \"x\""},
    {R"({"a.b": {"$bitsAnyClear": null}})", kBadValue,
     "a.b takes an Array, a number, or a BinData but received: $bitsAnyClear: null"},
    {R"({"a": {"$bitsAllSet": [-1]}})", kBadValue,
     "Failed to parse bit position. Expected a non-negative number in: 0: -1"},
    {R"({"a": {"$bitsAllSet": [1, "x"]}})", kBadValue,
     "Failed to parse bit position. Expected a number in: 1: \"x\""},
    {R"({"a": {"$bitsAllSet": [1.5]}})", kBadValue,
     "Failed to parse bit position. Expected an integer: 0: 1.5"},
    {R"({"a": {"$bitsAllSet": [{"$numberLong": "2147483648"}]}})", kBadValue,
     "Failed to parse bit position. Cannot represent 0: 2147483648 in an int"},
};
INSTANTIATE_TEST_SUITE_P(ParseErrors, BitsErrors, ::testing::ValuesIn(kErrors));

}  // namespace
}  // namespace cairn::query
