// Limits on what expressions build and how long they take over large inputs: strings past
// MongoDB's 64 MiB StringBuilder bound (13548), values nested past maxBSONDepth (Overflow, as
// Document::toBson), $regexFindAll's 64 MiB output bound (51151) and PCRE2 run-time errors in the
// regex operators (51156), and the linear-time string and regex operators over large strings.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>

#include "query/expression/value.h"
#include "tests/unit/query/expression/expression_test_util.h"

namespace cairn::query {
namespace {

using testing::Canonical;
using testing::Evaluate;
using testing::Evaluated;

// Evaluates `expr` against {s: <string of `n` copies of `c`>}.
Evaluated OnString(const std::string& expr, size_t n, char c = 'a') {
  return Evaluate(expr, R"({"s": ")" + std::string(n, c) + R"("})");
}

double SecondsOf(const std::function<void()>& run) {
  auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// {$reduce: {input: {$range: [0, n]}, initialValue: init, in: step}}
std::string Reduce(int n, const std::string& init, const std::string& step) {
  return R"({"$reduce": {"input": {"$range": [0, )" + std::to_string(n) +
         R"(]}, "initialValue": )" + init + R"(, "in": )" + step + "}}";
}

TEST(ExpressionLimits, ShouldRefuseAStringDoubledPast64MiBBeforeBuildingIt) {
  // 1 MiB doubled: 2, 4, ... 64 MiB fit; the 7th doubling would make 128 MiB.
  std::string doubled = Reduce(30, R"("$s")", R"({"$concat": ["$$value", "$$value"]})");
  Evaluated got;
  double seconds = SecondsOf([&] { got = OnString(doubled, 1 << 20); });
  ASSERT_FALSE(got.status.ok());
  EXPECT_EQ(got.status.code_number(), 13548);
  EXPECT_EQ(got.status.reason(),
            "BufBuilder attempted to grow() to 134217728 bytes, past the 64MB limit.");
  EXPECT_LT(seconds, 10.0);
  // Exactly 64 MiB is allowed.
  Evaluated fits =
      OnString(Reduce(6, R"("$s")", R"({"$concat": ["$$value", "$$value"]})"), 1 << 20);
  EXPECT_TRUE(fits.status.ok()) << fits.status.ToString();
}

TEST(ExpressionLimits, ShouldNotTurnAnOversizedConcatIntoNull) {
  // The first operand that crosses the bound fails, even when a later one is null.
  Evaluated got = OnString(R"({"$concat": ["$s", "$s", "$s", "$s", "$s", null]})", 20 << 20);
  ASSERT_FALSE(got.status.ok());
  EXPECT_EQ(got.status.code_number(), 13548);
  EXPECT_EQ(got.status.reason(),
            "BufBuilder attempted to grow() to 83886080 bytes, past the 64MB limit.");
}

TEST(ExpressionLimits, ShouldSizeReplaceAllBeforeBuildingIt) {
  // 1 MiB of "a", each replaced by 100 bytes: 100 MiB.
  Evaluated got =
      OnString(R"({"$replaceAll": {"input": "$s", "find": "a", "replacement": {"$concat": [)"
               R"("0123456789012345678901234567890123456789012345678901234567890123456789",)"
               R"("012345678901234567890123456789"]}}})",
               1 << 20);
  ASSERT_FALSE(got.status.ok());
  EXPECT_EQ(got.status.code_number(), 13548);
  Evaluated empty_find =
      OnString(R"({"$replaceAll": {"input": "$s", "find": "", "replacement": "$s"}})", 16 << 10);
  ASSERT_FALSE(empty_find.status.ok());
  EXPECT_EQ(empty_find.status.code_number(), 13548);
  Evaluated ok =
      Evaluate(R"({"$replaceAll": {"input": "abcabc", "find": "b", "replacement": "XY"}})");
  ASSERT_TRUE(ok.status.ok());
  EXPECT_EQ(Canonical(ok.result.view()),
            Canonical(BsonDoc::FromJson(R"({"r": "aXYcaXYc"})").view()));
  Evaluated one =
      Evaluate(R"({"$replaceOne": {"input": "abcabc", "find": "bc", "replacement": ""}})");
  EXPECT_EQ(Canonical(one.result.view()), Canonical(BsonDoc::FromJson(R"({"r": "aabc"})").view()));
}

TEST(ExpressionLimits, ShouldRefuseArraysPast64MiB) {
  // $concatArrays doubling an array of 1M int32s (~8.9 MB of BSON) past 64 MiB.
  Evaluated got = Evaluate(
      Reduce(10, R"({"$range": [0, 1000000]})", R"({"$concatArrays": ["$$value", "$$value"]})"));
  ASSERT_FALSE(got.status.ok());
  EXPECT_EQ(got.status.code_number(), 13548);
}

TEST(ExpressionLimits, ShouldRefuseValuesNestedPastMaxBsonDepth) {
  const std::string overflow =
      "cannot convert document to BSON because it exceeds the limit of 200 levels of nesting";
  // Wrapping $$value in an object 100,000 times stops at the 200th level, at once.
  Evaluated got;
  double seconds = SecondsOf([&] { got = Evaluate(Reduce(100000, "{}", R"({"a": "$$value"})")); });
  ASSERT_FALSE(got.status.ok());
  EXPECT_EQ(got.status.code(), ErrorCode::kOverflow);
  EXPECT_EQ(got.status.reason(), overflow);
  EXPECT_LT(seconds, 5.0);
  // Arrays count as levels too ([$$value], $objectToArray, $zip...).
  Evaluated arrays = Evaluate(Reduce(1000, "[]", R"(["$$value"])"));
  EXPECT_EQ(arrays.status.reason(), overflow);
  Evaluated objects = Evaluate(Reduce(1000, "{}", R"({"$objectToArray": {"k": "$$value"}})"));
  EXPECT_EQ(objects.status.reason(), overflow);
  // 200 levels are fine: {} wrapped 199 times.
  Evaluated deepest = Evaluate(Reduce(199, "{}", R"({"a": "$$value"})"));
  EXPECT_TRUE(deepest.status.ok()) << deepest.status.ToString();
  Evaluated one_more = Evaluate(Reduce(200, "{}", R"({"a": "$$value"})"));
  EXPECT_EQ(one_more.status.code(), ErrorCode::kOverflow);
}

TEST(ExpressionLimits, ShouldFailTheRegexOperatorsOnAPcreMatchLimitError) {
  // (a+)+$ backtracks exponentially over a run of "a" not followed by the end: PCRE2 gives up
  // with its match limit, which MongoDB reports (51156) rather than calling it no match.
  const std::string subject = std::string(40, 'a') + "!c";
  for (const char* op : {"$regexMatch", "$regexFind", "$regexFindAll"}) {
    Evaluated got =
        Evaluate(std::string(R"({")") + op + R"(": {"input": "$s", "regex": "(a+)+$|c"}})",
                 R"({"s": ")" + subject + R"("})");
    ASSERT_FALSE(got.status.ok()) << op;
    EXPECT_EQ(got.status.code_number(), 51156) << op;
    EXPECT_EQ(got.status.reason(), std::string("Error occurred while executing the regular "
                                               "expression in ") +
                                       op + ". Result code: match limit exceeded")
        << op;
  }
  // The same pattern over a short run matches.
  Evaluated short_run = Evaluate(R"({"$regexMatch": {"input": "aaaa!c", "regex": "(a+)+$|c"}})");
  ASSERT_TRUE(short_run.status.ok());
  EXPECT_EQ(Canonical(short_run.result.view()),
            Canonical(BsonDoc::FromJson(R"({"r": true})").view()));
}

TEST(ExpressionLimits, ShouldFindAllEmptyMatchesOfALargeStringInLinearTime) {
  // 1 MB: quadratic (re-checking the subject's UTF-8 on every search) takes many minutes.
  Evaluated got;
  double seconds = SecondsOf([&] {
    got = OnString(R"({"$size": {"$regexFindAll": {"input": "$s", "regex": ""}}})", 1'000'000);
  });
  ASSERT_TRUE(got.status.ok()) << got.status.ToString();
  EXPECT_EQ(Canonical(got.result.view()), Canonical(BsonDoc::FromJson(R"({"r": 1000001})").view()));
  EXPECT_LT(seconds, 20.0);
}

TEST(ExpressionLimits, ShouldBoundRegexFindAllOutputAt64MiB) {
  // 10 MB of empty matches: about 1.6 million 41-byte match documents fit in 64 MiB.
  Evaluated got = OnString(R"({"$regexFindAll": {"input": "$s", "regex": ""}})", 10'000'000);
  ASSERT_FALSE(got.status.ok());
  EXPECT_EQ(got.status.code_number(), 51151);
  EXPECT_EQ(got.status.reason(),
            "$regexFindAll: the size of buffer to store output exceeded the 64MB limit");
}

TEST(ExpressionLimits, ShouldSearchLargeStringsInLinearTime) {
  // A needle that almost matches everywhere: a naive search compares ~n * m bytes.
  const size_t n = 4'000'000;
  std::string needle(200'000, 'a');
  needle += "b";
  const std::string doc = R"({"s": ")" + std::string(n, 'a') + R"(", "t": ")" + needle + R"("})";
  for (const char* expr :
       {R"({"$indexOfBytes": ["$s", "$t"]})", R"({"$indexOfCP": ["$s", "$t"]})",
        R"({"$size": {"$split": ["$s", "$t"]}})",
        R"({"$strLenBytes": {"$replaceAll": {"input": "$s", "find": "$t", "replacement": ""}}})"}) {
    Evaluated got;
    double seconds = SecondsOf([&] { got = Evaluate(expr, doc); });
    ASSERT_TRUE(got.status.ok()) << expr << ": " << got.status.ToString();
    EXPECT_LT(seconds, 10.0) << expr;
  }
  // $indexOfCP still counts code points and skips occurrences inside a code point.
  Evaluated cp = Evaluate(R"({"$indexOfCP": ["é∂a∂b", "∂b"]})");
  EXPECT_EQ(Canonical(cp.result.view()), Canonical(BsonDoc::FromJson(R"({"r": 3})").view()));
  Evaluated bounded = Evaluate(R"({"$indexOfCP": ["é∂a∂b", "∂b", 0, 3]})");
  EXPECT_EQ(Canonical(bounded.result.view()), Canonical(BsonDoc::FromJson(R"({"r": -1})").view()));
  Evaluated from = Evaluate(R"({"$indexOfCP": ["abcabc", "b", 2]})");
  EXPECT_EQ(Canonical(from.result.view()), Canonical(BsonDoc::FromJson(R"({"r": 4})").view()));
}

TEST(ExpressionLimits, ShouldTrimWithALongCharsListInLinearTime) {
  // chars: 45,000 distinct code points would make a per-position list scan quadratic.
  std::string chars;
  for (int cp = 0x1000; cp < 0x1000 + 45000; ++cp) {
    chars += static_cast<char>(0xE0 | (cp >> 12));
    chars += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    chars += static_cast<char>(0x80 | (cp & 0x3F));
  }
  const std::string doc = R"({"c": ")" + chars + R"(", "s": ")" + chars + "x" + chars + R"("})";
  Evaluated got;
  double seconds =
      SecondsOf([&] { got = Evaluate(R"({"$trim": {"input": "$s", "chars": "$c"}})", doc); });
  ASSERT_TRUE(got.status.ok()) << got.status.ToString();
  EXPECT_EQ(Canonical(got.result.view()), Canonical(BsonDoc::FromJson(R"({"r": "x"})").view()));
  EXPECT_LT(seconds, 5.0);
  Evaluated ends = Evaluate(R"({"$rtrim": {"input": "$s", "chars": "$c"}})", doc);
  ASSERT_TRUE(ends.status.ok());
  EXPECT_EQ(Canonical(ends.result.view()),
            Canonical(BsonDoc::FromJson(R"({"r": ")" + chars + R"(x"})").view()));
}

}  // namespace
}  // namespace cairn::query
