// BsonElement: one element of a BSON buffer held by position (buffer, length, element offset,
// key length) instead of as a bson_iter_t. libbson declares bson_iter_t 128-byte aligned, so an
// object on the heap that holds one is an over-aligned allocation (glibc's slow memalign, ~3k
// instructions per find measured) and, inside std containers, misaligned (UBSan). A
// BsonElement has plain alignment and turns back into a positioned iterator on demand. Valid
// while the buffer lives; cheap to copy.
#pragma once

#include <bson/bson.h>

#include <cstdint>

namespace cairn {

class BsonElement {
 public:
  BsonElement() = default;
  // The element `it` is positioned on.
  explicit BsonElement(const bson_iter_t* it)
      : data_(it->raw), length_(it->len), offset_(it->off), key_length_(bson_iter_key_len(it)) {}

  // An iterator positioned on the element (as if bson_iter_next had just returned it).
  bson_iter_t iter() const {
    bson_iter_t it;
    bson_iter_init_from_data_at_offset(&it, data_, length_, offset_, key_length_);
    return it;
  }

 private:
  const uint8_t* data_ = nullptr;
  uint32_t length_ = 0;
  uint32_t offset_ = 0;
  uint32_t key_length_ = 0;
};

}  // namespace cairn
