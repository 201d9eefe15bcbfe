// $jsonSchema parsing (json_schema.h): the keyword table, unknown / unsupported / duplicate
// keywords, title and description, type versus bsonType, and the order in which the families
// parse (MongoDB's _parse in json_schema_parser.cpp); plus the $jsonSchema filter operator and
// the helpers the families share.
#include <string>

#include "query/matcher/json_schema/keywords.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query::json_schema {

namespace {

struct KeywordName {
  std::string_view name;
  KeywordId id;
};

constexpr KeywordName kKeywords[] = {
    {"additionalItems", KeywordId::kAdditionalItems},
    {"additionalProperties", KeywordId::kAdditionalProperties},
    {"allOf", KeywordId::kAllOf},
    {"anyOf", KeywordId::kAnyOf},
    {"bsonType", KeywordId::kBsonType},
    {"dependencies", KeywordId::kDependencies},
    {"description", KeywordId::kDescription},
    {"encrypt", KeywordId::kEncrypt},
    {"encryptMetadata", KeywordId::kEncryptMetadata},
    {"enum", KeywordId::kEnum},
    {"exclusiveMaximum", KeywordId::kExclusiveMaximum},
    {"exclusiveMinimum", KeywordId::kExclusiveMinimum},
    {"items", KeywordId::kItems},
    {"maxItems", KeywordId::kMaxItems},
    {"maxLength", KeywordId::kMaxLength},
    {"maxProperties", KeywordId::kMaxProperties},
    {"maximum", KeywordId::kMaximum},
    {"minItems", KeywordId::kMinItems},
    {"minLength", KeywordId::kMinLength},
    {"minProperties", KeywordId::kMinProperties},
    {"minimum", KeywordId::kMinimum},
    {"multipleOf", KeywordId::kMultipleOf},
    {"not", KeywordId::kNot},
    {"oneOf", KeywordId::kOneOf},
    {"pattern", KeywordId::kPattern},
    {"patternProperties", KeywordId::kPatternProperties},
    {"properties", KeywordId::kProperties},
    {"required", KeywordId::kRequired},
    {"title", KeywordId::kTitle},
    {"type", KeywordId::kType},
    {"uniqueItems", KeywordId::kUniqueItems},
};

// Draft 4 keywords MongoDB names as "not currently supported" rather than unknown.
constexpr std::string_view kUnsupportedKeywords[] = {"$ref",        "$schema", "default",
                                                     "definitions", "format",  "id"};

const KeywordName* FindKeyword(std::string_view name) {
  for (const auto& keyword : kKeywords) {
    if (keyword.name == name) return &keyword;
  }
  return nullptr;
}

// title and description are annotations: ignored, but they must be strings.
Status CheckAnnotations(const KeywordMap& map) {
  bson_iter_t it;
  if (map.Get(KeywordId::kDescription, &it) && !BSON_ITER_HOLDS_UTF8(&it)) {
    return KeywordError(ErrorCode::kTypeMismatch, "description", "must be of type string");
  }
  if (map.Get(KeywordId::kTitle, &it) && !BSON_ITER_HOLDS_UTF8(&it)) {
    return KeywordError(ErrorCode::kTypeMismatch, "title", "must be of type string");
  }
  return Status::OK();
}

// Client-side field level encryption is not part of Cairn. MongoDB answers this very error
// where its encryption keywords are not allowed, which is the truthful answer here too.
Status CheckEncryption(const KeywordMap& map) {
  if (map.has(KeywordId::kEncrypt) || map.has(KeywordId::kEncryptMetadata)) {
    return Status(ErrorCode::kQueryFeatureNotAllowed,
                  "Encryption-related validator keywords are not allowed in this context");
  }
  return Status::OK();
}

Result<SchemaPtr> Parse(BsonView spec, SchemaContext context) {
  KeywordMap map;
  bson_iter_t it;
  if (!spec.Init(&it)) return Status(ErrorCode::kBadValue, "invalid $jsonSchema document");
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    const KeywordName* keyword = FindKeyword(name);
    if (keyword == nullptr) {
      for (std::string_view unsupported : kUnsupportedKeywords) {
        if (name == unsupported) {
          return KeywordError(ErrorCode::kFailedToParse, name, "is not currently supported");
        }
      }
      return Status(ErrorCode::kFailedToParse, "Unknown $jsonSchema keyword: " + std::string(name));
    }
    if (map.has(keyword->id)) {
      return Status(ErrorCode::kFailedToParse,
                    "Duplicate $jsonSchema keyword: " + std::string(name));
    }
    map.Set(keyword->id, &it);
  }

  CAIRN_RETURN_IF_ERROR(CheckAnnotations(map));
  if (map.has(KeywordId::kType) && map.has(KeywordId::kBsonType)) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
  }
  auto schema = std::make_unique<Schema>(spec);
  CAIRN_ASSIGN_OR_RETURN(KeywordPtr type, ParseTypeKeyword(map));
  CAIRN_RETURN_IF_ERROR(ParseScalarKeywords(map, context, schema.get()));
  CAIRN_RETURN_IF_ERROR(ParseArrayKeywords(map, context, schema.get()));
  CAIRN_RETURN_IF_ERROR(CheckEncryption(map));
  CAIRN_RETURN_IF_ERROR(ParseObjectKeywords(map, context, schema.get()));
  CAIRN_RETURN_IF_ERROR(ParseLogicalKeywords(map, context, schema.get()));
  if (type) schema->Add(std::move(type));
  return schema;
}

}  // namespace

Result<SchemaPtr> ParseSubschema(BsonView spec, SchemaContext context) {
  return Parse(spec, context);
}

Result<SchemaPtr> ParseSchema(BsonView schema) { return Parse(schema, SchemaContext{true}); }

Status KeywordError(ErrorCode code, std::string_view name, std::string_view what) {
  return Status(code, "$jsonSchema keyword '" + std::string(name) + "' " + std::string(what));
}

std::string TypeNameOf(const bson_iter_t* element) {
  return std::string(BsonTypeName(bson_iter_type(element)));
}

bool FindProperty(BsonView object, const std::string& name, bson_iter_t* found) {
  bson_iter_t it;
  if (!object.Init(&it)) return false;
  if (name.find('.') == std::string::npos) {
    if (!bson_iter_find_w_len(&it, name.data(), static_cast<int>(name.size()))) return false;
    *found = it;
    return true;
  }
  return bson_iter_find_descendant(&it, name.c_str(), found);
}

}  // namespace cairn::query::json_schema

namespace cairn::query::internal {

Result<MatchExpressionPtr> ParseJsonSchema(const bson_iter_t* op, FilterParseState) {
  if (!BSON_ITER_HOLDS_DOCUMENT(op)) {
    return Status(ErrorCode::kTypeMismatch, "$jsonSchema must be an object");
  }
  CAIRN_ASSIGN_OR_RETURN(json_schema::SchemaPtr schema, json_schema::ParseSchema(IterDocument(op)));
  return MatchExpressionPtr(std::make_unique<JsonSchemaMatchExpression>(std::move(schema)));
}

}  // namespace cairn::query::internal
