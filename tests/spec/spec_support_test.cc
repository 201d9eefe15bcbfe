// The spec files' reading and matching rules (tests/spec/README.md), case by case; run.mjs
// follows the same rules.
#include "tests/spec/spec_json.h"
#include "tests/spec/spec_match.h"

#include <gtest/gtest.h>

#include <string>

namespace cairn::spec {
namespace {

std::string Match(const std::string& expected, const std::string& actual) {
  return MatchRoot(BsonDoc::FromJson(expected).view(), BsonDoc::FromJson(actual).view());
}

TEST(SpecMatch, RootAllowsExtraFieldsNestedDocumentsDoNot) {
  EXPECT_EQ(Match(R"({"n": 1})", R"({"n": 1, "ok": 1.0})"), "");
  EXPECT_EQ(Match(R"({"a": {"b": 1}})", R"({"a": {"b": 1, "c": 2}})"),
            "a.c: unexpected extra field with value 2");
  EXPECT_EQ(Match(R"({"a": [{"b": 1}]})", R"({"a": [{"b": 1, "c": 2}]})"),
            "a.0.c: unexpected extra field with value 2");
  EXPECT_EQ(Match(R"({"a": {"$$matchAsRoot": {"b": 1}}})", R"({"a": {"b": 1, "c": 2}})"), "");
  EXPECT_EQ(Match(R"({"a": 1})", R"({"b": 1})"), "a: missing field (expected 1)");
}

TEST(SpecMatch, FieldOrderDoesNotMatterArrayOrderDoes) {
  EXPECT_EQ(Match(R"({"a": {"x": 1, "y": 2}})", R"({"a": {"y": 2, "x": 1}})"), "");
  EXPECT_NE(Match(R"({"a": [1, 2]})", R"({"a": [2, 1]})"), "");
  EXPECT_EQ(Match(R"({"a": [1, 2]})", R"({"a": [1, 2, 3]})"),
            "a: expected 2 elements, got 3: [ 1, 2, 3 ]");
}

TEST(SpecMatch, NumbersCompareByValueAcrossIntLongDouble) {
  EXPECT_EQ(Match(R"({"n": 1})", R"({"n": {"$numberLong": "1"}})"), "");
  EXPECT_EQ(Match(R"({"n": 1})", R"({"n": 1.0})"), "");
  EXPECT_EQ(Match(R"({"n": {"$numberLong": "9007199254740993"}})",
                  R"({"n": {"$numberLong": "9007199254740993"}})"),
            "");
  EXPECT_NE(Match(R"({"n": {"$numberLong": "9007199254740993"}})",
                  R"({"n": {"$numberDouble": "9007199254740992"}})"),
            "");
  EXPECT_NE(Match(R"({"n": 1})", R"({"n": 1.5})"), "");
  EXPECT_NE(Match(R"({"n": 1})", R"({"n": "1"})"), "");
  EXPECT_EQ(Match(R"({"n": {"$numberDouble": "NaN"}})", R"({"n": {"$numberDouble": "NaN"}})"), "");
  // Decimal128 is not a plain number: only an equal decimal matches it.
  EXPECT_NE(Match(R"({"n": 1})", R"({"n": {"$numberDecimal": "1"}})"), "");
  EXPECT_EQ(Match(R"({"n": {"$numberDecimal": "2.50"}})", R"({"n": {"$numberDecimal": "2.50"}})"),
            "");
  EXPECT_NE(Match(R"({"n": {"$numberDecimal": "2.50"}})", R"({"n": {"$numberDecimal": "2.5"}})"),
            "");
}

TEST(SpecMatch, OtherTypesMustBeEqualValuesOfTheSameType) {
  EXPECT_EQ(Match(R"({"d": {"$date": "2020-01-01T00:00:00Z"}})",
                  R"({"d": {"$date": "2020-01-01T00:00:00Z"}})"),
            "");
  EXPECT_NE(Match(R"({"d": {"$date": "2020-01-01T00:00:00Z"}})", R"({"d": 1577836800000})"), "");
  EXPECT_EQ(Match(R"({"o": {"$oid": "65f000000000000000000001"}})",
                  R"({"o": {"$oid": "65f000000000000000000001"}})"),
            "");
  EXPECT_NE(Match(R"({"v": null})", R"({"v": false})"), "");
  EXPECT_EQ(Match(R"({"r": {"$regularExpression": {"pattern": "a", "options": "mi"}}})",
                  R"({"r": {"$regularExpression": {"pattern": "a", "options": "im"}}})"),
            "");
}

TEST(SpecMatch, SpecialOperators) {
  EXPECT_EQ(Match(R"({"a": {"$$exists": true}})", R"({"a": null})"), "");
  EXPECT_EQ(Match(R"({"a": {"$$exists": false}})", R"({"b": 1})"), "");
  EXPECT_EQ(Match(R"({"a": {"$$exists": false}})", R"({"a": 1})"),
            "a: expected the field to be absent, got 1");
  EXPECT_EQ(Match(R"({"x": {"a": {"$$exists": false}}})", R"({"x": {}})"), "");
  EXPECT_EQ(Match(R"({"a": {"$$type": "string"}})", R"({"a": "s"})"), "");
  EXPECT_EQ(Match(R"({"a": {"$$type": ["int", "long"]}})", R"({"a": {"$numberLong": "5"}})"), "");
  EXPECT_EQ(Match(R"({"a": {"$$type": "number"}})", R"({"a": 2.5})"), "");
  EXPECT_EQ(Match(R"({"a": {"$$type": "int"}})", R"({"a": 2.5})"),
            "a: expected type int, got double 2.5");
  EXPECT_EQ(Match(R"({"a": {"$$type": "objectId"}})", R"({})"),
            "a: expected a value of type objectId, absent");
  EXPECT_EQ(Match(R"({"a": {"$$unsetOrMatches": 1}})", R"({})"), "");
  EXPECT_EQ(Match(R"({"a": {"$$unsetOrMatches": 1}})", R"({"a": 1})"), "");
  EXPECT_NE(Match(R"({"a": {"$$unsetOrMatches": 1}})", R"({"a": 2})"), "");
  EXPECT_EQ(Match(R"({"a": [{"$$type": "int"}]})", R"({"a": [3]})"), "");
  EXPECT_EQ(Match(R"({"a": {"$$bogus": 1}})", R"({"a": 1})"),
            "a: unknown special operator $$bogus");
}

// The BSON a spec file's text reads as, in canonical Extended JSON, or the error.
std::string Read(const std::string& json) {
  BsonDoc doc;
  std::string error;
  if (!ParseSpecJson(json, &doc, &error)) return "error: " + error;
  size_t length = 0;
  char* text = bson_as_canonical_extended_json(doc.get(), &length);
  std::string out(text, length);
  bson_free(text);
  return out;
}

TEST(SpecJson, PlainNumbersAreTypedAsLibbsonTypesThem) {
  EXPECT_EQ(Read(R"({"a": 1, "b": 2147483648, "c": 1.0, "d": 1e3, "e": -5})"),
            R"({ "a" : { "$numberInt" : "1" }, "b" : { "$numberLong" : "2147483648" }, )"
            R"("c" : { "$numberDouble" : "1.0" }, "d" : { "$numberDouble" : "1000.0" }, )"
            R"("e" : { "$numberInt" : "-5" } })");
}

TEST(SpecJson, ExtendedJsonValueFormsBecomeValues) {
  EXPECT_EQ(Read(R"({"l": {"$numberLong": "5"}, "d": {"$date": "2020-01-01T00:00:00Z"}})"),
            R"({ "l" : { "$numberLong" : "5" }, "d" : { "$date" : { "$numberLong" : )"
            R"("1577836800000" } } })");
  EXPECT_EQ(Read(R"({"r": {"$regularExpression": {"pattern": "^a", "options": "i"}}})"),
            R"({ "r" : { "$regularExpression" : { "pattern" : "^a", "options" : "i" } } })");
  EXPECT_EQ(Read(R"({"k": [{"$minKey": 1}, {"$oid": "65f000000000000000000001"}]})"),
            R"({ "k" : [ { "$minKey" : 1 }, { "$oid" : "65f000000000000000000001" } ] })");
}

TEST(SpecJson, QueryOperatorsStayDocuments) {
  // libbson's own reader takes both for legacy Extended JSON (a binary, a regex value).
  EXPECT_EQ(Read(R"({"f": {"$type": "string"}})"), R"({ "f" : { "$type" : "string" } })");
  EXPECT_EQ(Read(R"({"f": {"$regex": "^a", "$options": "i"}})"),
            R"({ "f" : { "$regex" : "^a", "$options" : "i" } })");
  EXPECT_EQ(Read(R"({"f": {"$numberLong": "5", "x": 1}})"),
            R"({ "f" : { "$numberLong" : "5", "x" : { "$numberInt" : "1" } } })");
}

TEST(SpecJson, StringsAndErrors) {
  EXPECT_EQ(Read(R"({"s": "a\"\u00e9\ud83d\ude00\n"})"),
            "{ \"s\" : \"a\\\"\u00e9\U0001F600\\n\" }");
  EXPECT_EQ(Read("{\n  \"a\": 1,\n  \"a\": 2\n}"),
            R"(error: line 3, column 6: the field "a" twice)");
  EXPECT_EQ(Read(R"({"a": })"), "error: line 1, column 7: expected a value");
  EXPECT_EQ(Read(R"({"a": {"$numberLong": 5}})").substr(0, 44),
            "error: line 1, column 7: a bad Extended JSON");
  EXPECT_EQ(Read(R"([1])"), "error: line 1, column 1: a spec file is one JSON object");
}

}  // namespace
}  // namespace cairn::spec
