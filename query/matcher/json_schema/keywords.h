// Private to query/matcher/json_schema: what parser.cc shares with the keyword families. The
// parser collects a schema object's keywords into a KeywordMap, then each family turns its
// keywords into rules, in MongoDB's order (scalar, array, object, logical), so that a schema
// with several bad keywords reports the error MongoDB reports.
#pragma once

#include <bitset>
#include <cstddef>
#include <string>
#include <string_view>

#include "common/bson_element.h"
#include "query/matcher/json_schema/json_schema.h"

namespace cairn::query::json_schema {

// Every keyword MongoDB knows, sorted by name.
enum class KeywordId {
  kAdditionalItems,
  kAdditionalProperties,
  kAllOf,
  kAnyOf,
  kBsonType,
  kDependencies,
  kDescription,
  kEncrypt,
  kEncryptMetadata,
  kEnum,
  kExclusiveMaximum,
  kExclusiveMinimum,
  kItems,
  kMaxItems,
  kMaxLength,
  kMaxProperties,
  kMaximum,
  kMinItems,
  kMinLength,
  kMinProperties,
  kMinimum,
  kMultipleOf,
  kNot,
  kOneOf,
  kPattern,
  kPatternProperties,
  kProperties,
  kRequired,
  kTitle,
  kType,
  kUniqueItems,
  kCount,
};

// The keywords present in one schema object.
class KeywordMap {
 public:
  bool has(KeywordId id) const { return present_[Index(id)]; }
  // Positions *element on the keyword; false when the schema does not have it.
  bool Get(KeywordId id, bson_iter_t* element) const {
    if (!has(id)) return false;
    *element = elements_[Index(id)].iter();
    return true;
  }
  void Set(KeywordId id, const bson_iter_t* element) {
    elements_[Index(id)] = BsonElement(element);
    present_.set(Index(id));
  }

 private:
  static size_t Index(KeywordId id) { return static_cast<size_t>(id); }
  BsonElement elements_[static_cast<size_t>(KeywordId::kCount)];
  std::bitset<static_cast<size_t>(KeywordId::kCount)> present_;
};

// Where a schema stands. At the top level (the $jsonSchema object, and allOf/anyOf/oneOf/not/
// dependencies schemas beside it) the value is always the document, so MongoDB skips keywords
// that only restrict other types; it does not even compile a top-level pattern.
struct SchemaContext {
  bool top_level;
};

// Parses a nested schema object (properties' values, items, allOf members, ...).
Result<SchemaPtr> ParseSubschema(BsonView spec, SchemaContext context);

// "$jsonSchema keyword '<name>' <what>" with `code`: most of MongoDB's argument errors.
Status KeywordError(ErrorCode code, std::string_view name, std::string_view what);
// The type name MongoDB prints for an element's type ("string", "int", ...).
std::string TypeNameOf(const bson_iter_t* element);
// Finds `name` in `object`; a dotted name descends into embedded documents and arrays, as
// MongoDB's dotted paths do.
bool FindProperty(BsonView object, const std::string& name, bson_iter_t* found);

// ---- The families: each adds its rules to `schema` (in MongoDB's order inside the family). ----
// Rules test the value's own type, so unlike MongoDB's lowering they need not know the
// schema's type/bsonType to stay out of the way of other types.

// type / bsonType (the rule the other families are told about).
Result<KeywordPtr> ParseTypeKeyword(const KeywordMap& map);
// pattern, maxLength, minLength, multipleOf, maximum (+ exclusiveMaximum), minimum
// (+ exclusiveMinimum).
Status ParseScalarKeywords(const KeywordMap& map, SchemaContext context, Schema* schema);
// minItems, maxItems, uniqueItems, items, additionalItems.
Status ParseArrayKeywords(const KeywordMap& map, SchemaContext context, Schema* schema);
// required, properties, patternProperties + additionalProperties, minProperties,
// maxProperties, dependencies.
Status ParseObjectKeywords(const KeywordMap& map, SchemaContext context, Schema* schema);
// allOf, anyOf, oneOf, not, enum.
Status ParseLogicalKeywords(const KeywordMap& map, SchemaContext context, Schema* schema);

// minLength/maxLength (`counted` UTF8), minItems/maxItems (ARRAY), minProperties/maxProperties
// (DOCUMENT): count_keywords.cc.
Status ParseCountKeyword(const KeywordMap& map, KeywordId id, bson_type_t counted, bool is_max,
                         SchemaContext context, Schema* schema);

// Equality with objects compared regardless of field order (MongoDB's
// UnorderedFieldsBSONElementComparator), numbers by value: enum and uniqueItems.
bool UnorderedEqual(const bson_iter_t* a, const bson_iter_t* b);
bool UnorderedEqualDocuments(BsonView a, BsonView b);

}  // namespace cairn::query::json_schema
