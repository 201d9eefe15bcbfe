// $jsonSchema's logical keywords: allOf, anyOf, oneOf (exactly one), not, and enum (equality
// with objects compared regardless of field order, MongoDB's UnorderedFieldsBSONElementComparator,
// which uniqueItems shares). Unlike the other families they constrain values of every type.
#include <string>
#include <vector>

#include "common/bson_compare.h"
#include "query/matcher/json_schema/keywords.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query::json_schema {

bool UnorderedEqualDocuments(BsonView a, BsonView b) {
  if (a.CountKeys() != b.CountKeys()) return false;
  bson_iter_t x, y;
  if (!a.Init(&x)) return false;
  while (bson_iter_next(&x)) {
    std::string_view key = IterKey(&x);
    if (!b.Init(&y) || !bson_iter_find_w_len(&y, key.data(), static_cast<int>(key.size()))) {
      return false;
    }
    if (!UnorderedEqual(&x, &y)) return false;
  }
  return true;
}

bool UnorderedEqual(const bson_iter_t* a, const bson_iter_t* b) {
  const bson_type_t ta = bson_iter_type(a), tb = bson_iter_type(b);
  if (ta == BSON_TYPE_DOCUMENT && tb == BSON_TYPE_DOCUMENT) {
    return UnorderedEqualDocuments(IterDocument(a), IterDocument(b));
  }
  if (ta == BSON_TYPE_ARRAY && tb == BSON_TYPE_ARRAY) {
    // Arrays keep their order; only the documents inside them are compared unordered.
    bson_iter_t x, y;
    if (!IterDocument(a).Init(&x) || !IterDocument(b).Init(&y)) return false;
    while (true) {
      bool more_x = bson_iter_next(&x), more_y = bson_iter_next(&y);
      if (more_x != more_y) return false;
      if (!more_x) return true;
      if (!UnorderedEqual(&x, &y)) return false;
    }
  }
  return CompareValues(a, b) == 0;
}

namespace {

// ---- allOf / anyOf / oneOf ----

class CombinationKeyword final : public Keyword {
 public:
  enum class Mode { kAll, kAny, kOne };
  CombinationKeyword(const bson_iter_t* spec, Mode mode, std::vector<SchemaPtr> schemas)
      : Keyword(IterKey(spec), spec), mode_(mode), schemas_(std::move(schemas)) {}
  bool Validate(const SchemaValue& value, Status* error) const override {
    size_t valid = 0;
    for (const auto& schema : schemas_) {
      if (schema->Validate(value, error)) {
        ++valid;
        if (mode_ == Mode::kAny) return true;
        if (mode_ == Mode::kOne && valid > 1) return false;
      } else if (mode_ == Mode::kAll || !error->ok()) {
        return false;  // a failed check fails anyOf and oneOf too
      }
    }
    return mode_ == Mode::kAll || valid == 1;
  }
  size_t num_subschemas() const override { return schemas_.size(); }
  const Schema* subschema(size_t i) const override { return schemas_[i].get(); }

 private:
  Mode mode_;
  std::vector<SchemaPtr> schemas_;
};

// ---- not ----

class NotKeyword final : public Keyword {
 public:
  NotKeyword(const bson_iter_t* spec, SchemaPtr schema)
      : Keyword("not", spec), schema_(std::move(schema)) {}
  bool Validate(const SchemaValue& value, Status* error) const override {
    return !schema_->Validate(value, error) && error->ok();
  }
  size_t num_subschemas() const override { return 1; }
  const Schema* subschema(size_t) const override { return schema_.get(); }

 private:
  SchemaPtr schema_;
};

// ---- enum ----

class EnumKeyword final : public Keyword {
 public:
  EnumKeyword(const bson_iter_t* spec, std::vector<BsonElement> members)
      : Keyword("enum", spec), members_(std::move(members)) {}
  bool Validate(const SchemaValue& value, Status*) const override {
    for (const BsonElement& member : members_) {
      bson_iter_t m = member.iter();
      if (value.element() != nullptr
              ? UnorderedEqual(value.element(), &m)
              : BSON_ITER_HOLDS_DOCUMENT(&m) &&
                    UnorderedEqualDocuments(value.document(), IterDocument(&m))) {
        return true;
      }
    }
    return false;
  }

