// The $jsonSchema part of a validation error (schema_errors.h): one entry per failing keyword,
// with the fields and reasons MongoDB's doc_validation_error.cpp gives each (operatorName,
// specifiedAs, reason, consideredValue, missingProperties, propertiesNotSatisfied, ...), nested
// subschemas explained as lists of their own failing keywords.
#include "query/matcher/json_schema/schema_errors.h"

#include <algorithm>
#include <string>
#include <vector>

#include "query/matcher/json_schema/keywords.h"
#include "query/matcher/regex.h"
#include "query/matcher/validation_details.h"

namespace cairn::query::json_schema {

namespace {

DetailsArray RuleErrors(const Schema& schema, const SchemaValue& value);

// Explanations are built only for a document the validator refused without an error, so a check
// that fails here (a pattern PCRE2 stops with an error) counts as not satisfied.
template <typename Rule>
bool Satisfies(const Rule& rule, const SchemaValue& value) {
  Status ignored;
  return rule.Validate(value, &ignored);
}

bool PatternMatches(const Regex& regex, std::string_view name) {
  Result<bool> found = regex.Search(name);
  return found.ok() && *found;
}

void AppendAnnotations(const Schema& schema, bson_t* out) {
  bson_iter_t it;
  if (schema.spec().Find("title", &it)) AppendIter(out, "title", &it);
  if (schema.spec().Find("description", &it)) AppendIter(out, "description", &it);
}

void AppendSpecifiedAs(const Keyword& keyword, bson_t* out) {
  bson_iter_t spec = keyword.spec();
  BsonDoc specified;
  AppendIter(specified.get(), keyword.name(), &spec);
  bson_append_document(out, "specifiedAs", -1, specified.get());
}

void AppendValue(const SchemaValue& value, std::string_view key, bson_t* out) {
  if (value.element() != nullptr) {
    AppendIter(out, key, value.element());
    return;
  }
  bson_t document = value.document().AsBson();
  bson_append_document(out, key.data(), static_cast<int>(key.size()), &document);
}

// A leaf keyword: operatorName, specifiedAs, reason, consideredValue.
BsonDoc LeafError(const Keyword& keyword, std::string_view reason, const SchemaValue& value) {
  BsonDoc out;
  AppendUtf8(out.get(), "operatorName", keyword.name());
  AppendSpecifiedAs(keyword, out.get());
  AppendUtf8(out.get(), "reason", reason);
  AppendValue(value, "consideredValue", out.get());
  return out;
}

// {<annotations>, details: [...]} parts shared by subschema entries.
void AppendSubschemaDetails(const Schema& sub, const SchemaValue& value, bson_t* out) {
  RuleErrors(sub, value).AppendTo(out, "details");
}

// Fields of `object` that properties does not name and no pattern matches.
std::vector<std::string> AdditionalProperties(BsonView object,
                                              const std::vector<std::string>& named,
                                              const std::vector<Regex>& patterns) {
  std::vector<std::string> out;
  bson_iter_t it;
  if (!object.Init(&it)) return out;
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    if (std::find(named.begin(), named.end(), name) != named.end()) continue;
    bool matched = false;
    for (const Regex& regex : patterns) matched |= PatternMatches(regex, name);
    if (!matched) out.emplace_back(name);
  }
  return out;
}

// patternProperties + additionalProperties (one rule in the tree): up to two entries.
void AllowedPropertiesErrors(const Schema& schema, const Keyword& keyword, const SchemaValue& value,
                             DetailsArray* rules) {
  BsonView spec = schema.spec();
  BsonView object = value.document();
  std::vector<std::string> named;
  bson_iter_t it;
  if (spec.Find("properties", &it) && BSON_ITER_HOLDS_DOCUMENT(&it)) {
    bson_iter_t property;
    bson_iter_recurse(&it, &property);
    while (bson_iter_next(&property)) named.emplace_back(IterKey(&property));
  }
  std::vector<Regex> patterns;
  std::vector<std::string> pattern_texts;
  if (spec.Find("patternProperties", &it) && BSON_ITER_HOLDS_DOCUMENT(&it)) {
    RegexOptions raw;
    raw.utf = false;
    bson_iter_t pattern;
    bson_iter_recurse(&it, &pattern);
    while (bson_iter_next(&pattern)) {
      Result<Regex> regex = Regex::Compile(IterKey(&pattern), raw);
      if (!regex.ok()) return;  // compiled once already: cannot happen
      patterns.push_back(std::move(regex).value());
      pattern_texts.emplace_back(IterKey(&pattern));
    }
  }
  std::vector<std::string> additional = AdditionalProperties(object, named, patterns);

  bson_iter_t additional_spec;
  if (spec.Find("additionalProperties", &additional_spec)) {
    if (BSON_ITER_HOLDS_BOOL(&additional_spec) && !bson_iter_bool(&additional_spec) &&
        !additional.empty()) {
      BsonDoc out;
      AppendUtf8(out.get(), "operatorName", "additionalProperties");
      BsonDoc specified;
      BSON_APPEND_BOOL(specified.get(), "additionalProperties", false);
      BSON_APPEND_DOCUMENT(out.get(), "specifiedAs", specified.get());
      DetailsArray names;
      for (const std::string& name : additional) names.AppendString(name);
      names.AppendTo(out.get(), "additionalProperties");
      rules->AppendDocument(out);
    } else if (BSON_ITER_HOLDS_DOCUMENT(&additional_spec) &&
               keyword.num_subschemas() > patterns.size()) {
      const Schema& sub = *keyword.subschema(patterns.size());
      for (const std::string& name : additional) {
        bson_iter_t field;
        if (!object.Find(name, &field) || Satisfies(sub, SchemaValue::Element(&field))) continue;
        BsonDoc out;
        AppendUtf8(out.get(), "operatorName", "additionalProperties");
        AppendAnnotations(sub, out.get());
        AppendUtf8(out.get(), "reason",
                   "at least one additional property did not match the subschema");
        AppendUtf8(out.get(), "failingProperty", name);
        AppendSubschemaDetails(sub, SchemaValue::Element(&field), out.get());
        rules->AppendDocument(out);
        break;
      }
    }
  }

  DetailsArray pattern_errors;
  for (size_t i = 0; i < patterns.size() && i < keyword.num_subschemas(); ++i) {
    const Schema& sub = *keyword.subschema(i);
    bson_iter_t field;
    if (!object.Init(&field)) break;
    while (bson_iter_next(&field)) {
      if (!PatternMatches(patterns[i], IterKey(&field)) ||
          Satisfies(sub, SchemaValue::Element(&field))) {
        continue;
      }
      BsonDoc entry;
      AppendUtf8(entry.get(), "propertyName", IterKey(&field));
      AppendAnnotations(sub, entry.get());
      AppendUtf8(entry.get(), "regexMatched", pattern_texts[i]);
      AppendSubschemaDetails(sub, SchemaValue::Element(&field), entry.get());
      pattern_errors.AppendDocument(entry);
      break;
    }
  }
  if (!pattern_errors.empty()) {
    BsonDoc out;
    AppendUtf8(out.get(), "operatorName", "patternProperties");
    pattern_errors.AppendTo(out.get(), "details");
    rules->AppendDocument(out);
  }
}

// allOf / anyOf / oneOf: the members that failed, by index.
BsonDoc CombinationError(const Keyword& keyword, const SchemaValue& value) {
  BsonDoc out;
  AppendUtf8(out.get(), "operatorName", keyword.name());
  std::vector<int32_t> matching;
  for (size_t i = 0; i < keyword.num_subschemas(); ++i) {
    if (Satisfies(*keyword.subschema(i), value)) matching.push_back(static_cast<int32_t>(i));
  }
  if (keyword.name() == "oneOf" && !matching.empty()) {
    AppendUtf8(out.get(), "reason", "more than one subschema matched");
    DetailsArray indexes;
    for (int32_t i : matching) indexes.AppendInt(i);
    indexes.AppendTo(out.get(), "matchingSchemaIndexes");
    return out;
  }
  DetailsArray failed;
  for (size_t i = 0; i < keyword.num_subschemas(); ++i) {
    const Schema& sub = *keyword.subschema(i);
    if (Satisfies(sub, value)) continue;
    BsonDoc entry;
    BSON_APPEND_INT32(entry.get(), "index", static_cast<int32_t>(i));
    AppendAnnotations(sub, entry.get());
    AppendSubschemaDetails(sub, value, entry.get());
    failed.AppendDocument(entry);
  }
  failed.AppendTo(out.get(), "schemasNotSatisfied");
  return out;
}

BsonDoc PropertiesError(const Keyword& keyword, const SchemaValue& value) {
  BsonDoc out;
  AppendUtf8(out.get(), "operatorName", "properties");
  DetailsArray failed;
  bson_iter_t spec = keyword.spec();
  bson_iter_t property;
  bson_iter_recurse(&spec, &property);
  for (size_t i = 0; bson_iter_next(&property) && i < keyword.num_subschemas(); ++i) {
    const Schema& sub = *keyword.subschema(i);
    bson_iter_t found;
    const std::string name(IterKey(&property));
    if (!FindProperty(value.document(), name, &found)) continue;
    if (Satisfies(sub, SchemaValue::Element(&found))) continue;
    BsonDoc entry;
    AppendUtf8(entry.get(), "propertyName", name);
    AppendAnnotations(sub, entry.get());
    AppendSubschemaDetails(sub, SchemaValue::Element(&found), entry.get());
    failed.AppendDocument(entry);
  }
  failed.AppendTo(out.get(), "propertiesNotSatisfied");
  return out;
}

BsonDoc RequiredError(const Keyword& keyword, const SchemaValue& value) {
  BsonDoc out;
  AppendUtf8(out.get(), "operatorName", "required");
  AppendSpecifiedAs(keyword, out.get());
  std::vector<std::string> missing;
  bson_iter_t spec = keyword.spec();
  bson_iter_t name;
  bson_iter_recurse(&spec, &name);
  while (bson_iter_next(&name)) {
    bson_iter_t found;
    const std::string property(IterUtf8(&name));
    if (!FindProperty(value.document(), property, &found)) missing.push_back(property);
  }
  std::sort(missing.begin(), missing.end());  // MongoDB checks the names as a sorted set
  DetailsArray names;
  for (const std::string& property : missing) names.AppendString(property);
  names.AppendTo(out.get(), "missingProperties");
  return out;
}

BsonDoc DependenciesError(const Keyword& keyword, const SchemaValue& value) {
  BsonDoc out;
  AppendUtf8(out.get(), "operatorName", "dependencies");
  DetailsArray failing;
  bson_iter_t spec = keyword.spec();
  bson_iter_t dependency;
  bson_iter_recurse(&spec, &dependency);
  size_t schema_index = 0;
  BsonView object = value.document();
  while (bson_iter_next(&dependency)) {
    const std::string property(IterKey(&dependency));
    const bool is_schema = BSON_ITER_HOLDS_DOCUMENT(&dependency);
    const Schema* sub = is_schema ? keyword.subschema(schema_index++) : nullptr;
    if (!is_schema && !BSON_ITER_HOLDS_ARRAY(&dependency)) continue;  // an annotation
    bson_iter_t found;
    if (!FindProperty(object, property, &found)) continue;
    BsonDoc entry;
    AppendUtf8(entry.get(), "conditionalProperty", property);
    if (sub != nullptr) {
      if (Satisfies(*sub, value)) continue;
      AppendSubschemaDetails(*sub, value, entry.get());
    } else {
      DetailsArray missing;
      bson_iter_t name;
      bson_iter_recurse(&dependency, &name);
      while (bson_iter_next(&name)) {
        const std::string required(IterUtf8(&name));
        if (!FindProperty(object, required, &found)) missing.AppendString(required);
      }
      if (missing.empty()) continue;
      missing.AppendTo(entry.get(), "missingProperties");
    }
    failing.AppendDocument(entry);
  }
  failing.AppendTo(out.get(), "failingDependencies");
  return out;
}

// items / additionalItems.
BsonDoc ItemsError(const Schema& schema, const Keyword& keyword, const SchemaValue& value) {
  BsonDoc out;
  AppendUtf8(out.get(), "operatorName", keyword.name());
  bson_iter_t spec = keyword.spec();
  BsonView array = value.document();
  bson_iter_t element;
  if (keyword.name() == "items" && BSON_ITER_HOLDS_ARRAY(&spec)) {
    DetailsArray failed;
    array.Init(&element);
    for (size_t i = 0; i < keyword.num_subschemas() && bson_iter_next(&element); ++i) {
      const Schema& sub = *keyword.subschema(i);
      if (Satisfies(sub, SchemaValue::Element(&element))) continue;
      BsonDoc entry;
      BSON_APPEND_INT32(entry.get(), "itemIndex", static_cast<int32_t>(i));
      AppendSubschemaDetails(sub, SchemaValue::Element(&element), entry.get());
      failed.AppendDocument(entry);
    }
    failed.AppendTo(out.get(), "details");
    return out;
  }
  size_t start = 0;
  bson_iter_t items;
  if (keyword.name() == "additionalItems" && schema.spec().Find("items", &items) &&
      BSON_ITER_HOLDS_ARRAY(&items)) {
    start = IterDocument(&items).CountKeys();
  }
  if (keyword.num_subschemas() == 0) {  // additionalItems: false
    AppendSpecifiedAs(keyword, out.get());
    AppendUtf8(out.get(), "reason", "found additional items");
    DetailsArray extra;
    array.Init(&element);
    for (size_t i = 0; bson_iter_next(&element); ++i) {
      if (i >= start) extra.AppendValue(&element);
    }
    extra.AppendTo(out.get(), "additionalItems");
    return out;
  }
  const Schema& sub = *keyword.subschema(0);
  AppendAnnotations(sub, out.get());
  AppendUtf8(out.get(), "reason",
             keyword.name() == "items"
                 ? "At least one item did not match the sub-schema"
                 : "At least one additional item did not match the sub-schema");
  array.Init(&element);
  for (size_t i = 0; bson_iter_next(&element); ++i) {
    if (i < start || Satisfies(sub, SchemaValue::Element(&element))) continue;
    BSON_APPEND_INT32(out.get(), "itemIndex", static_cast<int32_t>(i));
    AppendSubschemaDetails(sub, SchemaValue::Element(&element), out.get());
    break;
  }
  return out;
}

BsonDoc UniqueItemsError(const Keyword& keyword, const SchemaValue& value) {
  BsonDoc out = LeafError(keyword, "found a duplicate item", value);
  bson_iter_t a, b;
  BsonView array = value.document();
  array.Init(&a);
  while (bson_iter_next(&a)) {
    b = a;
    while (bson_iter_next(&b)) {
      if (UnorderedEqual(&a, &b)) {
        AppendIter(out.get(), "duplicatedValue", &b);
        return out;
      }
    }
  }
  return out;
}

void AppendKeywordError(const Schema& schema, const Keyword& keyword, const SchemaValue& value,
                        DetailsArray* rules) {
  const std::string_view name = keyword.name();
  if (name == "properties") return rules->AppendDocument(PropertiesError(keyword, value));
  if (name == "required") return rules->AppendDocument(RequiredError(keyword, value));
  if (name == "additionalProperties" || name == "patternProperties") {
    return AllowedPropertiesErrors(schema, keyword, value, rules);
  }
  if (name == "dependencies") return rules->AppendDocument(DependenciesError(keyword, value));
  if (name == "allOf" || name == "anyOf" || name == "oneOf") {
    return rules->AppendDocument(CombinationError(keyword, value));
  }
  if (name == "items" || name == "additionalItems") {
    return rules->AppendDocument(ItemsError(schema, keyword, value));
  }
  if (name == "not") {
    BsonDoc out;
    AppendUtf8(out.get(), "operatorName", "not");
    AppendUtf8(out.get(), "reason", "child expression matched");
    return rules->AppendDocument(out);
  }
  if (name == "uniqueItems") return rules->AppendDocument(UniqueItemsError(keyword, value));
  if (name == "bsonType" || name == "type") {
    BsonDoc out = LeafError(keyword, "type did not match", value);
    AppendUtf8(out.get(), "consideredType", BsonTypeName(value.type()));
    return rules->AppendDocument(out);
  }
  if (name == "minProperties" || name == "maxProperties") {
    BsonDoc out;
    AppendUtf8(out.get(), "operatorName", name);
    AppendSpecifiedAs(keyword, out.get());
    AppendUtf8(out.get(), "reason", "specified number of properties was not satisfied");
    BSON_APPEND_INT32(out.get(), "numberOfProperties",
                      static_cast<int32_t>(value.document().CountKeys()));
    return rules->AppendDocument(out);
  }
  if (name == "minItems" || name == "maxItems") {
    BsonDoc out = LeafError(keyword, "array did not match specified length", value);
    BSON_APPEND_INT32(out.get(), "numberOfItems",
                      static_cast<int32_t>(value.document().CountKeys()));
    return rules->AppendDocument(out);
  }
  std::string_view reason = "did not match";
  if (name == "minimum" || name == "maximum") reason = "comparison failed";
  if (name == "minLength" || name == "maxLength") {
    reason = "specified string length was not satisfied";
  }
  if (name == "pattern") reason = "regular expression did not match";
  if (name == "multipleOf") reason = "considered value is not a multiple of the specified value";
  if (name == "enum") reason = "value was not found in enum";
  rules->AppendDocument(LeafError(keyword, reason, value));
}

DetailsArray RuleErrors(const Schema& schema, const SchemaValue& value) {
  DetailsArray rules;
  for (size_t i = 0; i < schema.num_keywords(); ++i) {
    const Keyword& keyword = schema.keyword(i);
    if (!Satisfies(keyword, value)) AppendKeywordError(schema, keyword, value, &rules);
  }
  return rules;
}

}  // namespace

BsonDoc ExplainSchemaFailure(const Schema& schema, BsonView document) {
  BsonDoc out;
  AppendUtf8(out.get(), "operatorName", "$jsonSchema");
  AppendAnnotations(schema, out.get());
  RuleErrors(schema, SchemaValue::Document(document))
      .AppendTo(out.get(), "schemaRulesNotSatisfied");
  return out;
}

}  // namespace cairn::query::json_schema
