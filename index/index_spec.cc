// createIndexes spec validation, normal form and comparison (MongoDB 7.0's rules and wording).
#include "index/index_spec.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "common/bson_compare.h"
#include "index/key_pattern.h"
#include "index/text_index_spec.h"
#include "query/collation/collator.h"
#include "query/matcher/match_expression.h"
#include "query/matcher/matcher.h"
#include "query/matcher/special_features.h"

namespace cairn::index {

namespace {

// The top-level fields an index spec may have (index_key_validate.h allowedFieldNames).
constexpr std::string_view kAllowedFields[] = {"2dsphereIndexVersion",
                                               "_id",
                                               "background",
                                               "bits",
                                               "clustered",
                                               "coarsestIndexedLevel",
                                               "collation",
                                               "columnstoreCompressor",
                                               "columnstoreProjection",
                                               "default_language",
                                               "dropDups",
                                               "expireAfterSeconds",
                                               "finestIndexedLevel",
                                               "hidden",
                                               "key",
                                               "language_override",
                                               "max",
                                               "min",
                                               "name",
                                               "ns",
                                               "originalSpec",
                                               "partialFilterExpression",
                                               "prepareUnique",
                                               "sparse",
                                               "storageEngine",
                                               "textIndexVersion",
                                               "unique",
                                               "v",
                                               "weights",
                                               "wildcardProjection"};

// The fields an _id index spec may have (validateIdIndexSpec).
constexpr std::string_view kIdIndexFields[] = {"collation", "name", "v", "key", "ns", "_id"};

// Options that do not take part in the identical/equivalent comparison: checked specially or
// creation-time only (populateOptionsMapForEqualityCheck).
constexpr std::string_view kNotComparedOptions[] = {"key",
                                                    "ns",
                                                    "name",
                                                    "v",
                                                    "textIndexVersion",
                                                    "2dsphereIndexVersion",
                                                    "background",
                                                    "dropDups",
                                                    "collation",
                                                    "partialFilterExpression",
                                                    "unique",
                                                    "sparse",
                                                    "wildcardProjection"};

constexpr int kMaxPartialFilterDepth = 4;  // internalPartialFilterExpressionMaxDepth

template <size_t N>
bool OneOf(std::string_view name, const std::string_view (&list)[N]) {
  for (std::string_view entry : list) {
    if (entry == name) return true;
  }
  return false;
}

std::string TypeName(const bson_iter_t* it) {
  return std::string(BsonTypeName(bson_iter_type(it)));
}

// `key: value` as MongoDB prints a BSONElement.
std::string ElementString(const bson_iter_t* it) {
  return std::string(IterKey(it)) + ": " + ValueToShellString(it);
}

Status InSpecification(BsonView spec, const Status& status) {
  return status.WithContext("Error in specification " + ToShellString(spec));
}

Status TypeMismatch(std::string message) {
  return Status(ErrorCode::kTypeMismatch, std::move(message));
}

// MongoDB's MatchExpression::debugString for the nodes a partial filter may hold (four spaces
// of indentation per level, one node per line).
void AppendDebugString(const query::MatchExpression* node, int level, std::string* out) {
  using query::MatchKind;
  out->append(static_cast<size_t>(level) * 4, ' ');
  auto path = [node]() {
    return static_cast<const query::PathMatchExpression*>(node)->path().dotted();
  };
  auto children = [&](std::string_view name) {
    out->append(name);
    out->push_back('\n');
    for (size_t i = 0; i < node->num_children(); ++i) {
      AppendDebugString(node->child(i), level + 1, out);
    }
  };
  switch (node->kind()) {
    case MatchKind::kAnd:
      return children("$and");
    case MatchKind::kOr:
      return children("$or");
    case MatchKind::kNor:
      return children("$nor");
    case MatchKind::kNot:
      return children("$not");
    case MatchKind::kAlwaysTrue:
      *out += "$alwaysTrue\n";
      return;
    case MatchKind::kAlwaysFalse:
      *out += "$alwaysFalse\n";
      return;
    case MatchKind::kEq:
    case MatchKind::kLt:
    case MatchKind::kLte:
    case MatchKind::kGt:
    case MatchKind::kGte: {
      static constexpr const char* kNames[] = {"$eq", "$lt", "$lte", "$gt", "$gte"};
      int index = static_cast<int>(node->kind()) - static_cast<int>(MatchKind::kEq);
      bson_iter_t rhs = static_cast<const query::ComparisonMatchExpression*>(node)->rhs();
      *out += path() + " " + kNames[index] + " " + ValueToShellString(&rhs) + "\n";
      return;
    }
    case MatchKind::kExists:
      *out += path() + " exists\n";
      return;
    case MatchKind::kRegex: {
      const auto* regex = static_cast<const query::RegexMatchExpression*>(node);
      *out += path() + " regex /" + std::string(regex->pattern()) + "/" +
              std::string(regex->flags()) + "\n";
      return;
    }
    case MatchKind::kIn: {
      *out += path() + " $in [ ";
      for (const BsonElement& e :
           static_cast<const query::InMatchExpression*>(node)->equalities()) {
        bson_iter_t it = e.iter();
        *out += ValueToShellString(&it) + " ";
      }
      *out += "]\n";
      return;
    }
    case MatchKind::kElemMatchValue:
      return children(path() + " $elemMatch (value)");
    case MatchKind::kElemMatchObject:
      return children(path() + " $elemMatch (obj)");
    case MatchKind::kSize:
      *out += path() + " $size\n";
      return;
    case MatchKind::kMod:
      *out += path() + " mod\n";
      return;
    case MatchKind::kType:
      *out += path() + " type\n";
      return;
    case MatchKind::kBitsAllSet:
      *out += path() + " $bitsAllSet\n";
      return;
    case MatchKind::kBitsAllClear:
      *out += path() + " $bitsAllClear\n";
      return;
    case MatchKind::kBitsAnySet:
      *out += path() + " $bitsAnySet\n";
      return;
    case MatchKind::kBitsAnyClear:
      *out += path() + " $bitsAnyClear\n";
      return;
    case MatchKind::kJsonSchema:
      *out += "$jsonSchema\n";
      return;
    default:
      *out += "?\n";
      return;  // kinds a partial filter cannot even parse to
  }
}

Status CheckPartialFilterNode(const query::MatchExpression* node, int level) {
  using query::MatchKind;
  if (level + 1 > kMaxPartialFilterDepth) {
    return Status(ErrorCode::kCannotCreateIndex, "partialFilterExpression depth may not exceed " +
                                                     std::to_string(kMaxPartialFilterDepth));
  }
  switch (node->kind()) {
    case MatchKind::kAnd:
    case MatchKind::kOr:
      for (size_t i = 0; i < node->num_children(); ++i) {
        CAIRN_RETURN_IF_ERROR(CheckPartialFilterNode(node->child(i), level + 1));
      }
      return Status::OK();
    case MatchKind::kEq:
    case MatchKind::kLt:
    case MatchKind::kLte:
    case MatchKind::kGt:
    case MatchKind::kGte:
    case MatchKind::kExists:
    case MatchKind::kType:
    case MatchKind::kIn:
      return Status::OK();
    default: {
      std::string debug;
      AppendDebugString(node, 0, &debug);
      return Status(ErrorCode::kCannotCreateIndex,
                    "Expression not supported in partial index: " + debug);
    }
  }
}

// The special match features a partial filter may not use (kBanAllSpecialFeatures).
Status CheckSpecialFeatures(BsonView filter) {
  return query::CheckSpecialFeatures(filter, query::kFeatureWhere | query::kFeatureText |
                                                 query::kFeatureExpr | query::kFeatureJsonSchema);
}

// MongoDB's validateExpireAfterSeconds for a secondary TTL index.
Status CheckExpireAfterSeconds(const bson_iter_t* value) {
  auto cannot = [](std::string reason) {
    return Status(ErrorCode::kCannotCreateIndex, std::move(reason));
  };
  if (!IterIsNumber(value)) {
    return cannot(
        "TTL index 'expireAfterSeconds' option must be numeric, but received a type of '" +
        TypeName(value));
  }
  double seconds = 0;
  IterAsDouble(value, &seconds);
  if (std::isnan(seconds)) return cannot("TTL index 'expireAfterSeconds' option must not be NaN");
  // safeNumberInt vs safeNumberLong: the value must fit an int32 after truncation.
  double truncated = std::trunc(seconds);
  if (truncated < std::numeric_limits<int32_t>::min() ||
      truncated > std::numeric_limits<int32_t>::max()) {
    return cannot("TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer");
  }
  if (truncated < 0) return cannot("TTL index 'expireAfterSeconds' option cannot be less than 0");
  return Status::OK();
}

// The per-field checks of validateIndexSpec (reasons without the "Error in specification"
// context, which the caller adds).
Status CheckSpecFields(BsonView spec, bool* has_key, bool* has_name) {
  bool unique = false, prepare_unique = false, has_weights = false;
  std::string plugin;
  bson_iter_t it;
  spec.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    if (!OneOf(field, kAllowedFields)) {
      return Status(
          ErrorCode::kInvalidIndexSpecificationOption,
          "The field '" + std::string(field) +
              "' is not valid for an index specification. Specification: " + ToShellString(spec));
    }
  }
  spec.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    if (field == "key") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return TypeMismatch("The field 'key' must be an object, but got " + TypeName(&it));
      }
      BsonView pattern = IterDocument(&it);
      std::vector<std::string_view> seen;
      bson_iter_t key;
      pattern.Init(&key);
      while (bson_iter_next(&key)) {
        for (std::string_view name : seen) {
          if (name == IterKey(&key)) {
            return Status(ErrorCode::kBadValue, "The field '" + std::string(name) +
                                                    "' appears multiple times in the index key "
                                                    "pattern " +
                                                    ToShellString(pattern));
          }
        }
        seen.push_back(IterKey(&key));
      }
      CAIRN_RETURN_IF_ERROR(ValidateKeyPattern(pattern));
      pattern.Init(&key);
      while (bson_iter_next(&key)) {
        if (BSON_ITER_HOLDS_UTF8(&key) && IterUtf8(&key).empty()) {
          return Status(ErrorCode::kCannotCreateIndex,
                        "Values in the index key pattern cannot be empty strings");
        }
      }
      plugin = PluginName(pattern);
      *has_key = true;
    } else if (field == "name") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        return TypeMismatch("The field 'name' must be a string, but got " + TypeName(&it));
      }
      *has_name = true;
    } else if (field == "hidden") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) {
        // MongoDB names the wrong field in this message.
        return TypeMismatch("The field 'name' must be a bool, but got " + TypeName(&it));
      }
    } else if (field == "v") {
      if (!IterIsNumber(&it)) {
        return TypeMismatch("The field 'v' must be a number, but got " + TypeName(&it));
      }
      double v = 0;
      IterAsDouble(&it, &v);
      if (std::trunc(v) != v || v < std::numeric_limits<int32_t>::min() ||
          v > std::numeric_limits<int32_t>::max()) {
        return Status(ErrorCode::kBadValue,
                      "Index version must be representable as a 32-bit integer, but got " +
                          ValueToShellString(&it));
      }
      if (v != 1 && v != 2) {
        return Status(ErrorCode::kCannotCreateIndex,
                      "Invalid index specification " + ToShellString(spec) +
                          "; cannot create an index with v=" + std::to_string(static_cast<int>(v)));
      }
    } else if (field == "collation" || field == "originalSpec") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return TypeMismatch("The field '" + std::string(field) + "' must be an object, but got " +
                            TypeName(&it));
      }
      if (IterDocument(&it).empty()) {
        return Status(ErrorCode::kBadValue,
                      "The field '" + std::string(field) + "' cannot be an empty object.");
      }
    } else if (field == "partialFilterExpression") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return TypeMismatch("The field 'partialFilterExpression' must be an object, but got " +
                            TypeName(&it));
      }
      CAIRN_RETURN_IF_ERROR(CheckSpecialFeatures(IterDocument(&it)));
      CAIRN_RETURN_IF_ERROR(query::Matcher::Parse(IterDocument(&it)).status());
    } else if (field == "weights") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it) && !BSON_ITER_HOLDS_ARRAY(&it) &&
          !BSON_ITER_HOLDS_UTF8(&it)) {
        return TypeMismatch("The field 'weights' must be an object, but got " + TypeName(&it));
      }
      has_weights = true;
    } else if (field == "background" || field == "unique" || field == "sparse" ||
               field == "dropDups" || field == "prepareUnique" || field == "clustered") {
      if (!IterIsNumber(&it) && !BSON_ITER_HOLDS_BOOL(&it)) {
        return TypeMismatch("The field '" + std::string(field) + " has value " +
                            ElementString(&it) + ", which is not convertible to bool");
      }
      if (field == "unique") unique = bson_iter_as_bool(&it);
      if (field == "prepareUnique") prepare_unique = bson_iter_as_bool(&it);
    } else if ((field == "default_language" || field == "language_override") &&
               !BSON_ITER_HOLDS_UTF8(&it)) {
      return TypeMismatch("The field '" + std::string(field) + "' must be a string, but got " +
                          TypeName(&it));
    } else if ((field == "2dsphereIndexVersion" || field == "textIndexVersion" || field == "bits" ||
                field == "min" || field == "max" || field == "coarsestIndexedLevel" ||
                field == "finestIndexedLevel") &&
               !IterIsNumber(&it)) {
      return TypeMismatch("The field '" + std::string(field) + "' must be a number, but got " +
                          TypeName(&it));
    }
  }
  if (!*has_key) {
    return Status(ErrorCode::kFailedToParse,
                  "The 'key' field is a required property of an index specification");
  }
  if (!*has_name) {
    return Status(ErrorCode::kFailedToParse,
                  "The 'name' field is a required property of an index specification");
  }
  if (plugin != "text" && has_weights) {
    return Status(ErrorCode::kCannotCreateIndex,
                  "Invalid index specification " + ToShellString(spec) +
                      "; the field 'weights' can only be specified with text indexes");
  }
  if (unique && prepare_unique) {
    return Status(ErrorCode::kCannotCreateIndex,
                  "Invalid index specification " + ToShellString(spec) +
                      "; cannot create an index with the 'unique' option and the "
                      "'prepareUnique' option");
  }
  return Status::OK();
}

