// CollationSpec (collation_spec.h): the collation document's field rules, as MongoDB's generated
// IDL parser for the `Collation` struct applies them (errors name the field "collation.<name>"),
// and the normalised form.
#include "query/collation/collation_spec.h"

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace cairn::query {

namespace {

std::string FieldPath(std::string_view name) { return "collation." + std::string(name); }

Status WrongType(const bson_iter_t* it, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '" + FieldPath(IterKey(it)) +
                                              "' is the wrong type '" +
                                              std::string(BsonTypeName(bson_iter_type(it))) +
                                              "', expected type '" + std::string(expected) + "'");
}

Status BadEnumValue(std::string_view name, std::string_view value) {
  return Status(ErrorCode::kBadValue, "Enumeration value '" + std::string(value) + "' for field '" +
                                          FieldPath(name) + "' is not a valid value.");
}

// The IDL's checkAndAssertType: true when `it` has `type`; false (the field keeps its default)
// for null and undefined; TypeMismatch otherwise.
Result<bool> CheckType(const bson_iter_t* it, bson_type_t type, std::string_view type_name) {
  const bson_type_t actual = bson_iter_type(it);
  if (actual == type) return true;
  if (actual == BSON_TYPE_NULL || actual == BSON_TYPE_UNDEFINED) return false;
  return WrongType(it, type_name);
}

// BSONElement::safeNumberLong then a clamp to int (safeNumberInt): NaN is 0, out-of-range values
// saturate, fractions truncate towards zero.
int SafeNumberInt(const bson_iter_t* it) {
  int64_t value = 0;
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
      value = bson_iter_as_int64(it);
      break;
    default: {
      double d = 0;
      IterAsDouble(it, &d);
      if (std::isnan(d)) {
        value = 0;
      } else if (d >= 9223372036854775808.0) {
        value = std::numeric_limits<int64_t>::max();
      } else if (d < -9223372036854775808.0) {
        value = std::numeric_limits<int64_t>::min();
      } else {
        value = static_cast<int64_t>(d);
      }
    }
  }
  if (value > std::numeric_limits<int>::max()) return std::numeric_limits<int>::max();
  if (value < std::numeric_limits<int>::min()) return std::numeric_limits<int>::min();
  return static_cast<int>(value);
}

Status ParseBool(const bson_iter_t* it, bool* out) {
  CAIRN_ASSIGN_OR_RETURN(bool typed, CheckType(it, BSON_TYPE_BOOL, "bool"));
  if (typed) *out = bson_iter_bool(it);
  return Status::OK();
}

// The string values of the enums, in the order of their C++ enumerators (so a value's index is
// its enumerator), as MongoDB's IDL spells them.
constexpr std::array<std::string_view, 3> kCaseFirstNames = {"upper", "lower", "off"};
constexpr std::array<std::string_view, 2> kAlternateNames = {"non-ignorable", "shifted"};
constexpr std::array<std::string_view, 2> kMaxVariableNames = {"punct", "space"};

// A string enum field: sets *out to the enumerator `it` names; null or undefined leave the
// default; another string is MongoDB's BadValue naming the field.
template <typename Enum, size_t N>
Status ParseEnum(const bson_iter_t* it, const std::array<std::string_view, N>& names, Enum* out) {
  CAIRN_ASSIGN_OR_RETURN(bool typed, CheckType(it, BSON_TYPE_UTF8, "string"));
  if (!typed) return Status::OK();
  const std::string_view value = IterUtf8(it);
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == value) {
      *out = static_cast<Enum>(i);
      return Status::OK();
    }
  }
  return BadEnumValue(IterKey(it), value);
}

template <typename Enum, size_t N>
const char* EnumName(const std::array<std::string_view, N>& names, Enum value) {
  return names[static_cast<size_t>(value)].data();  // the literals are NUL-terminated
}

// The IDL struct's fields.
constexpr std::pair<std::string_view, CollationDocument::Field> kFields[] = {
    {"locale", CollationDocument::kLocale},
    {"caseLevel", CollationDocument::kCaseLevel},
    {"caseFirst", CollationDocument::kCaseFirst},
    {"strength", CollationDocument::kStrength},
    {"numericOrdering", CollationDocument::kNumericOrdering},
    {"alternate", CollationDocument::kAlternate},
    {"maxVariable", CollationDocument::kMaxVariable},
    {"normalization", CollationDocument::kNormalization},
    {"backwards", CollationDocument::kBackwards},
    {"version", CollationDocument::kVersion},
};

}  // namespace

