// $type: a type name alias ("string", "number", ...), a numeric type code, or an array of them
// (MongoDB's MatcherTypeSet::parse and TypeMatchExpression). $type: "array" matches arrays
// themselves; elements of arrays are tested too. Also owns the type-name tables ($type's and
// JSON Schema's) that $jsonSchema's bsonType/type resolve through.
#include <string>
#include <utility>

#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

bool MatcherTypeSet::Has(bson_type_t type) const {
  if (all_numbers && (type == BSON_TYPE_INT32 || type == BSON_TYPE_INT64 ||
                      type == BSON_TYPE_DOUBLE || type == BSON_TYPE_DECIMAL128)) {
    return true;
  }
  return types[static_cast<uint8_t>(type)];
}

bool TypeMatchExpression::MatchesSingleElement(const bson_iter_t* value, Status*) const {
  return value != nullptr && types_.Has(bson_iter_type(value));  // no type names "missing"
}

namespace internal {

namespace {

constexpr bson_type_t kAliasTypes[] = {
    BSON_TYPE_DOUBLE,    BSON_TYPE_UTF8,      BSON_TYPE_DOCUMENT,   BSON_TYPE_ARRAY,
    BSON_TYPE_BINARY,    BSON_TYPE_UNDEFINED, BSON_TYPE_OID,        BSON_TYPE_BOOL,
    BSON_TYPE_DATE_TIME, BSON_TYPE_NULL,      BSON_TYPE_REGEX,      BSON_TYPE_DBPOINTER,
    BSON_TYPE_CODE,      BSON_TYPE_SYMBOL,    BSON_TYPE_CODEWSCOPE, BSON_TYPE_INT32,
    BSON_TYPE_TIMESTAMP, BSON_TYPE_INT64,     BSON_TYPE_DECIMAL128, BSON_TYPE_MINKEY,
    BSON_TYPE_MAXKEY,
};

// JSON Schema's type names (MatcherTypeSet::kJsonSchemaTypeAliasMap); "integer" is refused by
// the $jsonSchema parser before it gets here.
constexpr std::pair<std::string_view, bson_type_t> kJsonSchemaAliases[] = {
    {"array", BSON_TYPE_ARRAY},     {"boolean", BSON_TYPE_BOOL}, {"null", BSON_TYPE_NULL},
    {"object", BSON_TYPE_DOCUMENT}, {"string", BSON_TYPE_UTF8},
};

}  // namespace

Status AddTypeAlias(std::string_view alias, TypeAliases aliases, MatcherTypeSet* set) {
  if (alias == "number") {
    set->all_numbers = true;
    return Status::OK();
  }
  if (aliases == TypeAliases::kBson) {
    for (bson_type_t t : kAliasTypes) {
      if (BsonTypeName(t) == alias) {
        set->types.set(static_cast<uint8_t>(t));
        return Status::OK();
      }
    }
  } else {
    for (const auto& [name, type] : kJsonSchemaAliases) {
      if (name == alias) {
        set->types.set(static_cast<uint8_t>(type));
        return Status::OK();
      }
    }
  }
  if (alias == BsonTypeName(BSON_TYPE_EOD)) {
    // "missing" is what the $type expression answers for a missing field, not a type.
    return Status(ErrorCode::kBadValue,
                  "'missing' is not a legal type name. To query for non-existence of a field, "
                  "use {$exists:false}.");
  }
  return Status(ErrorCode::kBadValue, "Unknown type name alias: " + std::string(alias));
}

namespace {

Status AddSingleType(const bson_iter_t* e, MatcherTypeSet* set) {
  if (BSON_ITER_HOLDS_UTF8(e)) return AddTypeAlias(IterUtf8(e), TypeAliases::kBson, set);
  if (!IterIsNumber(e)) {
    return Status(ErrorCode::kTypeMismatch, "type must be represented as a number or a string");
  }
  Result<int64_t> code = ParseIntegerElementToLong(e);
  if (code.ok() && *code == 0) {
    return Status(ErrorCode::kBadValue, "Invalid numerical type code: " + NumberToString(e) +
                                            ". Instead use {$exists:false}.");
  }
  bool valid = code.ok() && (*code == -1 || (*code >= 1 && *code <= 19) || *code == 127);
  if (!valid) {
    return Status(ErrorCode::kBadValue, "Invalid numerical type code: " + NumberToString(e));
  }
  set->types.set(*code == -1 ? static_cast<uint8_t>(BSON_TYPE_MINKEY)
                             : static_cast<uint8_t>(*code));
  return Status::OK();
}

}  // namespace

Result<MatchExpressionPtr> ParseType(const OperatorArgs& args) {
  MatcherTypeSet set;
  if (BSON_ITER_HOLDS_ARRAY(args.op)) {
    bson_iter_t it;
    bson_iter_recurse(args.op, &it);
    while (bson_iter_next(&it)) CAIRN_RETURN_IF_ERROR(AddSingleType(&it, &set));
  } else {
    CAIRN_RETURN_IF_ERROR(AddSingleType(args.op, &set));
  }
  if (set.empty()) {
    return Status(ErrorCode::kFailedToParse,
                  std::string(args.path) + " must match at least one type");
  }
  return MatchExpressionPtr(std::make_unique<TypeMatchExpression>(args.path, set));
}

}  // namespace internal
}  // namespace cairn::query
