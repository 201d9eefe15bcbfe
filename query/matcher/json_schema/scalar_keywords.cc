// $jsonSchema's type and scalar keywords: type / bsonType, pattern, maxLength / minLength
// (count_keywords.cc), multipleOf (exact decimal arithmetic, as MongoDB's Decimal128 modulo),
// maximum / minimum with exclusiveMaximum / exclusiveMinimum. String keywords only constrain
// strings and number keywords only numbers; other values pass.
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "query/matcher/json_schema/keywords.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query::json_schema {

namespace {

// ---- type / bsonType ----

class TypeKeyword final : public Keyword {
 public:
  TypeKeyword(const bson_iter_t* spec, MatcherTypeSet types)
      : Keyword(IterKey(spec), spec), types_(types) {}
  bool Validate(const SchemaValue& value, Status*) const override {
    return types_.Has(value.type());
  }

 private:
  MatcherTypeSet types_;
};

// MongoDB's JSONSchemaParser::parseTypeSet: names are checked in the order written, then
// resolved in sorted order.
Result<MatcherTypeSet> ParseTypeSet(const bson_iter_t* spec, internal::TypeAliases aliases) {
  std::string_view keyword = IterKey(spec);
  constexpr std::string_view kInteger = "integer";
  auto integer_error = [] {
    return Status(ErrorCode::kFailedToParse,
                  "$jsonSchema type 'integer' is not currently supported.");
  };
  std::set<std::string_view> names;
  if (BSON_ITER_HOLDS_UTF8(spec)) {
    if (IterUtf8(spec) == kInteger) return integer_error();
    names.insert(IterUtf8(spec));
  } else if (BSON_ITER_HOLDS_ARRAY(spec)) {
    bson_iter_t it;
    bson_iter_recurse(spec, &it);
    while (bson_iter_next(&it)) {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        return KeywordError(ErrorCode::kTypeMismatch, keyword, "array elements must be strings");
      }
      std::string_view name = IterUtf8(&it);
      if (name == kInteger) return integer_error();
      if (!names.insert(name).second) {
        return KeywordError(ErrorCode::kFailedToParse, keyword,
                            "has duplicate value: " + std::string(name));
      }
    }
  } else {
    return KeywordError(ErrorCode::kTypeMismatch, keyword,
                        "must be either a string or an array of strings");
  }
  MatcherTypeSet types;
  for (std::string_view name : names) {
    CAIRN_RETURN_IF_ERROR(internal::AddTypeAlias(name, aliases, &types));
  }
  if (types.empty()) {
    return KeywordError(ErrorCode::kFailedToParse, keyword, "must name at least one type");
  }
  return types;
}

// ---- pattern ----

class PatternKeyword final : public Keyword {
 public:
  PatternKeyword(const bson_iter_t* spec, std::unique_ptr<RegexMatchExpression> regex)
      : Keyword("pattern", spec), regex_(std::move(regex)) {}
  bool Validate(const SchemaValue& value, Status* error) const override {
    // MatchesSingleElement answers true for a failed search too: *error tells.
    return value.type() != BSON_TYPE_UTF8 ||
           (regex_->MatchesSingleElement(value.element(), error) && error->ok());
  }

 private:
  std::unique_ptr<RegexMatchExpression> regex_;
};

// ---- multipleOf ----

// A number as a decimal: coefficient × 10^exponent, the way MongoDB's numberDecimal() sees it
// (doubles rounded to 15 significant digits).
struct Decimal {
  bool nan = false;
  bool infinite = false;
  bool negative = false;
  unsigned __int128 coefficient = 0;
  int exponent = 0;
};

