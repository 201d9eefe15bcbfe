// Collection validators (query/matcher/document_validator.h): which validators MongoDB refuses,
// the validationLevel / validationAction enums, and the errInfo.details a failing document gets
// (MongoDB 5.0+ shape) for query-operator and $jsonSchema validators.
#include "query/matcher/document_validator.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/query/bson_test_util.h"

namespace cairn::query {
namespace {

using testing::Canonical;
using testing::ExpectError;

struct DetailsCase {
  const char* name;
  const char* validator;
  const char* document;
  const char* details;  // expected errInfo.details
};

const DetailsCase kDetailsCases[] = {
    {"ComparisonFailedReportsTheValue", R"({"a": {"$gt": 5}})", R"({"_id": 1, "a": 3})",
     R"({"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}}, "reason": "comparison failed",
         "consideredValue": 3})"},
    {"MissingFieldIsSaid", R"({"a": {"$lt": 5}})", R"({"_id": 1})",
     R"({"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 5}}, "reason": "field was missing"})"},
    {"ArrayElementsAreConsideredValues", R"({"a": {"$gt": 5}})", R"({"_id": 1, "a": [1, 2]})",
     R"({"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}}, "reason": "comparison failed",
         "consideredValues": [1, 2]})"},
    {"ImplicitAndListsOnlyFailingClauses", R"({"a": 5, "c": 1, "b": {"$exists": true}})",
     R"({"_id": 1, "a": 4, "c": 1})",
     R"({"operatorName": "$and", "clausesNotSatisfied": [
         {"index": 0, "details": {"operatorName": "$eq", "specifiedAs": {"a": 5},
                                  "reason": "comparison failed", "consideredValue": 4}},
         {"index": 2, "details": {"operatorName": "$exists", "specifiedAs": {"b": {"$exists": true}},
                                  "reason": "path does not exist"}}]})"},
    {"OrListsEveryClause", R"({"$or": [{"a": 1}, {"b": {"$type": "string"}}]})",
     R"({"_id": 1, "a": 2, "b": 3})",
     R"({"operatorName": "$or", "clausesNotSatisfied": [
         {"index": 0, "details": {"operatorName": "$eq", "specifiedAs": {"a": 1},
                                  "reason": "comparison failed", "consideredValue": 2}},
         {"index": 1, "details": {"operatorName": "$type", "specifiedAs": {"b": {"$type": "string"}},
                                  "reason": "type did not match", "consideredValue": 3,
                                  "consideredType": "int"}}]})"},
    {"NorExplainsTheClauseThatMatched", R"({"$nor": [{"a": 1}, {"b": 1}]})",
     R"({"_id": 1, "a": 1})",
     R"({"operatorName": "$nor", "clausesNotSatisfied": [
         {"index": 0, "details": {"operatorName": "$eq", "specifiedAs": {"a": 1},
                                  "reason": "comparison succeeded", "consideredValue": 1}}]})"},
    {"RegexOnANumberIsATypeMismatch", R"({"a": {"$regex": "^x"}})", R"({"_id": 1, "a": 5})",
     R"({"operatorName": "$regex", "specifiedAs": {"a": {"$regex": "^x"}},
         "reason": "type did not match", "consideredType": "int",
         "expectedTypes": ["regex", "string", "symbol"], "consideredValue": 5})"},
    {"InReportsNoMatchingValue", R"({"s": {"$in": ["A", "B"]}})", R"({"_id": 1, "s": "C"})",
     R"({"operatorName": "$in", "specifiedAs": {"s": {"$in": ["A", "B"]}},
         "reason": "no matching value found in array", "consideredValue": "C"})"},
    {"SchemaPropertiesExplainEachFailingKeyword",
     R"({"$jsonSchema": {"required": ["name", "year"], "properties": {
         "name": {"bsonType": "string"}, "year": {"bsonType": "int", "minimum": 2017}}}})",
     R"({"_id": 1, "name": 5, "year": 2000})",
     R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
         {"operatorName": "properties", "propertiesNotSatisfied": [
           {"propertyName": "name", "details": [
             {"operatorName": "bsonType", "specifiedAs": {"bsonType": "string"},
              "reason": "type did not match", "consideredValue": 5, "consideredType": "int"}]},
           {"propertyName": "year", "details": [
             {"operatorName": "minimum", "specifiedAs": {"minimum": 2017},
              "reason": "comparison failed", "consideredValue": 2000}]}]}]})"},
    {"SchemaRequiredListsMissingPropertiesSorted",
     R"({"$jsonSchema": {"required": ["b", "a", "_id"]}})", R"({"_id": 1})",
     R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
         {"operatorName": "required", "specifiedAs": {"required": ["b", "a", "_id"]},
          "missingProperties": ["a", "b"]}]})"},
    {"SchemaAdditionalPropertiesFalseNamesThem",
     R"({"$jsonSchema": {"properties": {"_id": {}}, "additionalProperties": false}})",
     R"({"_id": 1, "x": 1, "y": 2})",
     R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
         {"operatorName": "additionalProperties", "specifiedAs": {"additionalProperties": false},
          "additionalProperties": ["x", "y"]}]})"},
    {"SchemaStringKeywords",
     R"({"$jsonSchema": {"title": "T", "properties": {"s": {"enum": ["a", "b"]},
         "t": {"pattern": "^x", "maxLength": 2, "description": "d"}}}})",
     R"({"_id": 1, "s": "c", "t": "yyy"})",
     R"({"operatorName": "$jsonSchema", "title": "T", "schemaRulesNotSatisfied": [
         {"operatorName": "properties", "propertiesNotSatisfied": [
           {"propertyName": "s", "details": [
             {"operatorName": "enum", "specifiedAs": {"enum": ["a", "b"]},
              "reason": "value was not found in enum", "consideredValue": "c"}]},
           {"propertyName": "t", "description": "d", "details": [
             {"operatorName": "pattern", "specifiedAs": {"pattern": "^x"},
              "reason": "regular expression did not match", "consideredValue": "yyy"},
             {"operatorName": "maxLength", "specifiedAs": {"maxLength": 2},
              "reason": "specified string length was not satisfied",
              "consideredValue": "yyy"}]}]}]})"},
    {"SchemaAndQueryOperatorsTogether", R"({"$jsonSchema": {"required": ["a"]}, "b": {"$gte": 1}})",
     R"({"_id": 1, "a": 1, "b": 0})",
     R"({"operatorName": "$and", "clausesNotSatisfied": [
         {"index": 1, "details": {"operatorName": "$gte", "specifiedAs": {"b": {"$gte": 1}},
                                  "reason": "comparison failed", "consideredValue": 0}}]})"},
    {"SchemaArrayKeywords",
     R"({"$jsonSchema": {"properties": {"a": {"minItems": 3, "items": {"bsonType": "int"}}}}})",
     R"({"_id": 1, "a": [1, "x"]})",
     R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
         {"operatorName": "properties", "propertiesNotSatisfied": [
           {"propertyName": "a", "details": [
             {"operatorName": "minItems", "specifiedAs": {"minItems": 3},
              "reason": "array did not match specified length", "consideredValue": [1, "x"],
              "numberOfItems": 2},
             {"operatorName": "items", "reason": "At least one item did not match the sub-schema",
              "itemIndex": 1, "details": [
                {"operatorName": "bsonType", "specifiedAs": {"bsonType": "int"},
                 "reason": "type did not match", "consideredValue": "x",
                 "consideredType": "string"}]}]}]}]})"},
};

