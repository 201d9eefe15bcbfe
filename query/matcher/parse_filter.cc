// Filter BSON → MatchExpression tree, following MongoDB's expression_parser.cpp: the operator
// tables (which operators exist, which are implemented, which only MongoDB knows), the
// document / operator-document walk, and the helpers the operator families share. The
// operators themselves are parsed in ops/<family>.cc.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "common/bson_compare.h"
#include "query/expression/expression.h"
#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {
namespace internal {
namespace {

// ---- Top-level ("pathless") operators ----

Result<MatchExpressionPtr> ParseComment(const bson_iter_t*, FilterParseState) {
  return MatchExpressionPtr();  // no effect on matching
}

// {$id: ...}, {$ref: ...}, {$db: ...}: DBRef fields compared for equality.
Result<MatchExpressionPtr> ParseDbRefField(const bson_iter_t* op, FilterParseState state) {
  return MakeEquality(IterKey(op), op, state);
}

struct PathlessOperator {
  std::string_view name;
  PathlessParser parse;  // nullptr: MongoDB operator not supported yet
  bool top_level_only;   // "can only be applied to the top-level document"
};

// Sorted by name. MongoDB's pathlessOperatorMap.
constexpr PathlessOperator kPathlessOperators[] = {
    {"$_internalSchemaAllowedProperties", nullptr, false},
    {"$_internalSchemaCond", nullptr, false},
    {"$_internalSchemaMaxProperties", nullptr, false},
    {"$_internalSchemaMinProperties", nullptr, false},
    {"$_internalSchemaRootDocEq", nullptr, false},
    {"$_internalSchemaXor", nullptr, false},
    {"$alwaysFalse", ParseAlwaysFalse, false},
    {"$alwaysTrue", ParseAlwaysTrue, false},
    {"$and", ParseAnd, false},
    {"$comment", ParseComment, false},
    {"$db", ParseDbRefField, false},
    {"$expr", ParseExpr, true},
    {"$id", ParseDbRefField, false},
    {"$jsonSchema", ParseJsonSchema, false},
    {"$nor", ParseNor, false},
    {"$or", ParseOr, false},
    {"$ref", ParseDbRefField, false},
    {"$sampleRate", nullptr, true},
    {"$text", ParseText, true},
    {"$where", ParseWhere, true},
};

const PathlessOperator* FindPathless(std::string_view name) {
  for (const auto& op : kPathlessOperators) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

// ---- Operators on a path ----

struct PathOperator {
  std::string_view name;
  OperatorParser parse;  // nullptr: MongoDB operator not supported yet
};

// Sorted by name. MongoDB's queryOperatorMap (plus $eq; $not is handled before the lookup).
constexpr PathOperator kPathOperators[] = {
    {"$all", ParseAll},
    {"$bitsAllClear", ParseBitsAllClear},
    {"$bitsAllSet", ParseBitsAllSet},
    {"$bitsAnyClear", ParseBitsAnyClear},
    {"$bitsAnySet", ParseBitsAnySet},
    {"$elemMatch", ParseElemMatch},
    {"$eq", ParseEq},
    {"$exists", ParseExists},
    {"$geoIntersects", nullptr},
    {"$geoNear", nullptr},
    {"$geoWithin", nullptr},
    {"$gt", ParseGt},
    {"$gte", ParseGte},
    {"$in", ParseIn},
    {"$lt", ParseLt},
    {"$lte", ParseLte},
    {"$mod", ParseMod},
    {"$ne", ParseNe},
    {"$near", nullptr},
    {"$nearSphere", nullptr},
    {"$nin", ParseNin},
    {"$options", ParseOptions},
    {"$regex", ParseRegex},
    {"$size", ParseSize},
    {"$type", ParseType},
    {"$within", nullptr},
};

const PathOperator* FindPathOperator(std::string_view name) {
  for (const auto& op : kPathOperators) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

// One operator of an operator document (MongoDB's parseSubField).
Result<MatchExpressionPtr> ParseOperator(const OperatorArgs& args) {
  std::string_view name = IterKey(args.op);
  if (name == "$not") return ParseNot(args);
  const PathOperator* op = FindPathOperator(name);
  if (op == nullptr) {
    if (name == "$where") {
      return Status(ErrorCode::kBadValue, "$where cannot be applied to a field");
    }
    return Status(ErrorCode::kBadValue, "unknown operator: " + std::string(name));
  }
  if (op->parse == nullptr) return NotSupportedYet(name);
  return op->parse(args);
}

std::string FormatNumber(double d) {
  char buf[64];
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

}  // namespace

const StringComparator* FilterParseState::collator() const {
  return context != nullptr ? context->collator() : nullptr;
}

Status NotSupportedYet(std::string_view op) {
  return Status(ErrorCode::kBadValue, "operator " + std::string(op) + " is not supported yet");
}

std::string ElementToString(const bson_iter_t* element) {
  std::string out(IterKey(element));
  out += ": ";
  out += ValueToShellString(element);
  return out;
}

std::string NumberToString(const bson_iter_t* element) {
  double d = 0;
  if (BSON_ITER_HOLDS_INT32(element)) return std::to_string(bson_iter_int32(element));
  if (BSON_ITER_HOLDS_INT64(element)) return std::to_string(bson_iter_int64(element));
  IterAsDouble(element, &d);
  return FormatNumber(d);
}

Result<int64_t> ParseIntegerElementToLong(const bson_iter_t* element) {
  auto fail = [&](std::string_view what) {
    return Status(ErrorCode::kFailedToParse, std::string(what) + ElementToString(element));
  };
  switch (bson_iter_type(element)) {
    case BSON_TYPE_INT32:
      return static_cast<int64_t>(bson_iter_int32(element));
    case BSON_TYPE_INT64:
      return bson_iter_int64(element);
    case BSON_TYPE_DOUBLE: {
      double d = bson_iter_double(element);
      if (std::isnan(d)) return fail("Expected an integer, but found NaN in: ");
      if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
        return fail("Cannot represent as a 64-bit integer: ");
      }
      if (d != static_cast<double>(static_cast<int64_t>(d))) return fail("Expected an integer: ");
      return static_cast<int64_t>(d);
    }
    case BSON_TYPE_DECIMAL128: {
      double d = 0;
      IterAsDouble(element, &d);
      if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0 ||
          d != std::trunc(d)) {
        return fail("Cannot represent as a 64-bit integer: ");
      }
      return static_cast<int64_t>(d);
    }
    default:
      return fail("Expected a number in: ");
  }
}

Result<int> ParseNonNegativeInt(const bson_iter_t* element) {
  CAIRN_ASSIGN_OR_RETURN(int64_t value, ParseIntegerElementToLong(element));
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot represent " + ElementToString(element) + " in an int");
  }
  if (value < 0) {
    return Status(ErrorCode::kFailedToParse,
                  "Expected a non-negative number in: " + ElementToString(element));
  }
  return static_cast<int>(value);
}

Result<int64_t> ParseNonNegativeLong(const bson_iter_t* element) {
  CAIRN_ASSIGN_OR_RETURN(int64_t value, ParseIntegerElementToLong(element));
  if (value < 0) {
    return Status(ErrorCode::kFailedToParse,
                  "Expected a non-negative number in: " + ElementToString(element));
  }
  return value;
}

bool TrueValue(const bson_iter_t* element) {
  switch (bson_iter_type(element)) {
    case BSON_TYPE_EOD:
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
      return false;
    case BSON_TYPE_BOOL:
      return bson_iter_bool(element);
    case BSON_TYPE_INT32:
      return bson_iter_int32(element) != 0;
    case BSON_TYPE_INT64:
      return bson_iter_int64(element) != 0;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128: {
      double d = 0;
      IterAsDouble(element, &d);
      return d != 0;  // NaN is true
    }
    default:
      return true;
  }
}

bool IsExpressionDocument(const bson_iter_t* value, bool allow_incomplete_dbref) {
  if (!BSON_ITER_HOLDS_DOCUMENT(value)) return false;
  bson_iter_t it;
  if (!IterDocument(value).Init(&it) || !bson_iter_next(&it)) return false;
  if (IterKey(&it).empty() || IterKey(&it)[0] != '$') return false;
  bool has_ref = false, has_id = false, has_db = false;
  do {
    std::string_view key = IterKey(&it);
    if (key == "$ref")
      has_ref = true;
    else if (key == "$id")
      has_id = true;
    else if (key == "$db")
      has_db = true;
  } while (!(has_ref && has_id) && bson_iter_next(&it));
  bool dbref = allow_incomplete_dbref ? (has_ref || has_id || has_db) : (has_ref && has_id);
  return !dbref;
}

bool IsPathlessOperator(std::string_view name) { return FindPathless(name) != nullptr; }

bool IsPathOperator(std::string_view name) { return FindPathOperator(name) != nullptr; }

Status ParseOperatorDocument(std::string_view path, BsonView operators, ListMatchExpression* root,
                             FilterParseState state) {
  bson_iter_t it;
  if (!operators.Init(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    OperatorArgs args{path, &it, operators, state};
    CAIRN_ASSIGN_OR_RETURN(MatchExpressionPtr node, ParseOperator(args));
    if (node) root->Add(std::move(node));
  }
  return Status::OK();
}

Result<MatchExpressionPtr> ParseDocument(BsonView filter, FilterParseState state) {
  auto root = std::make_unique<ListMatchExpression>(MatchKind::kAnd);
  const FilterParseState next =
      state.At(state.level == ParseLevel::kPredicateTopLevel ? ParseLevel::kUserDocumentTopLevel
                                                             : state.level);
  bson_iter_t it;
  if (!filter.Init(&it)) return Status(ErrorCode::kBadValue, "invalid filter document");
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (!key.empty() && key[0] == '$') {
      const PathlessOperator* op = FindPathless(key);
      if (op == nullptr) {
        std::string hint =
            key == "$not"
                ? ". If you are trying to negate an entire expression, use $nor."
                : ". If you have a field name that starts with a '$' symbol, consider using "
                  "$getField or $setField.";
        return Status(ErrorCode::kBadValue,
                      "unknown top level operator: " + std::string(key) + hint);
      }
      if (op->top_level_only && state.level == ParseLevel::kUserSubDocument) {
        return Status(ErrorCode::kBadValue,
                      std::string(key) + " can only be applied to the top-level document");
      }
      if (op->parse == nullptr) return NotSupportedYet(key);
      CAIRN_ASSIGN_OR_RETURN(MatchExpressionPtr node, op->parse(&it, state));
      if (node) root->Add(std::move(node));
      continue;
    }
    if (IsExpressionDocument(&it, false)) {
      CAIRN_RETURN_IF_ERROR(ParseOperatorDocument(key, IterDocument(&it), root.get(), next));
      continue;
    }
    if (BSON_ITER_HOLDS_REGEX(&it)) {
      CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<RegexMatchExpression> regex, MakeRegex(key, &it));
      root->Add(std::move(regex));
      continue;
    }
    CAIRN_ASSIGN_OR_RETURN(MatchExpressionPtr eq, MakeEquality(key, &it, state));
    root->Add(std::move(eq));
  }
  if (root->num_children() == 1) {
    std::vector<MatchExpressionPtr> children = root->ReleaseChildren();
    return std::move(children[0]);
  }
  return MatchExpressionPtr(std::move(root));
}

}  // namespace internal

Result<MatchExpressionPtr> ParseFilter(BsonView filter,
                                       const std::shared_ptr<const ExpressionContext>& context) {
  return internal::ParseDocument(filter, {internal::ParseLevel::kPredicateTopLevel, context});
}

}  // namespace cairn::query
