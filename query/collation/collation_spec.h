// CollationSpec: a collation's settings (MongoDB's IDL struct `Collation`, basic_types.idl) and
// the parsing of a collation document's fields with MongoDB's rules and errors: unknown field
// 40415, duplicate 40413, missing locale 40414, wrong type 14, strength outside 0..5 51024, bad
// enum value BadValue. What the fields mean for ICU, the locale checks and the locale-dependent
// defaults are the Collator's (collator.h). Plain value type; no ICU here.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <string>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

// The collator version MongoDB 7.0 reports and accepts (its bundled ICU is 57.1). Cairn's ICU is
// newer, but the spec a client reads back or sends must be MongoDB's.
inline constexpr std::string_view kCollationVersion = "57.1";

// Enumerators in the order of MongoDB's IDL values (collation_spec.cc's name tables rely on it).
enum class CaseFirst { kUpper, kLower, kOff };
enum class CollationAlternate { kNonIgnorable, kShifted };
enum class MaxVariable { kPunct, kSpace };

struct CollationSpec {
  std::string locale;  // "simple" is binary comparison (no Collator is made for it)
  bool case_level = false;
  CaseFirst case_first = CaseFirst::kOff;
  int strength = 3;  // 1 primary .. 5 identical
  bool numeric_ordering = false;
  CollationAlternate alternate = CollationAlternate::kNonIgnorable;
  MaxVariable max_variable = MaxVariable::kPunct;
  bool normalization = false;
  bool backwards = false;
  std::string version{kCollationVersion};

  // MongoDB's normalised form: every field, in IDL order (locale, caseLevel, caseFirst,
  // strength, numericOrdering, alternate, maxVariable, normalization, backwards, version), as
  // listIndexes, listCollections and explain print it.
  BsonDoc ToBson() const;
  // The same fields appended to `out`.
  void AppendFields(bson_t* out) const;
};

// A collation document as parsed by MongoDB's IDL struct, before ICU: the values given (the IDL
// defaults for the others) and which fields were present (a null value counts as present with
// the default, as the IDL parser treats it).
struct CollationDocument {
  enum Field : uint32_t {
    kLocale = 1u << 0,
    kCaseLevel = 1u << 1,
    kCaseFirst = 1u << 2,
    kStrength = 1u << 3,
    kNumericOrdering = 1u << 4,
    kAlternate = 1u << 5,
    kMaxVariable = 1u << 6,
    kNormalization = 1u << 7,
    kBackwards = 1u << 8,
    kVersion = 1u << 9,
  };
  CollationSpec values;
  uint32_t present = 0;
  bool has(Field field) const { return (present & field) != 0; }
};

// Collation::parse(IDLParserContext("collation"), spec): field names and types only. A strength
// is any number (truncated towards zero, like safeNumberInt) within 0..5; whether it names a real
// level (1..5) is checked with the ICU settings.
Result<CollationDocument> ParseCollationDocument(BsonView spec);

}  // namespace cairn::query