class ValidationDetailsTest : public ::testing::TestWithParam<DetailsCase> {};

TEST_P(ValidationDetailsTest, ShouldExplainAsMongoDB) {
  const DetailsCase& c = GetParam();
  BsonDoc validator = BsonDoc::FromJson(c.validator);
  BsonDoc document = BsonDoc::FromJson(c.document);
  auto parsed =
      DocumentValidator::Make(validator.view(), ValidationLevel::kStrict, ValidationAction::kError);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_FALSE(*(*parsed)->Matches(document.view()));
  EXPECT_EQ(Canonical((*parsed)->ExplainFailure(document.view()).view()),
            Canonical(BsonDoc::FromJson(c.details).view()));
}

INSTANTIATE_TEST_SUITE_P(Validators, ValidationDetailsTest, ::testing::ValuesIn(kDetailsCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(DocumentValidatorTest, ShouldAnswerDocumentValidationFailureWithErrInfo) {
  BsonDoc validator = BsonDoc::FromJson(R"({"a": {"$gt": 5}})");
  auto parsed =
      DocumentValidator::Make(validator.view(), ValidationLevel::kStrict, ValidationAction::kError);
  ASSERT_TRUE(parsed.ok());
  BsonDoc doc = BsonDoc::FromJson(R"({"_id": 7, "a": 1})");
  Status status = (*parsed)->FailureStatus(doc.view());
  ExpectError(status, 121, "Document failed validation", "121");
  ASSERT_NE(status.extra(), nullptr);
  EXPECT_EQ(Canonical(status.extra()->view()),
            Canonical(BsonDoc::FromJson(R"({"errInfo": {"failingDocumentId": 7, "details": {
                "operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}},
                "reason": "comparison failed", "consideredValue": 1}}})")
                          .view()));
}