// Digits with an optional '.', then an optional exponent ("1.25E+3", "0.001", "7").
bool ParseDecimalText(const char* text, Decimal* out) {
  if (*text == '-') {
    out->negative = true;
    ++text;
  }
  if (*text == 'N') return out->nan = true;
  if (*text == 'I' || *text == 'i') return out->infinite = true;
  int fraction_digits = 0;
  bool in_fraction = false;
  for (; *text != '\0' && *text != 'E' && *text != 'e'; ++text) {
    if (*text == '.') {
      in_fraction = true;
      continue;
    }
    out->coefficient = out->coefficient * 10 + static_cast<unsigned>(*text - '0');
    if (in_fraction) ++fraction_digits;
  }
  int exponent = 0;
  if (*text != '\0') exponent = std::atoi(text + 1);
  out->exponent = exponent - fraction_digits;
  return true;
}

bool ToDecimal(const bson_iter_t* value, Decimal* out) {
  switch (bson_iter_type(value)) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64: {
      int64_t n = BSON_ITER_HOLDS_INT32(value) ? bson_iter_int32(value) : bson_iter_int64(value);
      out->negative = n < 0;
      out->coefficient = n < 0 ? uint64_t{0} - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
      return true;
    }
    case BSON_TYPE_DOUBLE: {
      double d = bson_iter_double(value);
      if (std::isnan(d)) return out->nan = true;
      out->negative = std::signbit(d);
      if (std::isinf(d)) return out->infinite = true;
      char text[40];
      std::snprintf(text, sizeof text, "%.14e", std::fabs(d));
      return ParseDecimalText(text, out);
    }
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t dec;
      bson_iter_decimal128(value, &dec);
      char text[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&dec, text);
      return ParseDecimalText(text, out);
    }
    default:
      return false;
  }
}

// value mod divisor == 0, exactly.
bool IsMultiple(const Decimal& value, const Decimal& divisor) {
  if (value.nan || divisor.nan || value.infinite) return false;
  if (divisor.infinite || value.coefficient == 0) return value.coefficient == 0;
  if (divisor.coefficient == 0) return false;
  if (value.exponent >= divisor.exponent) {
    // (c × 10^k) mod d, one decimal digit at a time: no intermediate exceeds 10 × d < 2^117.
    unsigned __int128 r = value.coefficient % divisor.coefficient;
    for (int k = value.exponent - divisor.exponent; k > 0 && r != 0; --k) {
      r = r * 10 % divisor.coefficient;
    }
    return r == 0;
  }
  // The divisor scaled to the value's exponent; once it exceeds any coefficient the remainder is
  // the (non-zero) value itself.
  unsigned __int128 scaled = divisor.coefficient;
  constexpr unsigned __int128 kLimit = ~static_cast<unsigned __int128>(0) / 10;
  for (int k = divisor.exponent - value.exponent; k > 0; --k) {
    if (scaled > kLimit) return false;
    scaled *= 10;
  }
  return value.coefficient % scaled == 0;
}

class MultipleOfKeyword final : public Keyword {
 public:
  MultipleOfKeyword(const bson_iter_t* spec, Decimal divisor)
      : Keyword("multipleOf", spec), divisor_(divisor) {}
  bool Validate(const SchemaValue& value, Status*) const override {
    Decimal dividend;
    if (value.element() == nullptr || !ToDecimal(value.element(), &dividend)) return true;
    return IsMultiple(dividend, divisor_);
  }

 private:
  Decimal divisor_;
};

// ---- maximum / minimum ----

class BoundKeyword final : public Keyword {
 public:
  BoundKeyword(const bson_iter_t* spec, MatchKind comparison)
      : Keyword(IterKey(spec), spec), comparison_(comparison, "", *spec) {}
  bool Validate(const SchemaValue& value, Status* error) const override {
    if (value.element() == nullptr || !IterIsNumber(value.element())) return true;
    return comparison_.MatchesSingleElement(value.element(), error);  // cannot fail
  }

 private:
  ComparisonMatchExpression comparison_;  // numbers by value, NaN as the filter treats it
};