BsonView FieldDocument(BsonView spec, std::string_view field) {
  bson_iter_t it;
  if (!spec.Find(field, &it) || !BSON_ITER_HOLDS_DOCUMENT(&it)) return BsonView();
  return IterDocument(&it);
}

bool FieldTrue(BsonView spec, std::string_view field) {
  bson_iter_t it;
  return spec.Find(field, &it) && bson_iter_as_bool(&it);
}

}  // namespace

Status ValidatePartialFilter(BsonView filter) {
  CAIRN_RETURN_IF_ERROR(CheckSpecialFeatures(filter));
  CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter));
  if (matcher.root() == nullptr) return Status::OK();
  return CheckPartialFilterNode(matcher.root(), 0);
}

BsonDoc RemoveUnknownIndexSpecFields(BsonView requested) {
  BsonDoc out;
  bson_iter_t it;
  if (!requested.Init(&it)) return out;
  while (bson_iter_next(&it)) {
    if (OneOf(IterKey(&it), kAllowedFields)) AppendIter(out.get(), IterKey(&it), &it);
  }
  return out;
}

Result<BsonDoc> ValidateIndexSpec(BsonView requested) {
  bool has_key = false, has_name = false;
  Status fields = CheckSpecFields(requested, &has_key, &has_name);
  if (!fields.ok()) return InSpecification(requested, fields);

  // The spec as the later steps and their messages see it: without ns, with v appended.
  BsonDoc spec;
  bool has_version = false;
  bson_iter_t it;
  requested.Init(&it);
  while (bson_iter_next(&it)) {
    if (IterKey(&it) == "ns") continue;
    if (IterKey(&it) == "v") has_version = true;
    AppendIter(spec.get(), IterKey(&it), &it);
  }
  if (!has_version) BSON_APPEND_INT32(spec.get(), "v", 2);

  BsonView key = FieldDocument(spec.view(), "key");
  bson_iter_t name_it;
  spec.view().Find("name", &name_it);
  std::string_view name = IterUtf8(&name_it);
  if (IsIdIndexPattern(key)) {
    spec.view().Init(&it);
    while (bson_iter_next(&it)) {
      if (!OneOf(IterKey(&it), kIdIndexFields)) {
        return Status(ErrorCode::kInvalidIndexSpecificationOption,
                      "The field '" + std::string(IterKey(&it)) +
                          "' is not valid for an _id index specification. Specification: " +
                          ToShellString(spec.view()));
      }
    }
  } else {
    if (name == "_id_") {
      bson_iter_t key_it;
      spec.view().Find("key", &key_it);
      return Status(ErrorCode::kBadValue,
                    "The index name '_id_' is reserved for the _id index, which must have key "
                    "pattern {_id: 1}, found " +
                        ElementString(&key_it));
    }
    if (name == "*") return Status(ErrorCode::kBadValue, "The index name '*' is not valid.");
  }
  return spec;
}

