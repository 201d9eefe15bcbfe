// OwnedValue: one BSON value copied into its own buffer (a one-field document {"": v}) or
// missing — what $group keeps across input documents (group keys, accumulator state). Values
// compare with MongoDB's value comparison (common/bson_compare.h). Not thread-safe; movable.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <bson/bson.h>

namespace cairn::query {

class OwnedValue {
 public:
  OwnedValue() = default;  // missing
  explicit OwnedValue(const bson_iter_t* value);  // copies

  bool missing() const { return bytes_.empty(); }

  // Positions *it on the value; false when missing.
  bool Iter(bson_iter_t* it) const;

  // Appends the value under `key`; null when missing.
  void AppendTo(bson_t* out, std::string_view key) const;

  // Bytes held, for memory limits.
  size_t memory_bytes() const { return sizeof(*this) + bytes_.capacity(); }

 private:
  std::string bytes_;  // BSON document {"": value}, empty when missing
};

// The null value, for "missing evaluates to null" rules.
const bson_iter_t* NullValue();

// <0, 0, >0 by MongoDB's value comparison (1 == 1.0 == NumberLong(1)).
int CompareOwned(const OwnedValue& a, const bson_iter_t* b);

}  // namespace cairn::query
