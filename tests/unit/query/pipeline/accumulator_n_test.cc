// The $group accumulators with arguments and the statistical ones, as MongoDB 7.0 answers them:
// $firstN $lastN $maxN $minN, $top $bottom $topN $bottomN (rows from the examples of MongoDB's
// operator pages: the gamescores collection), n computed from the group key, $stdDevPop and
// $stdDevSamp, their parse and n errors, and the 100 MiB cap of the accumulators that cannot
// spill.
#include <gtest/gtest.h>

#include "query/pipeline/pipeline.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::ExpectError;
using testing::ExpectOutput;

// MongoDB's documentation dataset for the n-accumulators.
const std::vector<std::string> kGameScores = {
    R"({"playerId": "PlayerA", "gameId": "G1", "score": 31})",
    R"({"playerId": "PlayerB", "gameId": "G1", "score": 33})",
    R"({"playerId": "PlayerC", "gameId": "G1", "score": 99})",
    R"({"playerId": "PlayerD", "gameId": "G1", "score": 1})",
    R"({"playerId": "PlayerA", "gameId": "G2", "score": 10})",
    R"({"playerId": "PlayerB", "gameId": "G2", "score": 14})",
    R"({"playerId": "PlayerC", "gameId": "G2", "score": 66})",
    R"({"playerId": "PlayerD", "gameId": "G2", "score": 80})",
};

std::string Group(const std::string& field) {
  return R"([{"$group": {"_id": "$gameId", "r": )" + field + "}}]";
}

struct AccumulatorCase {
  const char* accumulator;  // the value of the output field r
  std::vector<std::string> expected;
};

void PrintTo(const AccumulatorCase& c, std::ostream* os) { *os << c.accumulator; }

class GameScores : public ::testing::TestWithParam<AccumulatorCase> {};

TEST_P(GameScores, ShouldAnswerAsMongoDB) {
  ExpectOutput(Group(GetParam().accumulator), kGameScores, GetParam().expected);
}

const AccumulatorCase kGameScoreCases[] = {
    {R"({"$topN": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}, "n": 3}})",
     {R"({"_id": "G1", "r": [["PlayerC", 99], ["PlayerB", 33], ["PlayerA", 31]]})",
      R"({"_id": "G2", "r": [["PlayerD", 80], ["PlayerC", 66], ["PlayerB", 14]]})"}},
    {R"({"$bottomN": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}, "n": 3}})",
     {R"({"_id": "G1", "r": [["PlayerB", 33], ["PlayerA", 31], ["PlayerD", 1]]})",
      R"({"_id": "G2", "r": [["PlayerC", 66], ["PlayerB", 14], ["PlayerA", 10]]})"}},
    {R"({"$top": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}}})",
     {R"({"_id": "G1", "r": ["PlayerC", 99]})", R"({"_id": "G2", "r": ["PlayerD", 80]})"}},
    {R"({"$bottom": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}}})",
     {R"({"_id": "G1", "r": ["PlayerD", 1]})", R"({"_id": "G2", "r": ["PlayerA", 10]})"}},
    {R"({"$topN": {"output": "$playerId", "sortBy": {"score": 1}, "n": 10}})",
     {R"({"_id": "G1", "r": ["PlayerD", "PlayerA", "PlayerB", "PlayerC"]})",
      R"({"_id": "G2", "r": ["PlayerA", "PlayerB", "PlayerC", "PlayerD"]})"}},
    {R"({"$top": {"output": "$nothing", "sortBy": {"score": 1}}})",
     {R"({"_id": "G1", "r": null})", R"({"_id": "G2", "r": null})"}},
    {R"({"$firstN": {"input": "$score", "n": 2}})",
     {R"({"_id": "G1", "r": [31, 33]})", R"({"_id": "G2", "r": [10, 14]})"}},
    {R"({"$lastN": {"input": "$score", "n": 2}})",
     {R"({"_id": "G1", "r": [99, 1]})", R"({"_id": "G2", "r": [66, 80]})"}},
    {R"({"$maxN": {"input": ["$score", "$playerId"], "n": 1}})",
     {R"({"_id": "G1", "r": [[99, "PlayerC"]]})", R"({"_id": "G2", "r": [[80, "PlayerD"]]})"}},
    {R"({"$maxN": {"input": "$score", "n": 3}})",
     {R"({"_id": "G1", "r": [99, 33, 31]})", R"({"_id": "G2", "r": [80, 66, 14]})"}},
    {R"({"$minN": {"input": "$score", "n": 3}})",
     {R"({"_id": "G1", "r": [1, 31, 33]})", R"({"_id": "G2", "r": [10, 14, 66]})"}},
    // n from the group key: the key's fields are the root n is evaluated against.
    {R"({"$firstN": {"input": "$score", "n": {"$cond": {"if": {"$eq": ["$$ROOT", "G2"]}, "then": 1, "else": 2}}}})",
     {R"({"_id": "G1", "r": [31, 33]})", R"({"_id": "G2", "r": [10, 14]})"}},
};