Status ValidateIndexSpecTtl(BsonView requested) {
  bson_iter_t it;
  if (!requested.Find("expireAfterSeconds", &it)) return Status::OK();
  Status status = CheckExpireAfterSeconds(&it);
  if (!status.ok()) return status.WithContext(". Index spec: " + ToShellString(requested));
  if (FieldDocument(requested, "key").CountKeys() != 1) {
    return Status(ErrorCode::kCannotCreateIndex,
                  "TTL indexes are single-field indexes, compound indexes do not support TTL. "
                  "Index spec: " +
                      ToShellString(requested));
  }
  return Status::OK();
}

Result<BsonDoc> FinalizeIndexSpec(BsonView spec) {
  auto fail = [spec](ErrorCode code, std::string reason) {
    return InSpecification(spec, Status(code, std::move(reason)));
  };
  bson_iter_t it;
  spec.Find("name", &it);
  std::string_view name = IterUtf8(&it);
  if (name.find('\0') != std::string_view::npos) {
    return fail(ErrorCode::kCannotCreateIndex, "index name cannot contain NUL bytes");
  }
  if (name.empty()) return fail(ErrorCode::kCannotCreateIndex, "index name cannot be empty");
  BsonView key = FieldDocument(spec, "key");
  std::string plugin = PluginName(key);
  const bool sparse = FieldTrue(spec, "sparse");
  bson_iter_t filter;
  const bool partial = spec.Find("partialFilterExpression", &filter);
  // {locale: "simple"} is the binary default every index has: accepted and not stored, as
  // MongoDB omits it. Other collations are checked as MongoDB checks them, then refused.
  bool simple_collation = false;
  if (spec.Find("collation", &it)) {
    Result<std::shared_ptr<const query::Collator>> collator =
        query::Collator::Make(IterDocument(&it));
    if (!collator.ok()) return InSpecification(spec, collator.status());
    if (*collator != nullptr) {
      return fail(ErrorCode::kCannotCreateIndex, "index collation is not supported by Cairn yet");
    }
    simple_collation = true;
  }
  if (plugin == "wildcard") {
    if (sparse) {
      return fail(ErrorCode::kCannotCreateIndex,
                  "Index type 'wildcard' does not support the 'sparse' option");
    }
    if (FieldTrue(spec, "unique")) {
      return fail(ErrorCode::kCannotCreateIndex,
                  "Index type 'wildcard' does not support the 'unique' option");
    }
  }
  if (partial) {
    if (sparse) {
      return fail(ErrorCode::kCannotCreateIndex,
                  "cannot mix \"partialFilterExpression\" and \"sparse\" options");
    }
    Status status = ValidatePartialFilter(IterDocument(&filter));
    if (!status.ok()) return InSpecification(spec, status);
  }
  if (spec.Find("storageEngine", &it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return fail(ErrorCode::kCannotCreateIndex,
                  "\"storageEngine\" options must be a document if present");
    }
    if (IterDocument(&it).empty()) {
      return fail(ErrorCode::kCannotCreateIndex,
                  "Empty \"storageEngine\" options are invalid. Please remove the field or "
                  "include valid options.");
    }
  }
  // A text index is stored in FTSSpec's normal form (key {_fts: "text", _ftsx: 1}, weights,
  // languages, textIndexVersion), which is also what the "already exists" rules compare.
  BsonDoc text_spec;
  if (plugin == "text") {
    CAIRN_ASSIGN_OR_RETURN(text_spec, NormalizeTextIndexSpec(spec));
    spec = text_spec.view();
    key = FieldDocument(spec, "key");
  } else if (!plugin.empty()) {
    return fail(ErrorCode::kCannotCreateIndex,
                "Index type '" + plugin + "' is not supported by Cairn yet");
  }
  if (FieldTrue(spec, "prepareUnique")) {
    return fail(ErrorCode::kCannotCreateIndex, "prepareUnique is not supported by Cairn yet");
  }

  // _fixIndexSpec: the fields used most first, booleans normalised, the rest in given order.
  BsonDoc out;
  spec.Find("v", &it);
  double v = 2;
  IterAsDouble(&it, &v);
  BSON_APPEND_INT32(out.get(), "v", static_cast<int32_t>(v));
  if (FieldTrue(spec, "unique")) BSON_APPEND_BOOL(out.get(), "unique", true);
  if (FieldTrue(spec, "hidden")) BSON_APPEND_BOOL(out.get(), "hidden", true);
  bson_t key_copy = key.AsBson();
  BSON_APPEND_DOCUMENT(out.get(), "key", &key_copy);
  AppendUtf8(out.get(), "name", IsIdIndexPattern(key) ? std::string_view("_id_") : name);
  spec.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    if (field == "_id" || field == "dropDups" || field == "ns" || field == "v" ||
        field == "unique" || field == "key" || field == "name" || field == "hidden" ||
        field == "prepareUnique" || (field == "collation" && simple_collation)) {
      continue;
    }
    AppendIter(out.get(), field, &it);
  }
  return out;
}