Result<CollationDocument> ParseCollationDocument(BsonView spec) {
  CollationDocument doc;
  CollationSpec& values = doc.values;
  bson_iter_t it;
  if (spec.Init(&it)) {
    while (bson_iter_next(&it)) {
      const std::string_view key = IterKey(&it);
      const CollationDocument::Field* found = nullptr;
      for (const auto& [name, field] : kFields) {
        if (name == key) found = &field;
      }
      if (found == nullptr) {
        return Status(ErrorCode::kLocation40415,
                      "BSON field '" + FieldPath(key) + "' is an unknown field.");
      }
      const CollationDocument::Field field = *found;
      if (doc.has(field)) {
        return Status(ErrorCode::kLocation40413,
                      "BSON field '" + FieldPath(key) + "' is a duplicate field");
      }
      doc.present |= field;
      switch (field) {
        case CollationDocument::kLocale: {
          CAIRN_ASSIGN_OR_RETURN(bool typed, CheckType(&it, BSON_TYPE_UTF8, "string"));
          if (typed) values.locale = std::string(IterUtf8(&it));
          break;
        }
        case CollationDocument::kCaseLevel:
          CAIRN_RETURN_IF_ERROR(ParseBool(&it, &values.case_level));
          break;
        case CollationDocument::kCaseFirst:
          CAIRN_RETURN_IF_ERROR(ParseEnum(&it, kCaseFirstNames, &values.case_first));
          break;
        case CollationDocument::kStrength: {
          const bson_type_t type = bson_iter_type(&it);
          if (type == BSON_TYPE_NULL || type == BSON_TYPE_UNDEFINED) break;
          if (!IterIsNumber(&it)) {
            return Status(ErrorCode::kTypeMismatch,
                          "BSON field '" + FieldPath(key) + "' is the wrong type '" +
                              std::string(BsonTypeName(type)) +
                              "', expected types '[long, int, decimal, double]'");
          }
          const int strength = SafeNumberInt(&it);
          if (strength < 0 || strength > 5) {
            return Status(ErrorCode::kLocation51024,
                          "BSON field '" + FieldPath(key) + "' value must be " +
                              (strength < 0 ? ">= 0" : "<= 5") + ", actual value '" +
                              std::to_string(strength) + "'");
          }
          values.strength = strength;
          break;
        }
        case CollationDocument::kNumericOrdering:
          CAIRN_RETURN_IF_ERROR(ParseBool(&it, &values.numeric_ordering));
          break;
        case CollationDocument::kAlternate:
          CAIRN_RETURN_IF_ERROR(ParseEnum(&it, kAlternateNames, &values.alternate));
          break;
        case CollationDocument::kMaxVariable:
          CAIRN_RETURN_IF_ERROR(ParseEnum(&it, kMaxVariableNames, &values.max_variable));
          break;
        case CollationDocument::kNormalization:
          CAIRN_RETURN_IF_ERROR(ParseBool(&it, &values.normalization));
          break;
        case CollationDocument::kBackwards:
          // optionalBool: null and undefined are refused too (no default to fall back on).
          if (!BSON_ITER_HOLDS_BOOL(&it)) return WrongType(&it, "bool");
          values.backwards = bson_iter_bool(&it);
          break;
        case CollationDocument::kVersion: {
          // Null leaves the default (this server's version), as if absent.
          CAIRN_ASSIGN_OR_RETURN(bool typed, CheckType(&it, BSON_TYPE_UTF8, "string"));
          if (typed) values.version = std::string(IterUtf8(&it));
          break;
        }
      }
    }
  }
  if (!doc.has(CollationDocument::kLocale)) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'collation.locale' is missing but a required field");
  }
  return doc;
}

void CollationSpec::AppendFields(bson_t* out) const {
  AppendUtf8(out, "locale", locale);
  BSON_APPEND_BOOL(out, "caseLevel", case_level);
  BSON_APPEND_UTF8(out, "caseFirst", EnumName(kCaseFirstNames, case_first));
  BSON_APPEND_INT32(out, "strength", strength);
  BSON_APPEND_BOOL(out, "numericOrdering", numeric_ordering);
  BSON_APPEND_UTF8(out, "alternate", EnumName(kAlternateNames, alternate));
  BSON_APPEND_UTF8(out, "maxVariable", EnumName(kMaxVariableNames, max_variable));
  BSON_APPEND_BOOL(out, "normalization", normalization);
  BSON_APPEND_BOOL(out, "backwards", backwards);
  AppendUtf8(out, "version", version);
}

BsonDoc CollationSpec::ToBson() const {
  BsonDoc doc;
  AppendFields(doc.get());
  return doc;
}

}  // namespace cairn::query
