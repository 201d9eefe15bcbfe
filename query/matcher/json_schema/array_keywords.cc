// $jsonSchema's array keywords: minItems / maxItems (count_keywords.cc), uniqueItems (objects
// compared regardless of field order), items (one schema for every element, or one per position)
// and additionalItems (the elements past a positional items list). They only constrain arrays;
// other values pass.
#include <algorithm>
#include <string>
#include <vector>

#include "common/bson_compare.h"
#include "query/matcher/json_schema/keywords.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query::json_schema {

namespace {

class UniqueItemsKeyword final : public Keyword {
 public:
  explicit UniqueItemsKeyword(const bson_iter_t* spec) : Keyword("uniqueItems", spec) {}
  bool Validate(const SchemaValue& value, Status*) const override {
    if (value.type() != BSON_TYPE_ARRAY) return true;
    std::vector<BsonElement> items;
    bool has_containers = false;
    bson_iter_t it;
    if (!value.document().Init(&it)) return true;
    while (bson_iter_next(&it)) {
      has_containers |= BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it);
      items.emplace_back(&it);
    }
    if (!has_containers) {
      // Without documents, unordered-field equality is plain equality: sort and compare
      // neighbours rather than every pair.
      std::sort(items.begin(), items.end(), [](const BsonElement& a, const BsonElement& b) {
        bson_iter_t x = a.iter(), y = b.iter();
        return CompareValues(&x, &y) < 0;
      });
      for (size_t i = 1; i < items.size(); ++i) {
        bson_iter_t x = items[i - 1].iter(), y = items[i].iter();
        if (CompareValues(&x, &y) == 0) return false;
      }
      return true;
    }
    for (size_t i = 0; i < items.size(); ++i) {
      bson_iter_t x = items[i].iter();
      for (size_t j = i + 1; j < items.size(); ++j) {
        bson_iter_t y = items[j].iter();
        if (UnorderedEqual(&x, &y)) return false;
      }
    }
    return true;
  }
};

// items as one schema: every element from `start` on satisfies it (also additionalItems).
// `schema` null with `allow` false: there may be no element from `start` on.
class AllItemsKeyword final : public Keyword {
 public:
  AllItemsKeyword(const bson_iter_t* spec, size_t start, SchemaPtr schema, bool allow)
      : Keyword(IterKey(spec), spec), start_(start), schema_(std::move(schema)), allow_(allow) {}
  bool Validate(const SchemaValue& value, Status* error) const override {
    if (value.type() != BSON_TYPE_ARRAY) return true;
    bson_iter_t it;
    if (!value.document().Init(&it)) return true;
    for (size_t i = 0; bson_iter_next(&it); ++i) {
      if (i < start_) continue;
      if (schema_ ? !schema_->Validate(SchemaValue::Element(&it), error) : !allow_) {
        return false;
      }
    }
    return true;
  }
  size_t num_subschemas() const override { return schema_ ? 1 : 0; }
  const Schema* subschema(size_t) const override { return schema_.get(); }

 private:
  size_t start_;
  SchemaPtr schema_;
  bool allow_;
};

// items as a list: element i, when there is one, satisfies schema i.
class ItemListKeyword final : public Keyword {
 public:
  ItemListKeyword(const bson_iter_t* spec, std::vector<SchemaPtr> schemas)
      : Keyword("items", spec), schemas_(std::move(schemas)) {}
  bool Validate(const SchemaValue& value, Status* error) const override {
    if (value.type() != BSON_TYPE_ARRAY) return true;
    bson_iter_t it;
    if (!value.document().Init(&it)) return true;
    for (size_t i = 0; i < schemas_.size() && bson_iter_next(&it); ++i) {
      if (!schemas_[i]->Validate(SchemaValue::Element(&it), error)) return false;
    }
    return true;
  }
  size_t num_subschemas() const override { return schemas_.size(); }
  const Schema* subschema(size_t i) const override { return schemas_[i].get(); }

 private:
  std::vector<SchemaPtr> schemas_;
};

}  // namespace

Status ParseArrayKeywords(const KeywordMap& map, SchemaContext context, Schema* schema) {
  const SchemaContext nested{false};
  CAIRN_RETURN_IF_ERROR(
      ParseCountKeyword(map, KeywordId::kMinItems, BSON_TYPE_ARRAY, false, context, schema));
  CAIRN_RETURN_IF_ERROR(
      ParseCountKeyword(map, KeywordId::kMaxItems, BSON_TYPE_ARRAY, true, context, schema));

  bson_iter_t spec;
  if (map.Get(KeywordId::kUniqueItems, &spec)) {
    if (!BSON_ITER_HOLDS_BOOL(&spec)) {
      return KeywordError(ErrorCode::kTypeMismatch, "uniqueItems", "must be a boolean");
    }
    if (!context.top_level && bson_iter_bool(&spec)) {
      schema->Add(std::make_unique<UniqueItemsKeyword>(&spec));
    }
  }

  // additionalItems applies only past a positional items list.
  bool positional_items = false;
  size_t items_count = 0;
  if (map.Get(KeywordId::kItems, &spec)) {
    if (BSON_ITER_HOLDS_ARRAY(&spec)) {
      std::vector<SchemaPtr> schemas;
      bson_iter_t it;
      bson_iter_recurse(&spec, &it);
      while (bson_iter_next(&it)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
          return KeywordError(ErrorCode::kTypeMismatch, "items",
                              "requires that each element of the array is an object, but found "
                              "a " +
                                  TypeNameOf(&it));
        }
        CAIRN_ASSIGN_OR_RETURN(SchemaPtr item, ParseSubschema(IterDocument(&it), nested));
        schemas.push_back(std::move(item));
      }
      positional_items = true;
      items_count = schemas.size();
      if (!context.top_level) {
        schema->Add(std::make_unique<ItemListKeyword>(&spec, std::move(schemas)));
      }
    } else if (BSON_ITER_HOLDS_DOCUMENT(&spec)) {
      CAIRN_ASSIGN_OR_RETURN(SchemaPtr items, ParseSubschema(IterDocument(&spec), nested));
      if (!context.top_level) {
        schema->Add(std::make_unique<AllItemsKeyword>(&spec, 0, std::move(items), true));
      }
    } else {
      return KeywordError(ErrorCode::kTypeMismatch, "items",
                          "must be an array or an object, not " + TypeNameOf(&spec));
    }
  }

  if (map.Get(KeywordId::kAdditionalItems, &spec)) {
    SchemaPtr additional;
    bool allow = true;
    if (BSON_ITER_HOLDS_BOOL(&spec)) {
      allow = bson_iter_bool(&spec);
    } else if (BSON_ITER_HOLDS_DOCUMENT(&spec)) {
      CAIRN_ASSIGN_OR_RETURN(additional, ParseSubschema(IterDocument(&spec), nested));
    } else {
      return KeywordError(ErrorCode::kTypeMismatch, "additionalItems",
                          "must be either an object or a boolean, but got a " + TypeNameOf(&spec));
    }
    if (positional_items && !context.top_level && (additional || !allow)) {
      schema->Add(
          std::make_unique<AllItemsKeyword>(&spec, items_count, std::move(additional), allow));
    }
  }
  return Status::OK();
}

}  // namespace cairn::query::json_schema
