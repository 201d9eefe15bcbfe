// Errors are outcomes of a match, not non-matches: a $expr that fails to evaluate fails
// Matcher::Matches with its own code and message wherever it stands ($and, $or, $nor, beside
// path clauses, with positional details), and neither $or nor $nor nor $not turns it into a
// match. The same holds for a regular expression PCRE2 stops with an error (its match limit; a
// subject that is not UTF-8 merely does not match, as in mongod): 51156 "Error occurred while
// executing the regular expression in $regex. Result code: <PCRE2's message>" from $regex, regexes
// in $in/$nin/$all/$not, $elemMatch holding them, and $jsonSchema's pattern and patternProperties.
#include <gtest/gtest.h>

#include <string>

#include "query/matcher/document_validator.h"
#include "query/matcher/matcher.h"
#include "query/matcher/regex.h"
#include "tests/unit/query/matcher/matcher_test_util.h"

namespace cairn::query {
namespace {

Result<bool> Match(const char* filter, const std::string& doc) {
  BsonDoc f = BsonDoc::FromJson(filter);
  Result<Matcher> matcher = Matcher::Parse(f.view());
  EXPECT_TRUE(matcher.ok()) << filter << ": " << matcher.status().ToString();
  if (!matcher.ok()) return matcher.status();
  BsonDoc d = BsonDoc::FromJson(doc);
  return matcher->Matches(d.view());
}

constexpr const char* kDivideByZero = "can't $divide by zero";

void ExpectDivideError(const char* filter, const std::string& doc) {
  Result<bool> got = Match(filter, doc);
  ASSERT_FALSE(got.ok()) << filter << " on " << doc << " gave " << (got.ok() && *got);
  EXPECT_EQ(got.status().code(), ErrorCode::kBadValue) << filter;
  EXPECT_EQ(got.status().reason(), kDivideByZero) << filter;
}

TEST(MatchErrors, ShouldFailWithTheExprErrorWhereverItStands) {
  const std::string doc = R"({"a": 1, "z": 0})";
  ExpectDivideError(R"({"$expr": {"$divide": [1, "$z"]}})", doc);
  ExpectDivideError(R"({"a": 1, "$expr": {"$divide": [1, "$z"]}})", doc);
  ExpectDivideError(R"({"$and": [{"a": 1}, {"$expr": {"$divide": [1, "$z"]}}]})", doc);
  // $or and $nor: an erring clause is not "false, try the next one".
  ExpectDivideError(R"({"$or": [{"$expr": {"$divide": [1, "$z"]}}, {"a": 1}]})", doc);
  ExpectDivideError(R"({"$or": [{"a": 2}, {"$expr": {"$divide": [1, "$z"]}}]})", doc);
  ExpectDivideError(R"({"$nor": [{"$expr": {"$divide": [1, "$z"]}}, {"a": 2}]})", doc);
  ExpectDivideError(R"({"$nor": [{"$or": [{"a": 5}, {"$expr": {"$divide": [1, "$z"]}}]}]})", doc);
}

TEST(MatchErrors, ShouldShortCircuitAsMongoDB) {
  // A clause decided before the erring one is reached: no error.
  Result<bool> or_first =
      Match(R"({"$or": [{"a": 1}, {"$expr": {"$divide": [1, "$z"]}}]})", R"({"a": 1, "z": 0})");
  ASSERT_TRUE(or_first.ok());
  EXPECT_TRUE(*or_first);
  Result<bool> and_first =
      Match(R"({"$and": [{"a": 2}, {"$expr": {"$divide": [1, "$z"]}}]})", R"({"a": 1, "z": 0})");
  ASSERT_TRUE(and_first.ok());
  EXPECT_FALSE(*and_first);
  // The same filter on a document where the expression evaluates.
  Result<bool> fine = Match(R"({"$nor": [{"$expr": {"$divide": [1, "$z"]}}]})", R"({"z": 2})");
  ASSERT_TRUE(fine.ok());
  EXPECT_FALSE(*fine);
}

TEST(MatchErrors, ShouldFailThePositionalMatchToo) {
  BsonDoc f = BsonDoc::FromJson(R"({"arr": 2, "$expr": {"$divide": [1, "$z"]}})");
  Result<Matcher> matcher = Matcher::Parse(f.view());
  ASSERT_TRUE(matcher.ok());
  BsonDoc d = BsonDoc::FromJson(R"({"arr": [1, 2], "z": 0})");
  MatchDetails details;
  Result<bool> got = matcher->Matches(d.view(), &details);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().reason(), kDivideByZero);
  BsonDoc ok = BsonDoc::FromJson(R"({"arr": [1, 2], "z": 1})");
  Result<bool> matched = matcher->Matches(ok.view(), &details);
  ASSERT_TRUE(matched.ok());
  EXPECT_TRUE(*matched);
  EXPECT_EQ(details.elem_match_key.value_or(""), "1");
}

TEST(MatchErrors, ShouldFailAValidatorCheckWithTheExprError) {
  BsonDoc validator = BsonDoc::FromJson(R"({"$expr": {"$divide": [1, "$z"]}})");
  auto parsed =
      DocumentValidator::Make(validator.view(), ValidationLevel::kStrict, ValidationAction::kError);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  BsonDoc valid = BsonDoc::FromJson(R"({"z": 2})");
  ASSERT_TRUE((*parsed)->Matches(valid.view()).ok());
  EXPECT_TRUE(*(*parsed)->Matches(valid.view()));
  BsonDoc failing = BsonDoc::FromJson(R"({"z": 0})");
  Result<bool> got = (*parsed)->Matches(failing.view());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().reason(), kDivideByZero);
}

