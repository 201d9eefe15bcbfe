// KeyPattern: an index's key pattern ({a: 1, "b.c": -1}) split into its fields, and the rules
// MongoDB applies to key patterns when an index is created (validateKeyPattern in
// index_key_validate.cpp, v:2 rules): which values are allowed, which field names, which index
// kinds ("plugins": text, hashed, 2dsphere, ...). Also the default index name ("a_1_b.c_-1").
// Immutable after Parse; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::index {

// The kind of index a key pattern asks for (MongoDB's IndexNames). Only kBtree has a key
// generator today; the others are recognised so createIndexes can refuse them precisely, and so
// later kinds (text, TTL's date keys) slot in beside the btree generator.
enum class IndexKind { kBtree, kText, kHashed, k2d, k2dsphere, kWildcard, kColumnstore };

// MongoDB's limit on compound index fields (Location13103 "too many compound keys").
inline constexpr uint32_t kMaxKeyPatternFields = 32;

// One field of a key pattern.
struct KeyField {
  std::string path;                  // "a.b"
  std::vector<std::string> parts;    // {"a", "b"}
  bool descending = false;           // a negative number in the pattern
  bool has_positional_part = false;  // some component is all digits ("a.0"): may index an array
};

class KeyPattern {
 public:
  // Splits a pattern that ValidateKeyPattern accepted (createIndexes checks it before storing).
  // CannotCreateIndex on a pattern that is not a non-empty document of numbers and strings.
  static Result<KeyPattern> Parse(BsonView pattern);

  const std::vector<KeyField>& fields() const { return fields_; }
  // Per field: descending?  (What key_string's DecodeKey/SplitKey take.)
  const std::vector<bool>& descending() const { return descending_; }
  IndexKind kind() const { return kind_; }
  // The pattern as given.
  BsonView pattern() const {
    return BsonView(reinterpret_cast<const uint8_t*>(bytes_.data()), bytes_.size());
  }

 private:
  std::string bytes_;
  std::vector<KeyField> fields_;
  std::vector<bool> descending_;
  IndexKind kind_ = IndexKind::kBtree;
};

// MongoDB's validateKeyPattern for v:2 indexes: CannotCreateIndex 67 with MongoDB's reasons
// ("Index keys cannot be empty.", "Values in the index key pattern cannot be 0.", "Index key
// contains an illegal field name: field name starts with '$'.", "Unknown index plugin 'x'", ...);
// Location13103 "too many compound keys" past 32 fields.
Status ValidateKeyPattern(BsonView pattern);

// MongoDB's IndexNames::findPluginName: the first string value of the pattern, or "wildcard"
// for a "$**" field met first ("" for a btree pattern of numbers only).
std::string PluginName(BsonView pattern);

// The kind a plugin name names; false for an unknown plugin.
bool KindOfPlugin(std::string_view plugin, IndexKind* kind);

// True for {_id: 1} (MongoDB's isIdIndexPattern: one field "_id" whose value is 1 as an int).
bool IsIdIndexPattern(BsonView pattern);

// The name drivers and shells give an index: each field's name and value joined by "_"
// ({a: 1, "b.c": -1} → "a_1_b.c_-1", {t: "text"} → "t_text").
std::string DefaultIndexName(BsonView pattern);

}  // namespace cairn::index
