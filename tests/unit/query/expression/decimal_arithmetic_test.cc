// Arithmetic operators on Decimal128 operands as MongoDB 7.0 answers them: any decimal operand
// makes the result a decimal (ints exactly, doubles through 15 significant digits), results are
// exact decimal arithmetic (0.1 + 0.2 == 0.3, trailing zeros kept), and division or $mod by a
// decimal zero fail with the codes other numbers get.
#include <gtest/gtest.h>

#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query::testing {
namespace {

#define DEC(x) R"({"r": {"$numberDecimal": ")" x R"("}})"

const Case kDecimalArithmeticCases[] = {
    // $add
    {R"({"$add": [{"$numberDecimal": "0.1"}, {"$numberDecimal": "0.2"}]})", "{}", DEC("0.3")},
    {R"({"$add": [1, {"$numberDecimal": "1.50"}]})", "{}", DEC("2.50")},
    {R"({"$add": [{"$numberLong": "9223372036854775807"}, {"$numberDecimal": "1"}]})", "{}",
     DEC("9223372036854775808")},
    // A double operand met after a decimal widens to 15 digits (coerceToDecimal); a double
    // running total met by a decimal widens to 34 digits (AddState's kRoundTo34Digits).
    {R"({"$add": [{"$numberDecimal": "0.2"}, 0.1]})", "{}", DEC("0.300000000000000")},
    {R"({"$add": [0.1, {"$numberDecimal": "0.2"}]})", "{}",
     DEC("0.3000000000000000055511151231257827")},
    {R"({"$add": [{"$numberDecimal": "1"}, 2.5]})", "{}", DEC("3.50000000000000")},
    {R"({"$add": [{"$numberDecimal": "Infinity"}, 1]})", "{}", DEC("Infinity")},
    {R"({"$add": [{"$numberDecimal": "1"}, null]})", "{}", R"({"r": null})"},
    {R"({"$add": ["$d", {"$numberDecimal": "1000.4"}]})", R"({"d": {"$date": 0}})",
     R"({"r": {"$date": 1000}})"},
    // $subtract
    {R"({"$subtract": [{"$numberDecimal": "0.3"}, 0.1]})", "{}", DEC("0.200000000000000")},
    {R"({"$subtract": [5, {"$numberDecimal": "0.5"}]})", "{}", DEC("4.5")},
    // $multiply
    {R"({"$multiply": [{"$numberDecimal": "1.10"}, 3]})", "{}", DEC("3.30")},
    {R"({"$multiply": [2, 1.5, {"$numberDecimal": "2"}]})", "{}", DEC("6")},
    // $divide
    {R"({"$divide": [{"$numberDecimal": "1"}, 4]})", "{}", DEC("0.25")},
    {R"({"$divide": [1, {"$numberDecimal": "3"}]})", "{}",
     DEC("0.3333333333333333333333333333333333")},
    {R"({"$divide": [{"$numberDecimal": "1"}, {"$numberDecimal": "0.00"}]})", "{}", nullptr, 2,
     "can't $divide by zero"},
    // $mod
    {R"({"$mod": [{"$numberDecimal": "7.5"}, 2]})", "{}", DEC("1.5")},
    {R"({"$mod": [-7, {"$numberDecimal": "3"}]})", "{}", DEC("-1")},
    {R"({"$mod": [7, {"$numberDecimal": "0"}]})", "{}", nullptr, 16610, "can't $mod by zero"},
    // $abs $ceil $floor
    {R"({"$abs": {"$numberDecimal": "-2.50"}})", "{}", DEC("2.50")},
    {R"({"$ceil": {"$numberDecimal": "1.2"}})", "{}", DEC("2")},
    {R"({"$ceil": {"$numberDecimal": "-1.7"}})", "{}", DEC("-1")},
    {R"({"$floor": {"$numberDecimal": "-1.2"}})", "{}", DEC("-2")},
    {R"({"$floor": {"$numberDecimal": "0.9"}})", "{}", DEC("0")},
    // $round $trunc
    {R"({"$round": [{"$numberDecimal": "2.5"}]})", "{}", DEC("2")},
    {R"({"$round": [{"$numberDecimal": "1.2345"}, 2]})", "{}", DEC("1.23")},
    {R"({"$round": [{"$numberDecimal": "1234"}, -2]})", "{}", DEC("1.2E+3")},
    {R"({"$round": [{"$numberDecimal": "-Infinity"}, 2]})", "{}", DEC("-Infinity")},
    {R"({"$trunc": [{"$numberDecimal": "-1.239"}, 2]})", "{}", DEC("-1.23")},
    {R"({"$trunc": [{"$numberDecimal": "9.99"}]})", "{}", DEC("9")},
    // $sqrt $pow $exp $ln $log10 $log
    {R"({"$sqrt": {"$numberDecimal": "2.25"}})", "{}", DEC("1.5")},
    {R"({"$sqrt": {"$numberDecimal": "-1"}})", "{}", nullptr, 28714},
    {R"({"$pow": [{"$numberDecimal": "2"}, 10]})", "{}", DEC("1024")},
    {R"({"$pow": [{"$numberDecimal": "0"}, -1]})", "{}", nullptr, 28764},
    {R"({"$exp": {"$numberDecimal": "0"}})", "{}", DEC("1")},
    {R"({"$ln": {"$numberDecimal": "1"}})", "{}", DEC("0")},
    {R"({"$ln": {"$numberDecimal": "-1"}})", "{}", nullptr, 28766,
     "$ln's argument must be a positive number, but is -1"},
    {R"({"$log10": {"$numberDecimal": "1000"}})", "{}", DEC("3")},
    {R"({"$log": [{"$numberDecimal": "8"}, 2]})", "{}", DEC("3")},
    {R"({"$log": [{"$numberDecimal": "8"}, 1]})", "{}", nullptr, 28759},
};

CAIRN_EXPRESSION_CASES(DecimalArithmeticTest, kDecimalArithmeticCases);

}  // namespace
}  // namespace cairn::query::testing
