// $jsonSchema's object keywords: required, properties, patternProperties and
// additionalProperties (which fields are allowed, and what their values must satisfy),
// minProperties / maxProperties (count_keywords.cc) and dependencies (property and schema forms).
// They only constrain objects (the document itself at the top level); other values pass.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "query/matcher/json_schema/keywords.h"
#include "query/matcher/parse_internal.h"
#include "query/matcher/regex.h"

namespace cairn::query::json_schema {

namespace {

bool HasAll(BsonView object, const std::vector<std::string>& names) {
  bson_iter_t found;
  for (const std::string& name : names) {
    if (!FindProperty(object, name, &found)) return false;
  }
  return true;
}

// ---- required ----

class RequiredKeyword final : public Keyword {
 public:
  RequiredKeyword(const bson_iter_t* spec, std::vector<std::string> names)
      : Keyword("required", spec), names_(std::move(names)) {}
  bool Validate(const SchemaValue& value, Status*) const override {
    return value.type() != BSON_TYPE_DOCUMENT || HasAll(value.document(), names_);
  }

 private:
  std::vector<std::string> names_;  // sorted, as MongoDB checks them
};

// ---- properties ----

class PropertiesKeyword final : public Keyword {
 public:
  using Property = std::pair<std::string, SchemaPtr>;
  PropertiesKeyword(const bson_iter_t* spec, std::vector<Property> properties)
      : Keyword("properties", spec), properties_(std::move(properties)) {}
  // Each property present satisfies its schema (absent ones are required's business).
  bool Validate(const SchemaValue& value, Status* error) const override {
    if (value.type() != BSON_TYPE_DOCUMENT) return true;
    BsonView object = value.document();
    bson_iter_t found;
    for (const auto& [name, schema] : properties_) {
      if (FindProperty(object, name, &found) &&
          !schema->Validate(SchemaValue::Element(&found), error)) {
        return false;
      }
    }
    return true;
  }
  size_t num_subschemas() const override { return properties_.size(); }
  const Schema* subschema(size_t i) const override { return properties_[i].second.get(); }
  const std::string& property_name(size_t i) const { return properties_[i].first; }

 private:
  std::vector<Property> properties_;
};

// ---- patternProperties + additionalProperties ----

// Every field whose name a pattern matches satisfies that pattern's schema; a field that no
// pattern matches and that properties does not name satisfies additionalProperties (a schema,
// or true/false). MongoDB's InternalSchemaAllowedPropertiesMatchExpression.
class AllowedPropertiesKeyword final : public Keyword {
 public:
  struct PatternSchema {
    Regex regex;
    SchemaPtr schema;
  };
  AllowedPropertiesKeyword(const bson_iter_t* spec, std::vector<std::string> named,
                           std::vector<PatternSchema> patterns, SchemaPtr additional,
                           bool allow_additional)
      : Keyword(IterKey(spec), spec),
        named_(std::move(named)),
        patterns_(std::move(patterns)),
        additional_(std::move(additional)),
        allow_additional_(allow_additional) {}

  bool Validate(const SchemaValue& value, Status* error) const override {
    if (value.type() != BSON_TYPE_DOCUMENT) return true;
    bson_iter_t it;
    if (!value.document().Init(&it)) return true;
    while (bson_iter_next(&it)) {
      std::string_view name = IterKey(&it);
      bool matched = false;
      for (const auto& pattern : patterns_) {
        if (!internal::FilterRegexSearch(pattern.regex, name, error)) continue;
        if (!error->ok()) return false;
        matched = true;
        if (!pattern.schema->Validate(SchemaValue::Element(&it), error)) return false;
      }
      if (matched || std::binary_search(named_.begin(), named_.end(), name)) continue;
      if (additional_ ? !additional_->Validate(SchemaValue::Element(&it), error)
                      : !allow_additional_) {
        return false;
      }
    }
    return true;
  }
  size_t num_subschemas() const override { return patterns_.size() + (additional_ ? 1 : 0); }
  const Schema* subschema(size_t i) const override {
    return i < patterns_.size() ? patterns_[i].schema.get() : additional_.get();
  }

