// OwnedValue: one BSON value copied into its own buffer (a one-field document {"": v}) or
// missing — what $group keeps across input documents (group keys, accumulator state). Values
// compare with MongoDB's value comparison (common/bson_compare.h). Not thread-safe; movable.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <bson/bson.h>

#include "common/string_comparator.h"

namespace cairn::query {

class OwnedValue {
 public:
  OwnedValue() = default;                         // missing
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

// <0, 0, >0 by MongoDB's value comparison (1 == 1.0 == NumberLong(1)), strings under `strings`
// (a collation; nullptr: binary).
int CompareOwned(const OwnedValue& a, const bson_iter_t* b,
                 const StringComparator* strings = nullptr);

// Orders OwnedValue pointers — and probes them by a bson_iter_t, without copying — by MongoDB's
// value comparison: the transparent comparator of sets and maps keyed by stored values.
struct OwnedValueLess {
  using is_transparent = void;
  // The collation strings compare under (values equal under it are one key). Default: binary.
  const StringComparator* strings = nullptr;
  bool operator()(const OwnedValue* a, const OwnedValue* b) const {
    bson_iter_t it;
    b->Iter(&it);
    return CompareOwned(*a, &it, strings) < 0;
  }
  bool operator()(const OwnedValue* a, const bson_iter_t* b) const {
    return CompareOwned(*a, b, strings) < 0;
  }
  bool operator()(const bson_iter_t* a, const OwnedValue* b) const {
    return CompareOwned(*b, a, strings) > 0;
  }
};

// Appends `count` stored values as an array under `key`; `at(i)` gives the i-th value.
template <typename At>
void AppendValueArray(bson_t* out, std::string_view key, size_t count, At at) {
  bson_t array;
  bson_append_array_begin(out, key.data(), static_cast<int>(key.size()), &array);
  for (size_t i = 0; i < count; ++i) {
    char buf[16];
    const char* index;
    size_t len = bson_uint32_to_string(static_cast<uint32_t>(i), &index, buf, sizeof buf);
    at(i).AppendTo(&array, std::string_view(index, len));
  }
  bson_append_array_end(out, &array);
}

}  // namespace cairn::query
