// $jsonSchema: the parsed schema tree and the filter node that matches documents against it,
// with MongoDB 7.0's subset of JSON Schema draft 4 (json_schema_parser.cpp) and its errors.
//
// A schema is kept as a tree of keyword rules rather than lowered into filter nodes as MongoDB
// does: each Schema holds the Keywords of one schema object, each Keyword remembers its name and
// spec element and exposes its subschemas, so a later pass can walk the tree to explain which
// rules a document broke (collection validators' errInfo.details). The keyword families live in
// scalar_keywords.cc, count_keywords.cc, array_keywords.cc, object_keywords.cc and
// logical_keywords.cc; parser.cc reads a schema object and calls them in MongoDB's order.
//
// Semantics are MongoDB's: a keyword that restricts one type (maximum, minLength, items,
// properties, ...) passes values of other types; type/bsonType restrict the type; a top-level
// schema applies to the document itself (an object). Trees view the filter's bytes, so they live
// with the Matcher that parsed them. Immutable after parsing; validation is thread-safe.
#pragma once

#include <bson/bson.h>

#include <memory>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/bson_element.h"
#include "common/status.h"
#include "query/matcher/match_expression.h"

namespace cairn::query::json_schema {

// The value a (sub)schema applies to: one BSON element, or a whole document (the matched
// document, or an $elemMatch element that is a document). Never "missing": a schema only ever
// applies to a value that exists. A stack object; valid while what it views lives.
class SchemaValue {
 public:
  static SchemaValue Element(const bson_iter_t* element) { return SchemaValue(element, {}); }
  static SchemaValue Document(BsonView document) { return SchemaValue(nullptr, document); }

  bson_type_t type() const { return element_ ? bson_iter_type(element_) : BSON_TYPE_DOCUMENT; }
  // The element, or nullptr for a whole document.
  const bson_iter_t* element() const { return element_; }
  // The fields of a document or the elements of an array.
  BsonView document() const { return element_ ? IterDocument(element_) : document_; }

 private:
  SchemaValue(const bson_iter_t* element, BsonView document)
      : element_(element), document_(document) {}
  const bson_iter_t* element_;
  BsonView document_;
};

class Schema;

// One keyword's rule (sometimes two keywords that act together, e.g. maximum with
// exclusiveMaximum, reported under the main one).
class Keyword {
 public:
  Keyword(std::string_view name, const bson_iter_t* spec) : name_(name), spec_(spec) {}
  virtual ~Keyword() = default;
  Keyword(const Keyword&) = delete;
  Keyword& operator=(const Keyword&) = delete;

  // The keyword as written ("bsonType", "properties", ...).
  std::string_view name() const { return name_; }
  // The keyword's element in the schema, positioned.
  bson_iter_t spec() const { return spec_.iter(); }

  // True when `value` satisfies the rule; false with *error set when a check failed (a pattern
  // PCRE2 stops with an error: 51156), which every caller stops at and never inverts (a `not`
  // or anyOf is not satisfied by it). `error` is OK on entry.
  virtual bool Validate(const SchemaValue& value, Status* error) const = 0;

  // The nested schemas the rule applies (properties' values, items, allOf members, ...).
  virtual size_t num_subschemas() const { return 0; }
  virtual const Schema* subschema(size_t i) const { return nullptr; }

 private:
  std::string_view name_;
  BsonElement spec_;
};

using KeywordPtr = std::unique_ptr<Keyword>;

// One schema object: its keywords' rules. A value satisfies the schema when it satisfies every
// rule (an empty schema accepts everything).
class Schema {
 public:
  explicit Schema(BsonView spec) : spec_(spec) {}

  // Keyword::Validate's contract.
  bool Validate(const SchemaValue& value, Status* error) const {
    for (const auto& keyword : keywords_) {
      if (!keyword->Validate(value, error)) return false;
    }
    return true;
  }

  // The schema object as written.
  BsonView spec() const { return spec_; }
  size_t num_keywords() const { return keywords_.size(); }
  const Keyword& keyword(size_t i) const { return *keywords_[i]; }

  void Add(KeywordPtr keyword) { keywords_.push_back(std::move(keyword)); }

 private:
  BsonView spec_;
  std::vector<KeywordPtr> keywords_;
};

using SchemaPtr = std::unique_ptr<Schema>;

// Parses a $jsonSchema object with MongoDB's errors (FailedToParse for unknown, unsupported and
// duplicate keywords, TypeMismatch for ill-typed arguments, ...). The tree views `schema`.
Result<SchemaPtr> ParseSchema(BsonView schema);

}  // namespace cairn::query::json_schema

namespace cairn::query {

// {$jsonSchema: {...}}: the document satisfies the schema. Inside $elemMatch it applies to each
// element that is a document.
class JsonSchemaMatchExpression final : public MatchExpression {
 public:
  explicit JsonSchemaMatchExpression(json_schema::SchemaPtr schema)
      : MatchExpression(MatchKind::kJsonSchema), schema_(std::move(schema)) {}
  const json_schema::Schema& schema() const { return *schema_; }

  // A pattern or patternProperties whose search PCRE2 ends with an error fails the match
  // (51156), as the filter's $regex does.
  bool Matches(BsonView doc, Status* error) const override {
    return schema_->Validate(json_schema::SchemaValue::Document(doc), error);
  }
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override {
    return value != nullptr && BSON_ITER_HOLDS_DOCUMENT(value) &&
           (schema_->Validate(json_schema::SchemaValue::Document(IterDocument(value)), error) ||
            !error->ok());
  }

 private:
  json_schema::SchemaPtr schema_;
};

}  // namespace cairn::query