INSTANTIATE_TEST_SUITE_P(Accumulators, GameScores, ::testing::ValuesIn(kGameScoreCases));

TEST(AccumulatorN, ShouldComputeNFromTheGroupKeyFields) {
  // MongoDB's "n based on the group key" example: _id is a document, n reads its field.
  ExpectOutput(
      R"([{"$group": {"_id": {"gameId": "$gameId"}, "r": {"$topN": {"output": "$score",
          "n": {"$cond": {"if": {"$eq": ["$gameId", "G2"]}, "then": 1, "else": 3}},
          "sortBy": {"score": -1}}}}}])",
      kGameScores,
      {R"({"_id": {"gameId": "G1"}, "r": [99, 33, 31]})",
       R"({"_id": {"gameId": "G2"}, "r": [80]})"});
}

TEST(AccumulatorN, FirstNShouldKeepNullsAndTurnMissingIntoNull) {
  // MongoDB's $firstN page: PlayerD has no score, PlayerE a null one.
  ExpectOutput(R"([{"$group": {"_id": "$g", "r": {"$firstN": {"input": "$score", "n": 5}}}}])",
               {R"({"g": 1, "score": 1})", R"({"g": 1, "score": 2})", R"({"g": 1, "score": 3})",
                R"({"g": 1})", R"({"g": 1, "score": null})"},
               {R"({"_id": 1, "r": [1, 2, 3, null, null]})"});
}

TEST(AccumulatorN, MaxNAndMinNShouldIgnoreNullAndMissing) {
  ExpectOutput(R"([{"$group": {"_id": null, "max": {"$maxN": {"input": "$s", "n": 3}},
                   "min": {"$minN": {"input": "$s", "n": 3}}}}])",
               {R"({"s": 1})", R"({"s": null})", R"({})", R"({"s": 5})"},
               {R"({"_id": null, "max": [5, 1], "min": [1, 5]})"});
}

TEST(AccumulatorN, TopShouldKeepTheFirstSeenOfEqualSortKeys) {
  ExpectOutput(R"([{"$group": {"_id": null, "top": {"$top": {"output": "$p", "sortBy": {"s": 1}}},
                   "bottom": {"$bottom": {"output": "$p", "sortBy": {"s": 1}}}}}])",
               {R"({"p": "a", "s": 1})", R"({"p": "b", "s": 1})", R"({"p": "c"})"},
               {R"({"_id": null, "top": "c", "bottom": "a"})"});
}

TEST(AccumulatorN, TopNShouldSortByEveryKey) {
  ExpectOutput(R"([{"$group": {"_id": null, "r": {"$topN": {"output": "$p", "n": 3,
                   "sortBy": {"a": 1, "b": -1}}}}}])",
               {R"({"p": 1, "a": 2, "b": 1})", R"({"p": 2, "a": 1, "b": 1})",
                R"({"p": 3, "a": 1, "b": 5})", R"({"p": 4, "a": 2, "b": 9})"},
               {R"({"_id": null, "r": [3, 2, 4]})"});
}

