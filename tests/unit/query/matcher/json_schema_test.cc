// Specification of $jsonSchema as MongoDB 7.0 answers it: each supported keyword's meaning
// (restriction keywords pass values of other types; a top-level schema applies to the document),
// the keywords MongoDB refuses, and its error codes and messages for ill-typed arguments, in the
// order MongoDB reports them; plus the schema tree a validator's error report will walk.
#include "query/matcher/json_schema/json_schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/unit/query/matcher/matcher_test_util.h"

namespace cairn::query {
namespace {

using testing::ErrorCase;
using testing::MatchCase;

class JsonSchemaSpec : public ::testing::TestWithParam<MatchCase> {};
TEST_P(JsonSchemaSpec, ShouldMatchAsMongoDB) { testing::ExpectMatch(GetParam()); }

// A filter {$jsonSchema: <schema>}; P(<schema>) nests it as the schema of property "a".
#define S(schema) "{\"$jsonSchema\": " schema "}"
#define P(schema) S("{\"properties\": {\"a\": " schema "}}")

const MatchCase kTypes[] = {
    {S(R"({"bsonType": "object"})"), R"({"a": 1})", true},
    {S(R"({"type": "object"})"), R"({"a": 1})", true},
    {S(R"({"bsonType": "string"})"), R"({"a": 1})", false},
    {S(R"({"bsonType": ["string", "object"]})"), R"({})", true},
    {P(R"({"bsonType": "int"})"), R"({"a": 1})", true},
    {P(R"({"bsonType": "int"})"), R"({"a": 1.5})", false},
    {P(R"({"bsonType": "int"})"), R"({"a": null})", false},
    {P(R"({"bsonType": "int"})"), R"({"a": [1]})", false},
    {P(R"({"bsonType": "int"})"), R"({})", true},
    {P(R"({"bsonType": "long"})"), R"({"a": {"$numberLong": "1"}})", true},
    {P(R"({"bsonType": "long"})"), R"({"a": 1})", false},
    {P(R"({"bsonType": ["int", "string"]})"), R"({"a": "x"})", true},
    {P(R"({"bsonType": ["int", "string"]})"), R"({"a": 1.5})", false},
    {P(R"({"bsonType": "number"})"), R"({"a": {"$numberDecimal": "1"}})", true},
    {P(R"({"bsonType": "number"})"), R"({"a": "1"})", false},
    {P(R"({"bsonType": "objectId"})"), R"({"a": {"$oid": "5f1b0c0e0000000000000001"}})", true},
    {P(R"({"bsonType": "array"})"), R"({"a": []})", true},
    {P(R"({"type": "number"})"), R"({"a": 1.5})", true},
    {P(R"({"type": "boolean"})"), R"({"a": true})", true},
    {P(R"({"type": "boolean"})"), R"({"a": 1})", false},
    {P(R"({"type": ["null", "array"]})"), R"({"a": null})", true},
    {P(R"({"type": ["null", "array"]})"), R"({"a": [1]})", true},
    {P(R"({"type": ["null", "array"]})"), R"({"a": {}})", false},
    {P(R"({"type": "string"})"), R"({"a": {"$symbol": "x"}})", false},
};
INSTANTIATE_TEST_SUITE_P(Types, JsonSchemaSpec, ::testing::ValuesIn(kTypes));

const MatchCase kScalars[] = {
    {P(R"({"minimum": 5})"), R"({"a": 5})", true},
    {P(R"({"minimum": 5})"), R"({"a": 4.9})", false},
    {P(R"({"minimum": 5})"), R"({"a": {"$numberDecimal": "5.0"}})", true},
    {P(R"({"minimum": 5})"), R"({"a": {"$numberDouble": "NaN"}})", false},
    {P(R"({"minimum": 5})"), R"({"a": "x"})", true},
    {P(R"({"minimum": 5})"), R"({"a": [1]})", true},
    {P(R"({"minimum": 5, "exclusiveMinimum": true})"), R"({"a": 5})", false},
    {P(R"({"minimum": 5, "exclusiveMinimum": true})"), R"({"a": 6})", true},
    {P(R"({"minimum": 5, "exclusiveMinimum": false})"), R"({"a": 5})", true},
    {P(R"({"maximum": 5})"), R"({"a": 5})", true},
    {P(R"({"maximum": 5})"), R"({"a": 6})", false},
    {P(R"({"maximum": 5, "exclusiveMaximum": true})"), R"({"a": 5})", false},
    {P(R"({"bsonType": "int", "minimum": 5})"), R"({"a": "x"})", false},
    {P(R"({"minLength": 2, "maxLength": 3})"), R"({"a": "é"})", false},
    {P(R"({"minLength": 2, "maxLength": 3})"), R"({"a": "éé"})", true},
    {P(R"({"minLength": 2, "maxLength": 3})"), R"({"a": "abcd"})", false},
    {P(R"({"minLength": 2, "maxLength": 3})"), R"({"a": 5})", true},
    {P(R"({"pattern": "^a"})"), R"({"a": "abc"})", true},
    {P(R"({"pattern": "^a"})"), R"({"a": "bac"})", false},
    {P(R"({"pattern": "^a"})"), R"({"a": 5})", true},
    {P(R"({"pattern": "^a"})"), R"({"a": {"$symbol": "b"}})", true},
    // A top-level pattern (like every string or number keyword there) never applies: MongoDB
    // does not even compile it.
    {S(R"({"pattern": "("})"), R"({"a": 1})", true},
    {S(R"({"minimum": 5, "maxLength": 0})"), R"({"a": 1})", true},
    {P(R"({"multipleOf": 3})"), R"({"a": 9})", true},
    {P(R"({"multipleOf": 3})"), R"({"a": -9})", true},
    {P(R"({"multipleOf": 3})"), R"({"a": 0})", true},
    {P(R"({"multipleOf": 3})"), R"({"a": 10})", false},
    {P(R"({"multipleOf": 3})"), R"({"a": 9.0})", true},
    {P(R"({"multipleOf": 3})"), R"({"a": 10.5})", false},
    {P(R"({"multipleOf": 3})"), R"({"a": {"$numberLong": "9000000000000000000"}})", true},
    {P(R"({"multipleOf": 0.1})"), R"({"a": 0.3})", true},
    {P(R"({"multipleOf": 2.5})"), R"({"a": 7.5})", true},
    {P(R"({"multipleOf": 2.5})"), R"({"a": 7})", false},
    {P(R"({"multipleOf": {"$numberDecimal": "1.5"}})"), R"({"a": {"$numberDecimal": "4.5"}})",
     true},
    {P(R"({"multipleOf": {"$numberDecimal": "0.001"}})"), R"({"a": {"$numberDecimal": "1E+6"}})",
     true},
    {P(R"({"multipleOf": 1000})"), R"({"a": {"$numberDecimal": "0.001"}})", false},
    {P(R"({"multipleOf": 3})"), R"({"a": {"$numberDouble": "NaN"}})", false},
    {P(R"({"multipleOf": 3})"), R"({"a": {"$numberDouble": "Infinity"}})", false},
    {P(R"({"multipleOf": 3})"), R"({"a": "9"})", true},
};
INSTANTIATE_TEST_SUITE_P(Scalars, JsonSchemaSpec, ::testing::ValuesIn(kScalars));

const MatchCase kArrays[] = {
    {P(R"({"minItems": 1, "maxItems": 2})"), R"({"a": []})", false},
    {P(R"({"minItems": 1, "maxItems": 2})"), R"({"a": [1]})", true},
    {P(R"({"minItems": 1, "maxItems": 2})"), R"({"a": [1, 2, 3]})", false},
    {P(R"({"minItems": 1, "maxItems": 2})"), R"({"a": "x"})", true},
    {P(R"({"uniqueItems": true})"), R"({"a": [1, 2]})", true},
    {P(R"({"uniqueItems": true})"), R"({"a": [1, 1.0]})", false},
    {P(R"({"uniqueItems": true})"), R"({"a": ["a", "b", "a"]})", false},
    {P(R"({"uniqueItems": true})"), R"({"a": [{"x": 1, "y": 2}, {"y": 2, "x": 1}]})", false},
    {P(R"({"uniqueItems": true})"), R"({"a": [[1, 2], [2, 1]]})", true},
    {P(R"({"uniqueItems": true})"), R"({"a": [[{"x": 1, "y": 2}], [{"y": 2, "x": 1}]]})", false},
    {P(R"({"uniqueItems": true})"), R"({"a": 5})", true},
    {P(R"({"uniqueItems": false})"), R"({"a": [1, 1]})", true},
    {P(R"({"items": {"bsonType": "int"}})"), R"({"a": [1, 2]})", true},
    {P(R"({"items": {"bsonType": "int"}})"), R"({"a": [1, "x"]})", false},
    {P(R"({"items": {"bsonType": "int"}})"), R"({"a": []})", true},
    {P(R"({"items": {"bsonType": "int"}})"), R"({"a": "x"})", true},
    {P(R"({"items": [{"bsonType": "int"}, {"bsonType": "string"}]})"), R"({"a": [1, "x"]})", true},
    {P(R"({"items": [{"bsonType": "int"}, {"bsonType": "string"}]})"), R"({"a": [1, 2]})", false},
    {P(R"({"items": [{"bsonType": "int"}, {"bsonType": "string"}]})"), R"({"a": [1]})", true},
    {P(R"({"items": [{"bsonType": "int"}, {"bsonType": "string"}]})"), R"({"a": [1, "x", 2.5]})",
     true},
    {P(R"({"items": [{"bsonType": "int"}], "additionalItems": false})"), R"({"a": [1]})", true},
    {P(R"({"items": [{"bsonType": "int"}], "additionalItems": false})"), R"({"a": [1, 2]})", false},
    {P(R"({"items": [{}], "additionalItems": {"bsonType": "string"}})"), R"({"a": [1, "x", "y"]})",
     true},
    {P(R"({"items": [{}], "additionalItems": {"bsonType": "string"}})"), R"({"a": [1, "x", 2]})",
     false},
    {P(R"({"additionalItems": false})"), R"({"a": [1, 2]})", true},
    {P(R"({"items": {}, "additionalItems": false})"), R"({"a": [1, 2]})", true},
};
INSTANTIATE_TEST_SUITE_P(Arrays, JsonSchemaSpec, ::testing::ValuesIn(kArrays));

const MatchCase kObjects[] = {
    {S(R"({"required": ["a", "b"]})"), R"({"a": 1, "b": null})", true},
    {S(R"({"required": ["a", "b"]})"), R"({"a": 1})", false},
    {S(R"({"required": ["a.b"]})"), R"({"a": {"b": 1}})", true},
    {S(R"({"required": ["a.b"]})"), R"({"a": 1})", false},
    {P(R"({"required": ["b"]})"), R"({"a": {"b": 1}})", true},
    {P(R"({"required": ["b"]})"), R"({"a": {}})", false},
    {P(R"({"required": ["b"]})"), R"({"a": 5})", true},
    {P(R"({"required": ["b"]})"), R"({})", true},
    {S(R"({"required": ["a"], "properties": {"a": {"bsonType": "string"}}})"), R"({"a": "x"})",
     true},
    {S(R"({"required": ["a"], "properties": {"a": {"bsonType": "string"}}})"), R"({"a": 1})",
     false},
    {S(R"({"required": ["a"], "properties": {"a": {"bsonType": "string"}}})"), R"({})", false},
    {P(R"({"properties": {"b": {"bsonType": "int"}}})"), R"({"a": {"b": 1}})", true},
    {P(R"({"properties": {"b": {"bsonType": "int"}}})"), R"({"a": {"b": "x"}})", false},
    {P(R"({"properties": {"b": {"bsonType": "int"}}})"), R"({"a": [{"b": "x"}]})", true},
    {S(R"({"properties": {"_id": {}, "a": {}}, "additionalProperties": false})"),
     R"({"_id": 1, "a": 1})", true},
    {S(R"({"properties": {"_id": {}, "a": {}}, "additionalProperties": false})"),
     R"({"_id": 1, "b": 1})", false},
    {S(R"({"additionalProperties": true})"), R"({"b": 1})", true},
    {S(R"({"properties": {"a": {}}, "additionalProperties": {"bsonType": "int"}})"),
     R"({"a": "x", "b": 1})", true},
    {S(R"({"properties": {"a": {}}, "additionalProperties": {"bsonType": "int"}})"),
     R"({"b": "x"})", false},
    {S(R"({"patternProperties": {"^s_": {"bsonType": "string"}}})"), R"({"s_a": "x", "n": 1})",
     true},
    {S(R"({"patternProperties": {"^s_": {"bsonType": "string"}}})"), R"({"s_a": 1})", false},
    {S(R"({"patternProperties": {"^x": {}}, "additionalProperties": false})"), R"({"xa": 1})",
     true},
    {S(R"({"patternProperties": {"^x": {}}, "additionalProperties": false})"), R"({"y": 1})",
     false},
    {S(R"({"properties": {"sa": {}}, "patternProperties": {"^s": {"bsonType": "int"}}})"),
     R"({"sa": "x"})", false},
    {S(R"({"patternProperties": {"a": {"minimum": 5}, "b": {"maximum": 7}}})"), R"({"ab": 6})",
     true},
    {S(R"({"patternProperties": {"a": {"minimum": 5}, "b": {"maximum": 7}}})"), R"({"ab": 8})",
     false},
    {S(R"({"minProperties": 2})"), R"({"a": 1})", false},
    {S(R"({"minProperties": 2})"), R"({"a": 1, "b": 2})", true},
    {S(R"({"maxProperties": 1})"), R"({"a": 1, "b": 2})", false},
    {P(R"({"maxProperties": 1})"), R"({"a": {"x": 1, "y": 2}})", false},
    {P(R"({"maxProperties": 1})"), R"({"a": 5})", true},
    {S(R"({"dependencies": {"a": ["b", "c"]}})"), R"({"a": 1, "b": 1, "c": 1})", true},
    {S(R"({"dependencies": {"a": ["b", "c"]}})"), R"({"a": 1, "b": 1})", false},
    {S(R"({"dependencies": {"a": ["b", "c"]}})"), R"({"b": 1})", true},
    {S(R"({"dependencies": {"a": {"required": ["b"]}}})"), R"({"a": 1})", false},
    {S(R"({"dependencies": {"a": {"required": ["b"]}}})"), R"({"a": 1, "b": 2})", true},
    {S(R"({"dependencies": {"a": {"required": ["b"]}}})"), R"({})", true},
    {S(R"({"dependencies": {"a": {"properties": {"b": {"bsonType": "int"}}}}})"),
     R"({"a": 1, "b": "x"})", false},
    {P(R"({"dependencies": {"x": ["y"]}})"), R"({"a": {"x": 1}})", false},
    {P(R"({"dependencies": {"x": ["y"]}})"), R"({"a": 7})", true},
    {S(R"({"dependencies": {"title": "t", "description": "d", "a": ["b"]}})"), R"({"title": 1})",
     true},
};
INSTANTIATE_TEST_SUITE_P(Objects, JsonSchemaSpec, ::testing::ValuesIn(kObjects));

const MatchCase kLogical[] = {
    {P(R"({"allOf": [{"minimum": 1}, {"maximum": 3}]})"), R"({"a": 2})", true},
    {P(R"({"allOf": [{"minimum": 1}, {"maximum": 3}]})"), R"({"a": 4})", false},
    {P(R"({"anyOf": [{"bsonType": "int"}, {"bsonType": "string"}]})"), R"({"a": "x"})", true},
    {P(R"({"anyOf": [{"bsonType": "int"}, {"bsonType": "string"}]})"), R"({"a": 1.5})", false},
    {P(R"({"oneOf": [{"minimum": 1}, {"maximum": 3}]})"), R"({"a": 0})", true},
    {P(R"({"oneOf": [{"minimum": 1}, {"maximum": 3}]})"), R"({"a": 2})", false},
    {P(R"({"oneOf": [{"minimum": 1}, {"maximum": 3}]})"), R"({"a": 5})", true},
    {P(R"({"not": {"bsonType": "string"}})"), R"({"a": 1})", true},
    {P(R"({"not": {"bsonType": "string"}})"), R"({"a": "x"})", false},
    {P(R"({"not": {"bsonType": "string"}})"), R"({})", true},
    {S(R"({"not": {"required": ["a"]}})"), R"({})", true},
    {S(R"({"not": {"required": ["a"]}})"), R"({"a": 1})", false},
    {S(R"({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]})"), R"({"b": 1})", true},
    {S(R"({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]})"), R"({})", false},
    {P(R"({"enum": [1, "x", {"b": 1, "c": 2}, [1, 2]]})"), R"({"a": 1.0})", true},
    {P(R"({"enum": [1, "x", {"b": 1, "c": 2}, [1, 2]]})"), R"({"a": "x"})", true},
    {P(R"({"enum": [1, "x", {"b": 1, "c": 2}, [1, 2]]})"), R"({"a": {"c": 2, "b": 1}})", true},
    {P(R"({"enum": [1, "x", {"b": 1, "c": 2}, [1, 2]]})"), R"({"a": [1, 2]})", true},
    {P(R"({"enum": [1, "x", {"b": 1, "c": 2}, [1, 2]]})"), R"({"a": [2, 1]})", false},
    {P(R"({"enum": [1, "x", {"b": 1, "c": 2}, [1, 2]]})"), R"({"a": 2})", false},
    {P(R"({"enum": [1, "x", {"b": 1, "c": 2}, [1, 2]]})"), R"({"a": {"b": 1}})", false},
    {P(R"({"enum": [1, "x", {"b": 1, "c": 2}, [1, 2]]})"), R"({})", true},
    {P(R"({"enum": [null]})"), R"({"a": null})", true},
    // At the top level enum compares the whole document.
    {S(R"({"enum": [{"a": 1, "b": 2}, 5]})"), R"({"b": 2, "a": 1})", true},
    {S(R"({"enum": [{"a": 1, "b": 2}, 5]})"), R"({"a": 1})", false},
    {S(R"({"enum": [5]})"), R"({"a": 1})", false},
};
INSTANTIATE_TEST_SUITE_P(Logical, JsonSchemaSpec, ::testing::ValuesIn(kLogical));

const MatchCase kInFilters[] = {
    {S(R"({})"), R"({"a": 1})", true},
    {S(R"({"title": "t", "description": "d", "properties": {"a": {"title": "x"}}})"), R"({"a": 1})",
     true},
    {R"({"$jsonSchema": {"required": ["a"]}, "a": {"$gt": 1}})", R"({"a": 2})", true},
    {R"({"$jsonSchema": {"required": ["a"]}, "a": {"$gt": 1}})", R"({"a": 1})", false},
    {R"({"$nor": [{"$jsonSchema": {"required": ["a"]}}]})", R"({})", true},
    {R"({"$or": [{"$jsonSchema": {"required": ["a"]}}, {"b": 1}]})", R"({"b": 1})", true},
    {R"({"arr": {"$elemMatch": {"$jsonSchema": {"required": ["x"]}}}})",
     R"({"arr": [{"y": 1}, {"x": 1}]})", true},
    {R"({"arr": {"$elemMatch": {"$jsonSchema": {"required": ["x"]}}}})", R"({"arr": [{"y": 1}]})",
     false},
};
INSTANTIATE_TEST_SUITE_P(InFilters, JsonSchemaSpec, ::testing::ValuesIn(kInFilters));

class JsonSchemaErrors : public ::testing::TestWithParam<ErrorCase> {};
TEST_P(JsonSchemaErrors, ShouldRejectWithMongoDBCodeAndMessage) {
  testing::ExpectParseError(GetParam());
}

constexpr ErrorCode kBadValue = ErrorCode::kBadValue;
constexpr ErrorCode kFailedToParse = ErrorCode::kFailedToParse;
constexpr ErrorCode kTypeMismatch = ErrorCode::kTypeMismatch;

const ErrorCase kKeywordErrors[] = {
    {R"({"$jsonSchema": 1})", kTypeMismatch, "$jsonSchema must be an object"},
    {S(R"({"$ref": "#/definitions/a"})"), kFailedToParse,
     "$jsonSchema keyword '$ref' is not currently supported"},
    {S(R"({"$schema": "x"})"), kFailedToParse,
     "$jsonSchema keyword '$schema' is not currently supported"},
    {S(R"({"default": 1})"), kFailedToParse,
     "$jsonSchema keyword 'default' is not currently supported"},
    {S(R"({"definitions": {}})"), kFailedToParse,
     "$jsonSchema keyword 'definitions' is not currently supported"},
    {S(R"({"format": "date"})"), kFailedToParse,
     "$jsonSchema keyword 'format' is not currently supported"},
    {S(R"({"id": "x"})"), kFailedToParse, "$jsonSchema keyword 'id' is not currently supported"},
    {S(R"({"foo": 1})"), kFailedToParse, "Unknown $jsonSchema keyword: foo"},
    {P(R"({"foo": 1})"), kFailedToParse, "Unknown $jsonSchema keyword: foo"},
    {S(R"({"title": "a", "title": "b"})"), kFailedToParse, "Duplicate $jsonSchema keyword: title"},
    {S(R"({"title": 1})"), kTypeMismatch, "$jsonSchema keyword 'title' must be of type string"},
    {S(R"({"description": {}})"), kTypeMismatch,
     "$jsonSchema keyword 'description' must be of type string"},
    {S(R"({"encrypt": {}})"), ErrorCode::kQueryFeatureNotAllowed,
     "Encryption-related validator keywords are not allowed in this context"},
};
INSTANTIATE_TEST_SUITE_P(Keywords, JsonSchemaErrors, ::testing::ValuesIn(kKeywordErrors));

const ErrorCase kTypeErrors[] = {
    {S(R"({"type": "integer"})"), kFailedToParse,
     "$jsonSchema type 'integer' is not currently supported."},
    {S(R"({"bsonType": "integer"})"), kFailedToParse,
     "$jsonSchema type 'integer' is not currently supported."},
    {S(R"({"type": ["string", "integer"]})"), kFailedToParse,
     "$jsonSchema type 'integer' is not currently supported."},
    {S(R"({"type": "int"})"), kBadValue, "Unknown type name alias: int"},
    {S(R"({"bsonType": "foo"})"), kBadValue, "Unknown type name alias: foo"},
    {S(R"({"bsonType": ["string", "zzz", "foo"]})"), kBadValue, "Unknown type name alias: foo"},
    {S(R"({"bsonType": "missing"})"), kBadValue,
     "'missing' is not a legal type name. To query for non-existence of a field, use "
     "{$exists:false}."},
    {S(R"({"type": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'type' must be either a string or an array of strings"},
    {S(R"({"bsonType": [1]})"), kTypeMismatch,
     "$jsonSchema keyword 'bsonType' array elements must be strings"},
    {S(R"({"bsonType": ["int", "int"]})"), kFailedToParse,
     "$jsonSchema keyword 'bsonType' has duplicate value: int"},
    {S(R"({"bsonType": []})"), kFailedToParse,
     "$jsonSchema keyword 'bsonType' must name at least one type"},
    {S(R"({"type": "object", "bsonType": "object"})"), kFailedToParse,
     "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'"},
};
INSTANTIATE_TEST_SUITE_P(Types, JsonSchemaErrors, ::testing::ValuesIn(kTypeErrors));

const ErrorCase kArgumentErrors[] = {
    {S(R"({"minimum": "x"})"), kTypeMismatch, "$jsonSchema keyword 'minimum' must be a number"},
    {S(R"({"maximum": 1, "exclusiveMaximum": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'exclusiveMaximum' must be a boolean"},
    {S(R"({"maximum": "x", "exclusiveMaximum": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'exclusiveMaximum' must be a boolean"},
    {S(R"({"exclusiveMinimum": true})"), kFailedToParse,
     "$jsonSchema keyword 'minimum' must be a present if exclusiveMinimum is present"},
    {S(R"({"minLength": -1})"), kFailedToParse, "Expected a non-negative number in: minLength: -1"},
    {S(R"({"maxItems": "x"})"), kFailedToParse, "Expected a number in: maxItems: \"x\""},
    {S(R"({"minProperties": 1.5})"), kFailedToParse, "Expected an integer: minProperties: 1.5"},
    {S(R"({"pattern": 1})"), kTypeMismatch, "$jsonSchema keyword 'pattern' must be a string"},
    {P(R"({"pattern": "("})"), ErrorCode::kLocation51091,
     "Regular expression is invalid: missing closing parenthesis"},
    {S(R"({"multipleOf": "x"})"), kTypeMismatch,
     "$jsonSchema keyword 'multipleOf' must be a number"},
    {S(R"({"multipleOf": 0})"), kFailedToParse,
     "$jsonSchema keyword 'multipleOf' must have a positive value"},
    {S(R"({"multipleOf": -1.5})"), kFailedToParse,
     "$jsonSchema keyword 'multipleOf' must have a positive value"},
    {S(R"({"uniqueItems": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'uniqueItems' must be a boolean"},
    {S(R"({"items": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'items' must be an array or an object, not int"},
    {S(R"({"items": [{}, true]})"), kTypeMismatch,
     "$jsonSchema keyword 'items' requires that each element of the array is an object, but "
     "found a bool"},
    {S(R"({"additionalItems": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'additionalItems' must be either an object or a boolean, but got a int"},
    {S(R"({"required": "a"})"), kTypeMismatch,
     "$jsonSchema keyword 'required' must be an array, but found an element of type string"},
    {S(R"({"required": [1]})"), kTypeMismatch,
     "$jsonSchema keyword 'required' must be an array of strings, but found an element of type: "
     "int"},
    {S(R"({"required": []})"), kFailedToParse,
     "$jsonSchema keyword 'required' cannot be an empty array"},
    {S(R"({"required": ["a", "a"]})"), kFailedToParse,
     "$jsonSchema keyword 'required' array cannot contain duplicate values"},
    {S(R"({"properties": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'properties' must be an object"},
    {S(R"({"properties": {"a": 1}})"), kTypeMismatch,
     "Nested schema for $jsonSchema property 'a' must be an object"},
    {S(R"({"additionalProperties": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'additionalProperties' must be an object or a boolean"},
    {S(R"({"patternProperties": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'patternProperties' must be an object"},
    {S(R"({"patternProperties": {"^a": 1}})"), kTypeMismatch,
     "$jsonSchema keyword 'patternProperties' has property '^a' which is not an object"},
    {S(R"({"patternProperties": {"(": {}}})"), kBadValue,
     "Invalid regular expression: missing closing parenthesis"},
    {S(R"({"dependencies": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'dependencies' must be an object"},
    {S(R"({"dependencies": {"a": 1}})"), kTypeMismatch,
     "property 'a' in $jsonSchema keyword 'dependencies' must be either an object or an array"},
    {S(R"({"dependencies": {"title": 1}})"), kTypeMismatch,
     "property 'title' in $jsonSchema keyword 'dependencies' must be either an object or an "
     "array"},
    {S(R"({"dependencies": {"a": []}})"), kFailedToParse,
     "property 'a' in $jsonSchema keyword 'dependencies' cannot be an empty array"},
    {S(R"({"dependencies": {"a": [1]}})"), kTypeMismatch,
     "array 'a' in $jsonSchema keyword 'dependencies' can only contain strings, but found element "
     "of type: int"},
    {S(R"({"dependencies": {"a": ["b", "b"]}})"), kFailedToParse,
     "array 'a' in $jsonSchema keyword 'dependencies' contains duplicate element: b"},
    {S(R"({"allOf": {}})"), kTypeMismatch, "$jsonSchema keyword 'allOf' must be an array"},
    {S(R"({"anyOf": []})"), kBadValue, "$jsonSchema keyword 'anyOf' must be a non-empty array"},
    {S(R"({"oneOf": [1]})"), kTypeMismatch,
     "$jsonSchema keyword 'oneOf' must be an array of objects, but found an element of type int"},
    {S(R"({"not": []})"), kTypeMismatch,
     "$jsonSchema keyword 'not' must be an object, but found an element of type array"},
    {S(R"({"enum": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'enum' must be an array, but found an element of type int"},
    {S(R"({"enum": []})"), kFailedToParse, "$jsonSchema keyword 'enum' cannot be an empty array"},
    {S(R"({"enum": [1, 1.0]})"), kFailedToParse,
     "$jsonSchema keyword 'enum' array cannot contain duplicate values."},
    {S(R"({"enum": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]})"), kFailedToParse,
     "$jsonSchema keyword 'enum' array cannot contain duplicate values."},
    {P(R"({"items": {"properties": {"b": {"bsonType": "foo"}}}})"), kBadValue,
     "Unknown type name alias: foo"},
};
INSTANTIATE_TEST_SUITE_P(Arguments, JsonSchemaErrors, ::testing::ValuesIn(kArgumentErrors));

// When several keywords are wrong, MongoDB reports the first in its own order: unknown keywords
// while reading, then title/description, type, the scalar, array, object and logical keywords.
const ErrorCase kErrorOrder[] = {
    {S(R"({"title": 1, "foo": 1})"), kFailedToParse, "Unknown $jsonSchema keyword: foo"},
    {S(R"({"type": "integer", "title": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'title' must be of type string"},
    {S(R"({"minimum": "x", "type": "integer"})"), kFailedToParse,
     "$jsonSchema type 'integer' is not currently supported."},
    {S(R"({"maxItems": "y", "minimum": "x"})"), kTypeMismatch,
     "$jsonSchema keyword 'minimum' must be a number"},
    {S(R"({"required": 1, "maxItems": "y"})"), kFailedToParse,
     "Expected a number in: maxItems: \"y\""},
    {S(R"({"enum": 1, "required": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'required' must be an array, but found an element of type int"},
    {S(R"({"patternProperties": {"(": {}}, "additionalProperties": 1})"), kTypeMismatch,
     "$jsonSchema keyword 'additionalProperties' must be an object or a boolean"},
};
INSTANTIATE_TEST_SUITE_P(ErrorOrder, JsonSchemaErrors, ::testing::ValuesIn(kErrorOrder));

#undef P
#undef S

// ---- The schema tree (what a validator's error report will walk) ----

TEST(JsonSchemaTree, ShouldKeepKeywordsAndSubschemas) {
  BsonDoc spec = BsonDoc::FromJson(
      R"({"bsonType": "object", "required": ["a"],
          "properties": {"a": {"bsonType": "int", "minimum": 1}, "b": {}},
          "anyOf": [{"required": ["a"]}, {"required": ["b"]}]})");
  Result<json_schema::SchemaPtr> schema = json_schema::ParseSchema(spec.view());
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  std::vector<std::string> names;
  const json_schema::Keyword* properties = nullptr;
  for (size_t i = 0; i < (*schema)->num_keywords(); ++i) {
    const json_schema::Keyword& keyword = (*schema)->keyword(i);
    names.emplace_back(keyword.name());
    if (keyword.name() == "properties") properties = &keyword;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"anyOf", "bsonType", "properties", "required"}));
  ASSERT_NE(properties, nullptr);
  bson_iter_t spec_element = properties->spec();
  EXPECT_EQ(IterKey(&spec_element), "properties");
  ASSERT_EQ(properties->num_subschemas(), 2u);
  EXPECT_EQ(properties->subschema(0)->num_keywords(), 2u);
  EXPECT_EQ(properties->subschema(1)->num_keywords(), 0u);

  BsonDoc good = BsonDoc::FromJson(R"({"a": 3})");
  BsonDoc bad = BsonDoc::FromJson(R"({"a": 0})");
  Status error;
  EXPECT_TRUE((*schema)->Validate(json_schema::SchemaValue::Document(good.view()), &error));
  EXPECT_FALSE((*schema)->Validate(json_schema::SchemaValue::Document(bad.view()), &error));
  EXPECT_TRUE(error.ok());
}

}  // namespace
}  // namespace cairn::query