 private:
  std::vector<BsonElement> members_;
};

Status ParseCombination(const KeywordMap& map, KeywordId id, CombinationKeyword::Mode mode,
                        SchemaContext context, Schema* schema) {
  bson_iter_t spec;
  if (!map.Get(id, &spec)) return Status::OK();
  std::string_view name = IterKey(&spec);
  if (!BSON_ITER_HOLDS_ARRAY(&spec)) {
    return KeywordError(ErrorCode::kTypeMismatch, name, "must be an array");
  }
  if (IterDocument(&spec).empty()) {
    return KeywordError(ErrorCode::kBadValue, name, "must be a non-empty array");
  }
  std::vector<SchemaPtr> schemas;
  bson_iter_t it;
  bson_iter_recurse(&spec, &it);
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return KeywordError(
          ErrorCode::kTypeMismatch, name,
          "must be an array of objects, but found an element of type " + TypeNameOf(&it));
    }
    // Each member applies to the same value, so it keeps this schema's level.
    CAIRN_ASSIGN_OR_RETURN(SchemaPtr member, ParseSubschema(IterDocument(&it), context));
    schemas.push_back(std::move(member));
  }
  schema->Add(std::make_unique<CombinationKeyword>(&spec, mode, std::move(schemas)));
  return Status::OK();
}

Status ParseEnum(const bson_iter_t* spec, Schema* schema) {
  if (!BSON_ITER_HOLDS_ARRAY(spec)) {
    return KeywordError(ErrorCode::kTypeMismatch, "enum",
                        "must be an array, but found an element of type " + TypeNameOf(spec));
  }
  std::vector<BsonElement> members;
  bson_iter_t it;
  bson_iter_recurse(spec, &it);
  while (bson_iter_next(&it)) {
    for (const BsonElement& member : members) {
      bson_iter_t m = member.iter();
      if (UnorderedEqual(&m, &it)) {
        return KeywordError(ErrorCode::kFailedToParse, "enum",
                            "array cannot contain duplicate values.");
      }
    }
    members.emplace_back(&it);
  }
  if (members.empty()) {
    return KeywordError(ErrorCode::kFailedToParse, "enum", "cannot be an empty array");
  }
  schema->Add(std::make_unique<EnumKeyword>(spec, std::move(members)));
  return Status::OK();
}

}  // namespace

Status ParseLogicalKeywords(const KeywordMap& map, SchemaContext context, Schema* schema) {
  using Mode = CombinationKeyword::Mode;
  CAIRN_RETURN_IF_ERROR(ParseCombination(map, KeywordId::kAllOf, Mode::kAll, context, schema));
  CAIRN_RETURN_IF_ERROR(ParseCombination(map, KeywordId::kAnyOf, Mode::kAny, context, schema));
  CAIRN_RETURN_IF_ERROR(ParseCombination(map, KeywordId::kOneOf, Mode::kOne, context, schema));
  bson_iter_t spec;
  if (map.Get(KeywordId::kNot, &spec)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&spec)) {
      return KeywordError(ErrorCode::kTypeMismatch, "not",
                          "must be an object, but found an element of type " + TypeNameOf(&spec));
    }
    CAIRN_ASSIGN_OR_RETURN(SchemaPtr negated, ParseSubschema(IterDocument(&spec), context));
    schema->Add(std::make_unique<NotKeyword>(&spec, std::move(negated)));
  }
  if (map.Get(KeywordId::kEnum, &spec)) CAIRN_RETURN_IF_ERROR(ParseEnum(&spec, schema));
  return Status::OK();
}

}  // namespace cairn::query::json_schema