TEST(AccumulatorN, ShouldComputeStandardDeviations) {
  ExpectOutput(
      R"([{"$group": {"_id": null, "pop": {"$stdDevPop": "$x"},
                   "samp": {"$stdDevSamp": "$x"}}}])",
      {R"({"x": 2})", R"({"x": 4})", R"({"x": 4})", R"({"x": 4})", R"({"x": 5})", R"({"x": 5})",
       R"({"x": {"$numberLong": "7"}})", R"({"x": 9.0})", R"({"x": "a"})", R"({})"},
      {R"({"_id": null, "pop": 2.0, "samp": 2.138089935299395})"});
}

TEST(AccumulatorN, StandardDeviationsShouldBeNullWithoutEnoughNumbers) {
  ExpectOutput(R"([{"$group": {"_id": null, "pop": {"$stdDevPop": "$x"},
                   "samp": {"$stdDevSamp": "$x"}}}])",
               {R"({"x": 3})", R"({"x": "a"})"}, {R"({"_id": null, "pop": 0.0, "samp": null})"});
  ExpectOutput(R"([{"$group": {"_id": null, "pop": {"$stdDevPop": "$x"}}}])", {R"({"y": 3})"},
               {R"({"_id": null, "pop": null})"});
}

struct ErrorCase {
  const char* accumulator;
  int code;
  const char* reason;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.accumulator; }

class AccumulatorError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(AccumulatorError, ShouldAnswerMongoDBsError) {
  ExpectError(Group(GetParam().accumulator), kGameScores, GetParam().code, GetParam().reason);
}

const ErrorCase kErrorCases[] = {
    {R"({"$firstN": 1})", 5787801, "specification must be an object; found $firstN: 1"},
    {R"({"$maxN": "x"})", 5787900, "specification must be an object; found $maxN: \"x\""},
    {R"({"$firstN": {"input": "$a", "n": 1, "k": 1}})", 5787901,
     "Unknown argument for 'n' operator: k"},
    {R"({"$lastN": {"input": "$a"}})", 5787906, "Missing value for 'n'"},
    {R"({"$minN": {"n": 1}})", 5787907, "Missing value for 'input'"},
    {R"({"$firstN": {"input": "$a", "n": 0}})", 5787908, "'n' must be greater than 0, found 0"},
    {R"({"$firstN": {"input": "$a", "n": -2}})", 5787908, "'n' must be greater than 0, found -2"},
    {R"({"$firstN": {"input": "$a", "n": "a"}})", 5787902,
     "Value for 'n' must be of integral type, but found \"a\""},
    {R"({"$firstN": {"input": "$a", "n": 1.5}})", 5787903,
     "Value for 'n' must be of integral type, but found 1.5"},
    {R"({"$topN": {"input": "$a", "n": "$_id"}})", 5788002, "Unknown argument to $topN 'input'"},
    {R"({"$top": {"output": "$a", "n": 1, "sortBy": {"a": 1}}})", 5788002,
     "Unknown argument to $top 'n'"},
    {R"({"$topN": 1})", 5788001, "specification must be an object; found $topN: 1"},
    {R"({"$topN": {"output": "$a", "sortBy": {"a": 1}}})", 5788003, "Missing value for 'n'"},
    {R"({"$bottom": {"sortBy": {"a": 1}}})", 5788004, "Missing value for 'output'"},
    {R"({"$bottomN": {"output": "$a", "n": 2}})", 5788005, "Missing value for 'sortBy'"},
    {R"({"$top": {"output": "$a", "sortBy": {"a": 2}}})", 15975,
     "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
    {R"({"$topN": {"output": "$a", "sortBy": {"a": 1}, "n": "$gameId"}})", 5787902,
     "Value for 'n' must be of integral type, but found MISSING"},
    {R"({"$topN": [1]})", 40237, "The $topN accumulator is a unary operator"},
};

INSTANTIATE_TEST_SUITE_P(Accumulators, AccumulatorError, ::testing::ValuesIn(kErrorCases));

TEST(AccumulatorMemory, PushShouldFailPastOneHundredMebibytes) {
  std::string big(4 * 1024 * 1024, 'x');
  std::vector<std::string> docs(26, R"({"s": ")" + big + R"("})");
  ExpectError(R"([{"$group": {"_id": null, "r": {"$push": "$s"}}}])", docs, 146,
              "$push used too much memory and cannot spill to disk. Memory limit: 104857600 bytes");
}

}  // namespace
}  // namespace cairn::query