// (a+)+$ backtracks 2^n times over n a's not followed by the end, so PCRE2's match limit
// (10 million) stops it before the alternative "c" is tried; over "aaaa!c" it finds "c".
constexpr const char* kHardPattern = "(a+)+$|c";
const std::string kHardSubject = std::string(25, 'a') + "!c";
constexpr const char* kMatchLimitError =
    "Error occurred while executing the regular expression in $regex. Result code: match limit "
    "exceeded";

// `json` with every "P" replaced by the hard pattern and every "S" by the hard subject.
std::string Fill(std::string json) {
  for (auto [mark, text] : {std::pair<const char*, std::string>{"\"P\"", kHardPattern},
                            std::pair<const char*, std::string>{"\"S\"", kHardSubject}}) {
    for (size_t at = json.find(mark); at != std::string::npos; at = json.find(mark, at)) {
      json.replace(at, 3, "\"" + text + "\"");
      at += text.size() + 2;
    }
  }
  return json;
}

// `filter` (relaxed: "$regex_" for the operator) matched against `doc` after Fill.
Result<bool> FilledMatch(const char* filter, const char* doc, MatchDetails* details = nullptr) {
  BsonDoc f = testing::Filter(Fill(filter).c_str());
  Result<Matcher> matcher = Matcher::Parse(f.view());
  EXPECT_TRUE(matcher.ok()) << filter << ": " << matcher.status().ToString();
  if (!matcher.ok()) return matcher.status();
  BsonDoc d = BsonDoc::FromJson(Fill(doc));
  return details != nullptr ? matcher->Matches(d.view(), details) : matcher->Matches(d.view());
}

void ExpectMatchLimitError(const char* filter, const char* doc) {
  for (bool positional : {false, true}) {
    MatchDetails details;
    Result<bool> got = FilledMatch(filter, doc, positional ? &details : nullptr);
    ASSERT_FALSE(got.ok()) << filter << " on " << doc << " gave " << (got.ok() && *got);
    EXPECT_EQ(got.status().code(), ErrorCode::kLocation51156) << filter;
    EXPECT_EQ(got.status().reason(), kMatchLimitError) << filter;
  }
}

constexpr const char* kRegexValue = R"({"$regularExpression": {"pattern": "P", "options": ""}})";

std::string WithRegexValue(const char* json) {
  std::string out = json;
  for (size_t at = out.find("RE"); at != std::string::npos; at = out.find("RE", at)) {
    out.replace(at, 2, kRegexValue);
  }
  return out;
}

