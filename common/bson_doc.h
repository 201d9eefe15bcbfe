// BSON helpers over libbson: BsonView (a non-owning view of document bytes, the currency of
// the read path), BsonDoc (an owning document for results and replies), validation of untrusted
// bytes, and small accessors. Nothing here hand-encodes BSON: libbson builds and parses it.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace cairn {

class Status;

// BSON size limits (src/mongo/bson/util/builder.h, src/mongo/rpc/message.h, write_ops).
inline constexpr int32_t kMaxBsonObjectSize = 16 * 1024 * 1024;  // user documents
inline constexpr int32_t kMaxInternalBsonObjectSize = kMaxBsonObjectSize + 16 * 1024;
inline constexpr int32_t kMaxMessageSizeBytes = 48'000'000;
inline constexpr int32_t kMaxWriteBatchSize = 100'000;

// A view of one BSON document's bytes; does not own them. Valid while the buffer lives.
// Cheap to copy. Only construct views over bytes that were validated (ValidateBson in
// common/bson_validate.h) or that libbson built.
class BsonView {
 public:
  BsonView();  // the empty document {}
  BsonView(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  explicit BsonView(const bson_t* doc) : data_(bson_get_data(doc)), size_(doc->len) {}

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ <= 5; }

  // Positions `it` before the first element.
  bool Init(bson_iter_t* it) const { return bson_iter_init_from_data(it, data_, size_); }
  // Finds the top-level field `key` (exact, case-sensitive).
  bool Find(std::string_view key, bson_iter_t* it) const;
  // Number of top-level fields.
  uint32_t CountKeys() const;
  // A read-only bson_t over the bytes (bson_init_static), for libbson APIs that want one.
  bson_t AsBson() const;

  // Relaxed Extended JSON (for logs and diagnostics, not the wire).
  std::string ToJson() const;

 private:
  const uint8_t* data_;
  size_t size_;
};

// An owning BSON document. Move-only; the underlying bson_t is heap allocated so moves are
// pointer swaps.
class BsonDoc {
 public:
  BsonDoc();
  explicit BsonDoc(BsonView view);                 // copies the bytes
  static BsonDoc FromJson(std::string_view json);  // aborts on malformed JSON: tests and constants
  BsonDoc(BsonDoc&& other) noexcept : doc_(other.doc_) { other.doc_ = nullptr; }
  BsonDoc& operator=(BsonDoc&& other) noexcept;
  BsonDoc(const BsonDoc&) = delete;
  BsonDoc& operator=(const BsonDoc&) = delete;
  ~BsonDoc();

  BsonDoc Clone() const { return BsonDoc(view()); }

  bson_t* get() { return doc_; }
  const bson_t* get() const { return doc_; }
  BsonView view() const { return BsonView(doc_); }
  std::string ToJson() const { return view().ToJson(); }

 private:
  bson_t* doc_;
};

// Accessors over a positioned iterator.
inline std::string_view IterKey(const bson_iter_t* it) {
  return std::string_view(bson_iter_key(it), bson_iter_key_len(it));
}
std::string_view IterUtf8(const bson_iter_t* it);  // requires BSON_TYPE_UTF8
BsonView IterDocument(const bson_iter_t* it);      // requires DOCUMENT or ARRAY
bool IterIsNumber(const bson_iter_t* it);          // int32, int64, double, decimal128
// The value as a double for int32/int64/double/decimal128 (decimal approximated); false otherwise.
bool IterAsDouble(const bson_iter_t* it, double* out);
// The value as an exact int64 when it is an integral int32/int64/double in range; false otherwise.
bool IterAsInt64(const bson_iter_t* it, int64_t* out);
// MongoDB's type name, as $type and error messages print it ("string", "objectId", "int", ...).
std::string_view BsonTypeName(bson_type_t type);

// Appends the iterator's value under `key` (bson_append_iter with an explicit key length).
bool AppendIter(bson_t* out, std::string_view key, const bson_iter_t* it);
inline bool AppendUtf8(bson_t* out, std::string_view key, std::string_view value) {
  return bson_append_utf8(out, key.data(), static_cast<int>(key.size()), value.data(),
                          static_cast<int>(value.size()));
}
// bson_append_int64 for a possibly small count: int32 when it fits (as MongoDB replies "n").
inline bool AppendCount(bson_t* out, const char* key, int64_t value) {
  if (value >= INT32_MIN && value <= INT32_MAX) {
    return BSON_APPEND_INT32(out, key, static_cast<int32_t>(value));
  }
  return BSON_APPEND_INT64(out, key, value);
}

// MongoDB's shell-style rendering of a document for messages, e.g. `{ _id: 1, a: "x" }`
// (the form E11000 dup key messages use).
std::string ToShellString(BsonView doc);
// The rendering of one value in the same style (e.g. `ObjectId('...')`, `"x"`, `1.5`).
std::string ValueToShellString(const bson_iter_t* it);

}  // namespace cairn