 private:
  std::vector<std::string> named_;  // sorted: the names properties lists
  std::vector<PatternSchema> patterns_;
  SchemaPtr additional_;
  bool allow_additional_;
};

// ---- dependencies ----

class DependenciesKeyword final : public Keyword {
 public:
  // When `property` is present, either `schema` applies to the same object or every name in
  // `required` is present too.
  struct Dependency {
    std::string property;
    SchemaPtr schema;
    std::vector<std::string> required;
  };
  DependenciesKeyword(const bson_iter_t* spec, std::vector<Dependency> dependencies)
      : Keyword("dependencies", spec), dependencies_(std::move(dependencies)) {}
  bool Validate(const SchemaValue& value, Status* error) const override {
    if (value.type() != BSON_TYPE_DOCUMENT) return true;
    BsonView object = value.document();
    bson_iter_t found;
    for (const auto& dependency : dependencies_) {
      if (!FindProperty(object, dependency.property, &found)) continue;
      bool ok = dependency.schema ? dependency.schema->Validate(value, error)
                                  : HasAll(object, dependency.required);
      if (!ok) return false;
    }
    return true;
  }
  size_t num_subschemas() const override { return schemas_count(); }
  const Schema* subschema(size_t i) const override {
    for (const auto& dependency : dependencies_) {
      if (dependency.schema && i-- == 0) return dependency.schema.get();
    }
    return nullptr;
  }

 private:
  size_t schemas_count() const {
    return std::count_if(dependencies_.begin(), dependencies_.end(),
                         [](const Dependency& d) { return d.schema != nullptr; });
  }
  std::vector<Dependency> dependencies_;
};

// ---- parsing ----

Result<std::vector<std::string>> ParseRequired(const bson_iter_t* spec) {
  if (!BSON_ITER_HOLDS_ARRAY(spec)) {
    return KeywordError(ErrorCode::kTypeMismatch, "required",
                        "must be an array, but found an element of type " + TypeNameOf(spec));
  }
  std::set<std::string> names;
  bson_iter_t it;
  bson_iter_recurse(spec, &it);
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return KeywordError(
          ErrorCode::kTypeMismatch, "required",
          "must be an array of strings, but found an element of type: " + TypeNameOf(&it));
    }
    if (!names.insert(std::string(IterUtf8(&it))).second) {
      return KeywordError(ErrorCode::kFailedToParse, "required",
                          "array cannot contain duplicate values");
    }
  }
  if (names.empty()) {
    return KeywordError(ErrorCode::kFailedToParse, "required", "cannot be an empty array");
  }
  return std::vector<std::string>(names.begin(), names.end());
}

Status ParseProperties(const bson_iter_t* spec, Schema* schema) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return KeywordError(ErrorCode::kTypeMismatch, "properties", "must be an object");
  }
  std::vector<PropertiesKeyword::Property> properties;
  bson_iter_t it;
  bson_iter_recurse(spec, &it);
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kTypeMismatch, "Nested schema for $jsonSchema property '" +
                                                  std::string(IterKey(&it)) +
                                                  "' must be an object");
    }
    CAIRN_ASSIGN_OR_RETURN(SchemaPtr property,
                           ParseSubschema(IterDocument(&it), SchemaContext{false}));
    properties.emplace_back(std::string(IterKey(&it)), std::move(property));
  }
  schema->Add(std::make_unique<PropertiesKeyword>(spec, std::move(properties)));
  return Status::OK();
}

// patternProperties and additionalProperties, in MongoDB's order: the pattern schemas, then
// additionalProperties, then the patterns themselves (compiled without flags or UTF-8 mode).
Status ParseAllowedProperties(const KeywordMap& map, Schema* schema) {
  bson_iter_t patterns_spec, additional_spec, properties_spec;
  const bool has_patterns = map.Get(KeywordId::kPatternProperties, &patterns_spec);
  const bool has_additional = map.Get(KeywordId::kAdditionalProperties, &additional_spec);
  if (!has_patterns && !has_additional) return Status::OK();
  const SchemaContext nested{false};

  std::vector<BsonElement> pattern_names;
  std::vector<SchemaPtr> pattern_schemas;
  if (has_patterns) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&patterns_spec)) {
      return KeywordError(ErrorCode::kTypeMismatch, "patternProperties", "must be an object");
    }
    bson_iter_t it;
    bson_iter_recurse(&patterns_spec, &it);
    while (bson_iter_next(&it)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return KeywordError(
            ErrorCode::kTypeMismatch, "patternProperties",
            "has property '" + std::string(IterKey(&it)) + "' which is not an object");
      }
      CAIRN_ASSIGN_OR_RETURN(SchemaPtr pattern_schema, ParseSubschema(IterDocument(&it), nested));
      pattern_names.emplace_back(&it);
      pattern_schemas.push_back(std::move(pattern_schema));
    }
  }

  SchemaPtr additional;
  bool allow_additional = true;
  if (has_additional) {
    if (BSON_ITER_HOLDS_BOOL(&additional_spec)) {
      allow_additional = bson_iter_bool(&additional_spec);
    } else if (BSON_ITER_HOLDS_DOCUMENT(&additional_spec)) {
      CAIRN_ASSIGN_OR_RETURN(additional, ParseSubschema(IterDocument(&additional_spec), nested));
    } else {
      return KeywordError(ErrorCode::kTypeMismatch, "additionalProperties",
                          "must be an object or a boolean");
    }
  }

  std::vector<AllowedPropertiesKeyword::PatternSchema> patterns;
  RegexOptions raw;
  raw.utf = false;
  for (size_t i = 0; i < pattern_names.size(); ++i) {
    bson_iter_t name = pattern_names[i].iter();
    Result<Regex> regex = Regex::Compile(IterKey(&name), raw);
    if (!regex.ok()) {
      return Status(ErrorCode::kBadValue, "Invalid regular expression: " + regex.status().reason());
    }
    patterns.push_back({std::move(regex).value(), std::move(pattern_schemas[i])});
  }

  std::vector<std::string> named;
  if (map.Get(KeywordId::kProperties, &properties_spec)) {
    bson_iter_t it;
    bson_iter_recurse(&properties_spec, &it);
    while (bson_iter_next(&it)) named.emplace_back(IterKey(&it));
    std::sort(named.begin(), named.end());
  }
  schema->Add(std::make_unique<AllowedPropertiesKeyword>(
      has_additional ? &additional_spec : &patterns_spec, std::move(named), std::move(patterns),
      std::move(additional), allow_additional));
  return Status::OK();
}

