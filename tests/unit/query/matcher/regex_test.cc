// Specification of $regex and regular expressions in filters: every form MongoDB 7.0 accepts
// ({a: /re/flags}, $regex with a string or a regex, $options before or after, inside $in, $nin,
// $all, $not and $elemMatch), what a pattern matches (strings, symbols, arrays by element, a
// stored regex only when identical), the option letters and MongoDB's errors; and the Regex
// wrapper the expression language will reuse.
#include "query/matcher/regex.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "tests/unit/query/matcher/matcher_test_util.h"

namespace cairn::query {
namespace {

using testing::ErrorCase;
using testing::MatchCase;

class RegexSpec : public ::testing::TestWithParam<MatchCase> {};
TEST_P(RegexSpec, ShouldMatchAsMongoDB) { testing::ExpectMatch(GetParam()); }

#define RE(pattern, options) \
  "{\"$regularExpression\": {\"pattern\": \"" pattern "\", \"options\": \"" options "\"}}"

const MatchCase kForms[] = {
    {R"({"a": )" RE("^ab", "") "}", R"({"a": "abc"})", true},
    {R"({"a": )" RE("^ab", "") "}", R"({"a": "xab"})", false},
    {R"({"a": )" RE("^AB", "i") "}", R"({"a": "abc"})", true},
    {R"({"a": {"$regex_": "^AB", "$options_": "i"}})", R"({"a": "abc"})", true},
    {R"({"a": {"$regex_": "^AB"}})", R"({"a": "abc"})", false},
    {R"({"a": {"$options_": "i", "$regex_": "^AB"}})", R"({"a": "abc"})", true},
    {R"({"a": {"$regex_": )" RE("^AB", "i") "}}", R"({"a": "abc"})", true},
    {R"({"a": {"$regex_": )" RE("^AB", "") ", \"$options_\": \"i\"}}", R"({"a": "abc"})", true},
    {R"({"a": {"$options_": "", "$regex_": )" RE("^AB", "i") "}}", R"({"a": "abc"})", true},
    {R"({"a": {"$regex_": "^a", "$ne": "ab"}})", R"({"a": "ab"})", false},
    {R"({"a": {"$regex_": "^a", "$ne": "ab"}})", R"({"a": "ac"})", true},
    {R"({"a": {"$regex_": ""}})", R"({"a": ""})", true},
    {R"({"a": {"$regex_": ""}})", R"({"a": 1})", false},
    {R"({"a.b": )" RE("x", "") "}", R"({"a": [{"b": "y"}, {"b": "x"}]})", true},
    {R"({"_id": )" RE("^k", "") "}", R"({"_id": "key"})", true},
};
INSTANTIATE_TEST_SUITE_P(Forms, RegexSpec, ::testing::ValuesIn(kForms));

// The option letters: i m s x, and u accepted without effect.
const MatchCase kOptions[] = {
    {R"({"a": {"$regex_": "^b", "$options_": "m"}})", R"({"a": "a\nb"})", true},
    {R"({"a": {"$regex_": "^b"}})", R"({"a": "a\nb"})", false},
    {R"({"a": {"$regex_": "a$", "$options_": "m"}})", R"({"a": "a\nb"})", true},
    {R"({"a": {"$regex_": "a.b"}})", R"({"a": "a\nb"})", false},
    {R"({"a": {"$regex_": "a.b", "$options_": "s"}})", R"({"a": "a\nb"})", true},
    {R"({"a": {"$regex_": "a b c # a comment", "$options_": "x"}})", R"({"a": "abc"})", true},
    {R"({"a": {"$regex_": "a b c"}})", R"({"a": "abc"})", false},
    {R"({"a": {"$regex_": "^A", "$options_": "imsxu"}})", R"({"a": "abc"})", true},
    {R"({"a": {"$regex_": "^A", "$options_": "u"}})", R"({"a": "abc"})", false},
    {R"({"a": {"$regex_": "^.$"}})", R"({"a": "é"})", true},
    {R"({"a": {"$regex_": "É", "$options_": "i"}})", R"({"a": "é"})", true},
};
INSTANTIATE_TEST_SUITE_P(Options, RegexSpec, ::testing::ValuesIn(kOptions));

// What a pattern applies to: strings and symbols, array elements, and stored regexes by identity.
const MatchCase kValues[] = {
    {R"({"a": )" RE("x", "") "}", R"({"a": ["y", "xx"]})", true},
    {R"({"a": )" RE("x", "") "}", R"({"a": ["y", "z"]})", false},
    {R"({"a": )" RE("1", "") "}", R"({"a": 1})", false},
    {R"({"a": )" RE("1", "") "}", R"({"a": [1, 11]})", false},
    {R"({"a": )" RE("x", "") "}", R"({})", false},
    {R"({"a": )" RE("x", "") "}", R"({"a": null})", false},
    {R"({"a": )" RE("^x", "") "}", R"({"a": {"$symbol": "xyz"}})", true},
    {R"({"a": )" RE("x", "") "}", R"({"a": {"b": "x"}})", false},
    {R"({"a": )" RE("x", "i") "}", R"({"a": )" RE("x", "i") "}", true},
    {R"({"a": )" RE("x", "i") "}", R"({"a": )" RE("x", "") "}", false},
    {R"({"a": )" RE("x", "i") "}", R"({"a": )" RE("x", "m") "}", false},
    {R"({"a": )" RE("x", "") "}", R"({"a": )" RE("xx", "") "}", false},
    {R"({"a": )" RE("x", "") "}", R"({"a": [)" RE("x", "") "]}", true},
    {R"({"a": {"$regex_": "x", "$options_": "i"}})", R"({"a": )" RE("x", "i") "}", true},
    // $eq with a regex operand is equality with a stored regex, not a pattern match.
    {R"({"a": {"$eq": )" RE("x", "") "}}", R"({"a": "x"})", false},
    {R"({"a": {"$eq": )" RE("x", "") "}}", R"({"a": )" RE("x", "") "}", true},
};
INSTANTIATE_TEST_SUITE_P(Values, RegexSpec, ::testing::ValuesIn(kValues));

// Regexes inside other operators.
const MatchCase kInsideOperators[] = {
    {R"({"a": {"$in": [)" RE("^a", "") ", 5]}}", R"({"a": "apple"})", true},
    {R"({"a": {"$in": [)" RE("^a", "") ", 5]}}", R"({"a": 5})", true},
    {R"({"a": {"$in": [)" RE("^a", "") ", 5]}}", R"({"a": "banana"})", false},
    {R"({"a": {"$in": [)" RE("^a", "") "]}}", R"({"a": ["b", "abc"]})", true},
    {R"({"a": {"$in": [)" RE("^a", "") "]}}", R"({"a": )" RE("^a", "") "}", true},
    {R"({"a": {"$in": [)" RE("^a", "") ", null]}}", R"({})", true},
    {R"({"a": {"$nin": [)" RE("^a", "") "]}}", R"({"a": "apple"})", false},
    {R"({"a": {"$nin": [)" RE("^a", "") "]}}", R"({"a": "banana"})", true},
    {R"({"a": {"$nin": [)" RE("^a", "") "]}}", R"({})", true},
    {R"({"a": {"$not": )" RE("^a", "") "}}", R"({"a": "apple"})", false},
    {R"({"a": {"$not": )" RE("^a", "") "}}", R"({"a": "banana"})", true},
    {R"({"a": {"$not": )" RE("^a", "") "}}", R"({})", true},
    {R"({"a": {"$not": )" RE("^a", "") "}}", R"({"a": ["b", "ab"]})", false},
    {R"({"a": {"$not": {"$regex_": "^a", "$options_": "i"}}})", R"({"a": "Apple"})", false},
    {R"({"a": {"$not": {"$regex_": "^a"}}})", R"({"a": "Apple"})", true},
    {R"({"a": {"$all": [)" RE("^a", "") ", " RE("e$", "") "]}}", R"({"a": "apple"})", true},
    {R"({"a": {"$all": [)" RE("^a", "") ", " RE("e$", "") "]}}", R"({"a": ["ax", "be"]})", true},
    {R"({"a": {"$all": [)" RE("^a", "") ", " RE("e$", "") "]}}", R"({"a": ["ax"]})", false},
    {R"({"a": {"$all": [)" RE("^a", "") ", \"b\"]}}", R"({"a": ["ax", "b"]})", true},
    {R"({"a": {"$elemMatch": {"$regex_": "^a"}}})", R"({"a": ["b", "ab"]})", true},
    {R"({"a": {"$elemMatch": {"$regex_": "^a"}}})", R"({"a": "ab"})", false},
    {R"({"a": {"$elemMatch": {"$regex_": "^a", "$options_": "i"}}})", R"({"a": ["Ab"]})", true},
    {R"({"a": {"$elemMatch": {"$in": [)" RE("^z", "") "]}}}", R"({"a": ["y", "zz"]})", true},
    {R"({"a": {"$elemMatch": {"b": )" RE("^z", "") "}}}", R"({"a": [{"b": "zz"}]})", true},
    {R"({"$or": [{"a": )" RE("^z", "") R"(}, {"b": 1}]})", R"({"a": "zed"})", true},
};
INSTANTIATE_TEST_SUITE_P(InsideOperators, RegexSpec, ::testing::ValuesIn(kInsideOperators));

class RegexErrors : public ::testing::TestWithParam<ErrorCase> {};
TEST_P(RegexErrors, ShouldRejectWithMongoDBCodeAndMessage) {
  testing::ExpectParseError(GetParam());
}

constexpr ErrorCode kBadValue = ErrorCode::kBadValue;
constexpr ErrorCode kInvalidRegex = ErrorCode::kLocation51091;
constexpr ErrorCode kInvalidFlag = ErrorCode::kLocation51108;

const ErrorCase kErrors[] = {
    {R"({"a": {"$regex_": "("}})", kInvalidRegex,
     "Regular expression is invalid: missing closing parenthesis"},
    {R"x({"a": {"$regex_": "[)"}})x", kInvalidRegex,
     "Regular expression is invalid: missing terminating ] for character class"},
    {R"({"a": )" RE("(", "") "}", kInvalidRegex,
     "Regular expression is invalid: missing closing parenthesis"},
    {R"({"a": {"$not": )" RE("(", "") "}}", kInvalidRegex,
     "Regular expression is invalid: missing closing parenthesis"},
    {R"({"a": {"$in": [)" RE("(", "") "]}}", kInvalidRegex,
     "Regular expression is invalid: missing closing parenthesis"},
    {R"({"a": {"$all": [)" RE("(", "") "]}}", kInvalidRegex,
     "Regular expression is invalid: missing closing parenthesis"},
    // MongoDB prints an empty operator name before the message, hence the leading space.
    {R"({"a": {"$regex_": "x", "$options_": "z"}})", kInvalidFlag,
     " invalid flag in regex options: z"},
    {R"({"a": {"$regex_": "x", "$options_": "iz"}})", kInvalidFlag,
     " invalid flag in regex options: z"},
    {R"({"a": )" RE("x", "l") "}", kInvalidFlag, " invalid flag in regex options: l"},
    {R"({"a": {"$regex_": "(", "$options_": "z"}})", kInvalidFlag,
     " invalid flag in regex options: z"},
    {R"({"a": {"$regex_": )" RE("x", "i") ", \"$options_\": \"m\"}}", ErrorCode::kLocation51075,
     "options set in both $regex and $options"},
    {R"({"a": {"$regex_": )" RE("x", "i") ", \"$options_\": \"\"}}", ErrorCode::kLocation51075,
     "options set in both $regex and $options"},
    {R"({"a": {"$options_": "m", "$regex_": )" RE("x", "i") "}}", ErrorCode::kLocation51074,
     "options set in both $regex and $options"},
    {R"({"a": {"$regex_": 5}})", kBadValue, "$regex has to be a string"},
    {R"({"a": {"$regex_": null}})", kBadValue, "$regex has to be a string"},
    {R"({"a": {"$regex_": "x", "$options_": 1}})", kBadValue, "$options has to be a string"},
    {R"({"a": {"$options_": "i"}})", kBadValue, "$options needs a $regex"},
    {R"({"a": {"$options_": "i", "$gt": 1}})", kBadValue, "$options needs a $regex"},
    {R"({"a": {"$ne": )" RE("x", "") "}}", kBadValue, "Can't have regex as arg to $ne."},
    {R"({"a": {"$lt": )" RE("x", "") "}}", kBadValue,
     "Can't have RegEx as arg to predicate over field 'a'."},
    {R"({"a": {"$all": [{"$regex_": "x"}]}})", kBadValue, "no $ expressions in $all"},
};
INSTANTIATE_TEST_SUITE_P(ParseErrors, RegexErrors, ::testing::ValuesIn(kErrors));

#undef RE

Result<Matcher> ParseRegexFilter(std::string_view pattern, std::string_view options) {
  BsonDoc filter;  // Matcher::Parse keeps its own copy
  bson_t sub;
  bson_append_document_begin(filter.get(), "a", 1, &sub);
  bson_append_utf8(&sub, "$regex", 6, pattern.data(), static_cast<int>(pattern.size()));
  bson_append_utf8(&sub, "$options", 8, options.data(), static_cast<int>(options.size()));
  bson_append_document_end(filter.get(), &sub);
  return Matcher::Parse(filter.view());
}

TEST(Regex, ShouldRejectAPatternWithAnEmbeddedNullByte) {
  Result<Matcher> matcher = ParseRegexFilter(std::string_view("a\0b", 3), "");
  ASSERT_FALSE(matcher.ok());
  EXPECT_EQ(matcher.status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(matcher.status().reason(), "Regular expression cannot contain an embedded null byte");
}

TEST(Regex, ShouldRejectANullByteInTheOptionsAsAnInvalidFlag) {
  Result<Matcher> matcher = ParseRegexFilter("ab", std::string_view("\0i", 2));
  ASSERT_FALSE(matcher.ok());
  EXPECT_EQ(matcher.status().code(), ErrorCode::kLocation51108);
  EXPECT_EQ(matcher.status().reason(), std::string(" invalid flag in regex options: \0", 33));
}

TEST(Regex, ShouldRejectPatternsLongerThanMongoDBsLimit) {
  ASSERT_TRUE(ParseRegexFilter(std::string(32764, 'a'), "").ok());
  Result<Matcher> matcher = ParseRegexFilter(std::string(32765, 'a'), "");
  ASSERT_FALSE(matcher.ok());
  EXPECT_EQ(matcher.status().code(), ErrorCode::kLocation51091);
  EXPECT_EQ(matcher.status().reason(),
            "Regular expression is invalid: pattern string is longer than the limit set by the "
            "application");
}

TEST(Regex, ShouldMatchAcrossEmbeddedNullBytesInStrings) {
  BsonDoc filter = testing::Filter(R"({"a": {"$regex_": "b$"}})");
  Result<Matcher> matcher = Matcher::Parse(filter.view());
  ASSERT_TRUE(matcher.ok());
  BsonDoc doc;
  bson_append_utf8(doc.get(), "a", 1, "a\0b", 3);
  EXPECT_TRUE(*matcher->Matches(doc.view()));
}

TEST(Regex, ShouldNotMatchStringsThatAreNotValidUtf8) {
  BsonDoc filter = testing::Filter(R"({"a": {"$regex_": "b"}})");
  Result<Matcher> matcher = Matcher::Parse(filter.view());
  ASSERT_TRUE(matcher.ok());
  BsonDoc doc;
  bson_append_utf8(doc.get(), "a", 1, "b\xff", 2);
  EXPECT_FALSE(*matcher->Matches(doc.view()));
}

// ---- The Regex wrapper ----

TEST(RegexWrapper, ShouldParseMongoDBOptionLetters) {
  Result<RegexOptions> options = Regex::ParseFlags("imsxu", "$regexMatch");
  ASSERT_TRUE(options.ok());
  EXPECT_TRUE(options->caseless && options->multiline && options->dotall && options->extended);
  Result<RegexOptions> bad = Regex::ParseFlags("ig", "$regexMatch");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kLocation51108);
  EXPECT_EQ(bad.status().reason(), "$regexMatch invalid flag in regex options: g");
}

TEST(RegexWrapper, ShouldReportPcre2sMessageOnACompileError) {
  Result<Regex> regex = Regex::Compile("a(", RegexOptions{});
  ASSERT_FALSE(regex.ok());
  EXPECT_EQ(regex.status().reason(), "missing closing parenthesis");
}

TEST(RegexWrapper, ShouldFindMatchesAndCaptures) {
  Result<Regex> regex = Regex::Compile("(\\d+)-(x)?(\\d+)", RegexOptions{});
  ASSERT_TRUE(regex.ok());
  EXPECT_EQ(regex->capture_count(), 3u);
  Regex::Captures captures;
  ASSERT_TRUE(*regex->Find("ab 12-34 56-78", 0, &captures));
  ASSERT_EQ(captures.size(), 4u);
  EXPECT_EQ(captures[0], std::make_pair(size_t{3}, size_t{8}));
  EXPECT_EQ(captures[1], std::make_pair(size_t{3}, size_t{5}));
  EXPECT_EQ(captures[2], std::make_pair(Regex::npos, Regex::npos));
  EXPECT_EQ(captures[3], std::make_pair(size_t{6}, size_t{8}));
  ASSERT_TRUE(*regex->Find("ab 12-34 56-78", 8, &captures));
  EXPECT_EQ(captures[0], std::make_pair(size_t{9}, size_t{14}));
  EXPECT_FALSE(*regex->Find("ab 12-34 56-78", 14, &captures));
  EXPECT_FALSE(*regex->Find("ab", 3, &captures));
}

TEST(RegexWrapper, ShouldMatchFromManyThreadsAtOnce) {
  Result<Regex> regex = Regex::Compile("^(a|b)*c$", RegexOptions{});
  ASSERT_TRUE(regex.ok());
  const Regex shared = *regex;
  std::vector<std::thread> threads;
  std::vector<int> matched(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&shared, &matched, t] {
      for (int i = 0; i < 2000; ++i) {
        Result<bool> found = shared.Search(i % 2 ? "ababc" : "abab");
        if (found.ok() && *found) ++matched[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int count : matched) EXPECT_EQ(count, 1000);
}

}  // namespace
}  // namespace cairn::query