TEST(MatchErrors, ShouldFailEveryFilterRegexWithTheMatchLimitError) {
  const char* doc = R"({"s": "S", "t": 1})";
  for (const char* filter : {
           R"({"s": {"$regex_": "P"}})",
           R"({"s": {"$regex_": "P", "$options_": "i"}})",
           R"({"s": RE})",
           R"({"s": {"$in": ["x", RE]}})",
           R"({"s": {"$nin": [RE]}})",
           R"({"s": {"$all": [RE]}})",
           R"({"s": {"$all": ["S", RE]}})",
           R"({"s": {"$not": RE}})",
           R"({"s": {"$not": {"$regex_": "P"}}})",
           R"({"s": {"$not": {"$in": [RE]}}})",
           R"({"t": 1, "s": RE})",
           R"({"$and": [{"t": 1}, {"s": RE}]})",
           R"({"$or": [{"s": RE}, {"t": 1}]})",
           R"({"$or": [{"t": 2}, {"s": RE}]})",
           R"({"$nor": [{"s": RE}]})",
           R"({"$nor": [{"t": 2}, {"$or": [{"s": {"$in": [RE]}}]}]})",
           R"({"$jsonSchema": {"properties": {"s": {"pattern": "P"}}}})",
           R"({"$jsonSchema": {"properties": {"s": {"not": {"pattern": "P"}}}}})",
           R"({"$jsonSchema": {"properties": {"s": {"anyOf": [{"pattern": "P"}, {}]}}}})",
       }) {
    ExpectMatchLimitError(WithRegexValue(filter).c_str(), doc);
  }
  // A field name searched by patternProperties.
  ExpectMatchLimitError(R"({"$jsonSchema": {"patternProperties": {"P": {}}}})", R"({"S": 1})");
  ExpectMatchLimitError(
      R"({"$jsonSchema": {"patternProperties": {"P": {}}, "additionalProperties": false}})",
      R"({"S": 1})");
}

TEST(MatchErrors, ShouldFailRegexesReachedThroughArraysAndElemMatch) {
  // The walk stops at the failing element: nothing after it turns the error into a match.
  ExpectMatchLimitError(WithRegexValue(R"({"s": RE})").c_str(), R"({"s": ["x", "S", "c"]})");
  ExpectMatchLimitError(WithRegexValue(R"({"a.s": RE})").c_str(),
                        R"({"a": [{"s": "x"}, {"s": "S"}, {"s": "c"}]})");
  ExpectMatchLimitError(WithRegexValue(R"({"a": {"$elemMatch": {"$in": [RE]}}})").c_str(),
                        R"({"a": ["S", "c"]})");
  ExpectMatchLimitError(R"({"a": {"$elemMatch": {"$regex_": "P", "$ne": "x"}}})",
                        R"({"a": ["S", "c"]})");
  ExpectMatchLimitError(WithRegexValue(R"({"a": {"$elemMatch": {"$not": RE}}})").c_str(),
                        R"({"a": ["S", "c"]})");
  ExpectMatchLimitError(WithRegexValue(R"({"a": {"$elemMatch": {"$nin": [RE]}}})").c_str(),
                        R"({"a": ["S"]})");
  ExpectMatchLimitError(WithRegexValue(R"({"a": {"$elemMatch": {"s": RE, "t": 1}}})").c_str(),
                        R"({"a": [{"s": "S", "t": 1}, {"s": "c", "t": 1}]})");
  ExpectMatchLimitError(
      WithRegexValue(R"({"a": {"$elemMatch": {"$or": [{"s": RE}, {"t": 2}]}}})").c_str(),
      R"({"a": [{"s": "S", "t": 1}]})");
  ExpectMatchLimitError(R"({"a": {"$all": [{"$elemMatch": {"$regex_": "P"}}]}})",
                        R"({"a": ["S"]})");
  ExpectMatchLimitError(R"({"$jsonSchema": {"properties": {"a": {"items": {"pattern": "P"}}}}})",
                        R"({"a": ["c", "S"]})");
}

