// $type: a type name alias ("string", "number", ...), a numeric type code, or an array of them
// (MongoDB's MatcherTypeSet::parse and TypeMatchExpression). $type: "array" matches arrays
// themselves; elements of arrays are tested too.
#include <string>

#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

bool TypeMatchExpression::MatchesSingleElement(const bson_iter_t* value) const {
  if (value == nullptr) return types_[0];  // type code 0 (EOO) is accepted by MongoDB too
  if (all_numbers_ && IterIsNumber(value)) return true;
  return types_[static_cast<uint8_t>(bson_iter_type(value))];
}

namespace internal {

namespace {

constexpr bson_type_t kAliasTypes[] = {
    BSON_TYPE_DOUBLE,    BSON_TYPE_UTF8,       BSON_TYPE_DOCUMENT,   BSON_TYPE_ARRAY,
    BSON_TYPE_BINARY,    BSON_TYPE_UNDEFINED,  BSON_TYPE_OID,        BSON_TYPE_BOOL,
    BSON_TYPE_DATE_TIME, BSON_TYPE_NULL,       BSON_TYPE_REGEX,      BSON_TYPE_DBPOINTER,
    BSON_TYPE_CODE,      BSON_TYPE_SYMBOL,     BSON_TYPE_CODEWSCOPE, BSON_TYPE_INT32,
    BSON_TYPE_TIMESTAMP, BSON_TYPE_INT64,      BSON_TYPE_DECIMAL128, BSON_TYPE_MINKEY,
    BSON_TYPE_MAXKEY,
};

struct TypeSet {
  std::bitset<256> types;
  bool all_numbers = false;
  bool empty() const { return types.none() && !all_numbers; }
};

Status AddSingleType(const bson_iter_t* e, TypeSet* set) {
  if (BSON_ITER_HOLDS_UTF8(e)) {
    std::string_view alias = IterUtf8(e);
    if (alias == "number") {
      set->all_numbers = true;
      return Status::OK();
    }
    for (bson_type_t t : kAliasTypes) {
      if (BsonTypeName(t) == alias) {
        set->types.set(static_cast<uint8_t>(t));
        return Status::OK();
      }
    }
    return Status(ErrorCode::kBadValue, "Unknown type name alias: " + std::string(alias));
  }
  if (!IterIsNumber(e)) {
    return Status(ErrorCode::kTypeMismatch, "type must be represented as a number or a string");
  }
  Result<int64_t> code = ParseIntegerElementToLong(e);
  bool valid = code.ok() && (*code == -1 || (*code >= 0 && *code <= 19) || *code == 127);
  if (!valid) {
    return Status(ErrorCode::kBadValue, "Invalid numerical type code: " + NumberToString(e));
  }
  set->types.set(*code == -1 ? static_cast<uint8_t>(BSON_TYPE_MINKEY)
                             : static_cast<uint8_t>(*code));
  return Status::OK();
}

}  // namespace

Result<MatchExpressionPtr> ParseType(const OperatorArgs& args) {
  TypeSet set;
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
  return MatchExpressionPtr(
      std::make_unique<TypeMatchExpression>(args.path, set.types, set.all_numbers));
}

}  // namespace internal
}  // namespace cairn::query