struct RefusedCase {
  const char* validator;
  int code;
  const char* message;  // nullptr: code only
};

TEST(DocumentValidatorTest, ShouldRefuseWhatMongoDBRefusesInValidators) {
  const RefusedCase cases[] = {
      {R"({"$where": "this.a == 1"})", 2, "$where is not allowed in this context"},
      {R"({"$text": {"$search": "x"}})", 2, "$text is not allowed in this context"},
      {R"({"$and": [{"loc": {"$near": [0, 0]}}]})", 5626500, nullptr},
      {R"({"loc": {"$nearSphere": [0, 0]}})", 5626500, nullptr},
      {R"({"a": {"$foo": 1}})", 2, "unknown operator: $foo"},
      {R"({"$jsonSchema": {"$ref": "#/x"}})", 9,
       "$jsonSchema keyword '$ref' is not currently supported"},
      {R"({"$jsonSchema": {"format": "date"}})", 9,
       "$jsonSchema keyword 'format' is not currently supported"},
      {R"({"$jsonSchema": {"required": []}})", 9,
       "$jsonSchema keyword 'required' cannot be an empty array"},
  };
  for (const RefusedCase& c : cases) {
    BsonDoc validator = BsonDoc::FromJson(c.validator);
    auto parsed = DocumentValidator::Make(validator.view(), ValidationLevel::kStrict,
                                          ValidationAction::kError);
    ExpectError(parsed.status(), c.code, c.message, c.validator);
  }
}

TEST(DocumentValidatorTest, ShouldParseTheEnumsAsTheIdlDoes) {
  EXPECT_EQ(*ParseValidationLevel("moderate", "create"), ValidationLevel::kModerate);
  EXPECT_EQ(*ParseValidationAction("warn", "collMod"), ValidationAction::kWarn);
  ExpectError(ParseValidationLevel("loose", "create").status(), 2,
              "Enumeration value 'loose' for field 'create.validationLevel' is not a valid value.",
              "level");
  ExpectError(ParseValidationAction("log", "collMod").status(), 2,
              "Enumeration value 'log' for field 'collMod.validationAction' is not a valid value.",
              "action");
}

TEST(DocumentValidatorTest, ShouldApplyNoValidatorWhenOffOrEmpty) {
  auto off = DocumentValidator::FromCollectionOptions(
      BsonDoc::FromJson(R"({"validator": {"a": 1}, "validationLevel": "off"})").view());
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(*off, nullptr);
  auto empty =
      DocumentValidator::FromCollectionOptions(BsonDoc::FromJson(R"({"validator": {}})").view());
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, nullptr);
  auto warn = DocumentValidator::FromCollectionOptions(
      BsonDoc::FromJson(R"({"validator": {"a": 1}, "validationAction": "warn"})").view());
  ASSERT_TRUE(warn.ok());
  ASSERT_NE(*warn, nullptr);
  EXPECT_EQ((*warn)->action(), ValidationAction::kWarn);
  EXPECT_EQ((*warn)->level(), ValidationLevel::kStrict);
}

}  // namespace
}  // namespace cairn::query