TEST(MatchErrors, ShouldShortCircuitRegexErrorsAsMongoDB) {
  // Decided before the regex is searched: no error.
  for (auto [filter, matches] :
       {std::pair<const char*, bool>{R"({"$or": [{"t": 1}, {"s": RE}]})", true},
        {R"({"$and": [{"t": 2}, {"s": RE}]})", false},
        {R"({"t": 2, "s": RE})", false},
        {R"({"s": {"$in": ["S", RE]}})", true},
        {R"({"u": RE})", false},
        {R"({"t": RE})", false}}) {
    Result<bool> got = FilledMatch(WithRegexValue(filter).c_str(), R"({"s": "S", "t": 1})");
    ASSERT_TRUE(got.ok()) << filter << ": " << got.status().ToString();
    EXPECT_EQ(*got, matches) << filter;
  }
  // A short run is searched to the end: every form matches "c" (or, negated, does not).
  for (auto [filter, matches] :
       {std::pair<const char*, bool>{R"({"s": RE})", true},
        {R"({"s": {"$nin": [RE]}})", false},
        {R"({"s": {"$not": RE}})", false},
        {R"({"$jsonSchema": {"properties": {"s": {"pattern": "P"}}}})", true}}) {
    Result<bool> got = FilledMatch(WithRegexValue(filter).c_str(), R"({"s": "aaaa!c"})");
    ASSERT_TRUE(got.ok()) << filter << ": " << got.status().ToString();
    EXPECT_EQ(*got, matches) << filter;
  }
}

TEST(MatchErrors, ShouldNotMatchASubjectThatIsNotUtf8) {
  Result<Matcher> matcher = Matcher::Parse(testing::Filter(R"({"s": {"$regex_": "b"}})").view());
  ASSERT_TRUE(matcher.ok());
  BsonDoc doc;
  const char bytes[] = {'a', '\xff', 'b'};
  bson_append_utf8(doc.get(), "s", 1, bytes, sizeof bytes);
  Result<bool> got = matcher->Matches(doc.view());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_FALSE(*got);
}

TEST(MatchErrors, ShouldFailAValidatorCheckWithTheRegexError) {
  for (const char* json : {R"({"s": {"$regex_": "P"}})",
                           R"({"$jsonSchema": {"properties": {"s": {"pattern": "P"}}}})"}) {
    BsonDoc validator = testing::Filter(Fill(json).c_str());
    auto parsed = DocumentValidator::Make(validator.view(), ValidationLevel::kStrict,
                                          ValidationAction::kError);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    BsonDoc valid = BsonDoc::FromJson(R"({"s": "aaaa!c"})");
    ASSERT_TRUE((*parsed)->Matches(valid.view()).ok()) << json;
    EXPECT_TRUE(*(*parsed)->Matches(valid.view())) << json;
    BsonDoc failing = BsonDoc::FromJson(Fill(R"({"s": "S"})"));
    Result<bool> got = (*parsed)->Matches(failing.view());
    ASSERT_FALSE(got.ok()) << json;
    EXPECT_EQ(got.status().code(), ErrorCode::kLocation51156);
    EXPECT_EQ(got.status().reason(), kMatchLimitError);
  }
}

TEST(MatchErrors, ShouldKeepPcreErrorsInTheRegexApi) {
  Result<Regex> regex = Regex::Compile(kHardPattern, RegexOptions{});
  ASSERT_TRUE(regex.ok());
  Result<bool> searched = regex->Search(kHardSubject);
  ASSERT_FALSE(searched.ok());
  EXPECT_EQ(searched.status().reason(), "match limit exceeded");
  Regex::Captures captures;
  EXPECT_EQ(regex->Find(kHardSubject, 0, &captures).status().reason(), "match limit exceeded");
  Status error = Regex::ExecutionError("$regexFind", searched.status());
  EXPECT_EQ(error.code(), ErrorCode::kLocation51156);
  EXPECT_EQ(error.reason(),
            "Error occurred while executing the regular expression in $regexFind. Result code: "
            "match limit exceeded");
}

}  // namespace
}  // namespace cairn::query