SpecMatch CompareIndexSpecs(BsonView candidate, BsonView existing) {
  BsonView key_a = FieldDocument(candidate, "key");
  BsonView key_b = FieldDocument(existing, "key");
  if (CompareDocuments(key_a, key_b) != 0) return SpecMatch::kDifferent;
  const bool id_index = IsIdIndexPattern(key_a);
  if ((id_index || FieldTrue(candidate, "unique")) != (id_index || FieldTrue(existing, "unique"))) {
    return SpecMatch::kDifferent;
  }
  if (FieldTrue(candidate, "sparse") != FieldTrue(existing, "sparse")) return SpecMatch::kDifferent;
  bson_iter_t fa, fb;
  bool partial_a = candidate.Find("partialFilterExpression", &fa);
  bool partial_b = existing.Find("partialFilterExpression", &fb);
  if (partial_a != partial_b) return SpecMatch::kDifferent;
  if (partial_a && CompareValues(&fa, &fb) != 0) return SpecMatch::kDifferent;

  // The remaining options, by name.
  auto options = [](BsonView spec) {
    std::map<std::string, BsonElement> out;
    bson_iter_t it;
    spec.Init(&it);
    while (bson_iter_next(&it)) {
      if (!OneOf(IterKey(&it), kNotComparedOptions)) {
        out.emplace(std::string(IterKey(&it)), BsonElement(&it));
      }
    }
    return out;
  };
  std::map<std::string, BsonElement> a = options(candidate);
  std::map<std::string, BsonElement> b = options(existing);
  if (a.size() != b.size()) return SpecMatch::kEquivalent;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    bson_iter_t va = ia->second.iter();
    bson_iter_t vb = ib->second.iter();
    if (ia->first != ib->first || CompareValues(&va, &vb) != 0) return SpecMatch::kEquivalent;
  }
  return SpecMatch::kIdentical;
}

}  // namespace cairn::index