Status ParseBound(const KeywordMap& map, KeywordId bound_id, KeywordId exclusive_id,
                  std::string_view bound, std::string_view exclusive, MatchKind inclusive_kind,
                  MatchKind exclusive_kind, SchemaContext context, Schema* schema) {
  bson_iter_t spec, flag;
  if (!map.Get(bound_id, &spec)) {
    if (map.has(exclusive_id)) {
      return KeywordError(ErrorCode::kFailedToParse, bound,
                          "must be a present if " + std::string(exclusive) + " is present");
    }
    return Status::OK();
  }
  bool is_exclusive = false;
  if (map.Get(exclusive_id, &flag)) {
    if (!BSON_ITER_HOLDS_BOOL(&flag)) {
      return KeywordError(ErrorCode::kTypeMismatch, exclusive, "must be a boolean");
    }
    is_exclusive = bson_iter_bool(&flag);
  }
  if (!IterIsNumber(&spec))
    return KeywordError(ErrorCode::kTypeMismatch, bound, "must be a number");
  if (context.top_level) return Status::OK();  // the document is never a number
  schema->Add(
      std::make_unique<BoundKeyword>(&spec, is_exclusive ? exclusive_kind : inclusive_kind));
  return Status::OK();
}

}  // namespace

Result<KeywordPtr> ParseTypeKeyword(const KeywordMap& map) {
  bson_iter_t spec;
  internal::TypeAliases aliases;
  if (map.Get(KeywordId::kType, &spec)) {
    aliases = internal::TypeAliases::kJsonSchema;
  } else if (map.Get(KeywordId::kBsonType, &spec)) {
    aliases = internal::TypeAliases::kBson;
  } else {
    return KeywordPtr();
  }
  CAIRN_ASSIGN_OR_RETURN(MatcherTypeSet types, ParseTypeSet(&spec, aliases));
  return KeywordPtr(std::make_unique<TypeKeyword>(&spec, types));
}

Status ParseScalarKeywords(const KeywordMap& map, SchemaContext context, Schema* schema) {
  bson_iter_t spec;
  if (map.Get(KeywordId::kPattern, &spec)) {
    if (!BSON_ITER_HOLDS_UTF8(&spec)) {
      return KeywordError(ErrorCode::kTypeMismatch, "pattern", "must be a string");
    }
    if (!context.top_level) {
      // JSON Schema patterns take no flags.
      CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<RegexMatchExpression> regex,
                             internal::MakeRegex("", IterUtf8(&spec), ""));
      schema->Add(std::make_unique<PatternKeyword>(&spec, std::move(regex)));
    }
  }
  CAIRN_RETURN_IF_ERROR(
      ParseCountKeyword(map, KeywordId::kMaxLength, BSON_TYPE_UTF8, true, context, schema));
  CAIRN_RETURN_IF_ERROR(
      ParseCountKeyword(map, KeywordId::kMinLength, BSON_TYPE_UTF8, false, context, schema));
  if (map.Get(KeywordId::kMultipleOf, &spec)) {
    Decimal divisor;
    if (!ToDecimal(&spec, &divisor)) {
      return KeywordError(ErrorCode::kTypeMismatch, "multipleOf", "must be a number");
    }
    if (!divisor.nan && (divisor.negative || (!divisor.infinite && divisor.coefficient == 0))) {
      return KeywordError(ErrorCode::kFailedToParse, "multipleOf", "must have a positive value");
    }
    if (!context.top_level) schema->Add(std::make_unique<MultipleOfKeyword>(&spec, divisor));
  }
  CAIRN_RETURN_IF_ERROR(ParseBound(map, KeywordId::kMaximum, KeywordId::kExclusiveMaximum,
                                   "maximum", "exclusiveMaximum", MatchKind::kLte, MatchKind::kLt,
                                   context, schema));
  return ParseBound(map, KeywordId::kMinimum, KeywordId::kExclusiveMinimum, "minimum",
                    "exclusiveMinimum", MatchKind::kGte, MatchKind::kGt, context, schema);
}

}  // namespace cairn::query::json_schema