Status ParseDependencies(const bson_iter_t* spec, SchemaContext context, Schema* schema) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return KeywordError(ErrorCode::kTypeMismatch, "dependencies", "must be an object");
  }
  std::vector<DependenciesKeyword::Dependency> dependencies;
  bson_iter_t it;
  bson_iter_recurse(spec, &it);
  while (bson_iter_next(&it)) {
    const std::string property(IterKey(&it));
    const std::string in_keyword = "' in $jsonSchema keyword 'dependencies' ";
    DependenciesKeyword::Dependency dependency{property, nullptr, {}};
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      // The schema applies to the object itself, so it keeps this schema's level.
      CAIRN_ASSIGN_OR_RETURN(dependency.schema, ParseSubschema(IterDocument(&it), context));
    } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_t name;
      bson_iter_recurse(&it, &name);
      std::set<std::string_view> seen;
      bool empty = true;
      while (bson_iter_next(&name)) {
        empty = false;
        if (!BSON_ITER_HOLDS_UTF8(&name)) {
          return Status(
              ErrorCode::kTypeMismatch,
              "array '" + property + in_keyword +
                  "can only contain strings, but found element of type: " + TypeNameOf(&name));
        }
        if (!seen.insert(IterUtf8(&name)).second) {
          return Status(ErrorCode::kFailedToParse,
                        "array '" + property + in_keyword +
                            "contains duplicate element: " + std::string(IterUtf8(&name)));
        }
        dependency.required.emplace_back(IterUtf8(&name));
      }
      if (empty) {
        return Status(ErrorCode::kFailedToParse,
                      "property '" + property + in_keyword + "cannot be an empty array");
      }
    } else if (BSON_ITER_HOLDS_UTF8(&it) && (property == "title" || property == "description")) {
      continue;  // annotations are allowed here
    } else {
      return Status(ErrorCode::kTypeMismatch,
                    "property '" + property + in_keyword + "must be either an object or an array");
    }
    dependencies.push_back(std::move(dependency));
  }
  schema->Add(std::make_unique<DependenciesKeyword>(spec, std::move(dependencies)));
  return Status::OK();
}

}  // namespace

Status ParseObjectKeywords(const KeywordMap& map, SchemaContext context, Schema* schema) {
  bson_iter_t spec, required_spec;
  std::vector<std::string> required;
  const bool has_required = map.Get(KeywordId::kRequired, &required_spec);
  if (has_required) {
    CAIRN_ASSIGN_OR_RETURN(required, ParseRequired(&required_spec));
  }
  if (map.Get(KeywordId::kProperties, &spec)) {
    CAIRN_RETURN_IF_ERROR(ParseProperties(&spec, schema));
  }
  CAIRN_RETURN_IF_ERROR(ParseAllowedProperties(map, schema));
  if (has_required) {
    schema->Add(std::make_unique<RequiredKeyword>(&required_spec, std::move(required)));
  }
  CAIRN_RETURN_IF_ERROR(ParseCountKeyword(map, KeywordId::kMinProperties, BSON_TYPE_DOCUMENT, false,
                                          context, schema));
  CAIRN_RETURN_IF_ERROR(
      ParseCountKeyword(map, KeywordId::kMaxProperties, BSON_TYPE_DOCUMENT, true, context, schema));
  if (map.Get(KeywordId::kDependencies, &spec)) {
    CAIRN_RETURN_IF_ERROR(ParseDependencies(&spec, context, schema));
  }
  return Status::OK();
}

}  // namespace cairn::query::json_schema
