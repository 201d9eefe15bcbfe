// Value: the result of evaluating an aggregation expression — one BSON value, or missing (which
// MongoDB keeps distinct from null). A Value does not copy what it reads: a field path or a
// constant evaluates to a view of the element in the input document or in the parsed expression;
// only computed values own bytes. Small computed scalars (numbers, booleans, dates, ObjectIds)
// live inline in the Value; strings, documents and arrays built by an operator live in one shared
// buffer, and the elements read out of such a value share that buffer's ownership, so a Value
// never dangles while any Value into it lives. A view of an input document is valid while that
// document is. Values convert to and from bson_iter_t cheaply (iter(), Element()) and compare
// with common/bson_compare.h. Copying is cheap (at most a reference-count increment); not
// thread-safe to share mutably, safe to read from several threads.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/bson_element.h"
#include "common/status.h"
#include "common/string_comparator.h"

namespace cairn::query {

class Value {
 public:
  Value() = default;  // missing

  // A view of the element `it` is positioned on. The bytes must outlive the Value unless `owner`
  // keeps them alive.
  static Value Element(const bson_iter_t* it, std::shared_ptr<const void> owner = nullptr);

  // A view of a whole document (e.g. $$ROOT), which is not an element of anything: the bytes must
  // outlive the Value unless `owner` keeps them alive.
  static Value DocumentView(BsonView doc, std::shared_ptr<const void> owner = nullptr);

  // Computed scalars, stored inline (no allocation).
  static Value Null();
  static Value Undefined();
  static Value MinKey();
  static Value MaxKey();
  static Value Bool(bool b);
  static Value Int32(int32_t i);
  static Value Int64(int64_t i);
  static Value IntOrLong(int64_t i);  // int32 when it fits (MongoDB's createIntOrLong)
  static Value Double(double d);
  static Value Date(int64_t millis);
  static Value Decimal(const bson_decimal128_t& d);
  static Value Oid(const bson_oid_t& oid);
  static Value Timestamp(uint32_t seconds, uint32_t increment);
  // Computed values that own their bytes.
  static Value String(std::string_view s);
  // Takes the only field of `one_field_doc` ({"": v}, built with libbson) as the value; the
  // document's bytes are copied into a shared buffer.
  static Value FromOneFieldDocument(const bson_t* one_field_doc);
  // A copy of `doc` as an object value.
  static Value Document(BsonView doc);

  bool missing() const { return kind_ == Kind::kMissing; }
  // BSON_TYPE_EOD when missing.
  bson_type_t type() const { return static_cast<bson_type_t>(type_); }
  // Missing, null or undefined: what most operators answer null for.
  bool nullish() const {
    return kind_ == Kind::kMissing || type_ == BSON_TYPE_NULL || type_ == BSON_TYPE_UNDEFINED;
  }
  bool numeric() const;
  bool is_array() const { return type_ == BSON_TYPE_ARRAY; }
  bool is_document() const { return type_ == BSON_TYPE_DOCUMENT; }
  bool is_string() const { return type_ == BSON_TYPE_UTF8; }

  // An iterator positioned on the value (as if bson_iter_next had just returned it). Requires
  // !missing(). Valid while this Value lives (an inline scalar's bytes are inside the Value; a
  // DocumentView is copied once into an element form on first use).
  bson_iter_t iter() const;

  // Typed reads; each requires the matching type().
  int32_t int32() const;
  int64_t int64() const;
  double dbl() const;
  bool boolean() const;
  int64_t date() const;
  bson_decimal128_t decimal() const;
  const bson_oid_t* oid() const;
  std::string_view string() const;  // UTF-8, symbol or code
  BsonView document() const;        // the bytes of a document or array value

  // Positions *it before the first element of a document or array value; false otherwise.
  bool Recurse(bson_iter_t* it) const;
  // The value of an element found by iterating this value's bytes (Recurse); shares ownership.
  Value Child(const bson_iter_t* it) const;
  // The top-level field `name` of a document value; missing when absent or not a document.
  Value Field(std::string_view name) const;
  // Number of elements of an array (or fields of a document).
  uint32_t Count() const;
  // The bytes of the value's BSON encoding without type and key (at most 24 for a computed
  // scalar); 0 when missing.
  size_t EncodedSize() const;

  // Appends the value under `key`; appends nothing when missing.
  void AppendTo(bson_t* out, std::string_view key) const;

  // The same value owning its bytes (no view of anything else): for values kept beyond the
  // input they were read from.
  Value Owned() const;
  // The same value as a plain view that does not share ownership (no reference count): valid
  // only while this Value (or whatever keeps its bytes) lives. How constants are handed out.
  Value Borrowed() const;

  // MongoDB's Value::coerceToBool truthiness (false for missing, null, undefined, false and
  // numeric zero; NaN is true).
  bool Truthy() const;

 private:
  enum class Kind : uint8_t { kMissing, kElement, kInline, kDocumentView };

  static Value Scalar(bson_type_t type, void (*append)(bson_t*, const void*), const void* arg);

  Kind kind_ = Kind::kMissing;
  uint8_t type_ = BSON_TYPE_EOD;
  uint8_t inline_len_ = 0;
  // kInline: a one-field document {"": v} for scalars of at most 16 bytes of payload.
  alignas(8) uint8_t inline_[24] = {};
  BsonElement element_;                // kElement
  const uint8_t* doc_data_ = nullptr;  // kDocumentView
  uint32_t doc_size_ = 0;              // kDocumentView
  std::shared_ptr<const void> owner_;  // keeps a computed value's bytes alive
  // kDocumentView in element form, made the first time iter() is asked for.
  mutable std::shared_ptr<const std::string> element_form_;
};

// <0, 0, >0 by MongoDB's value order (Value::compare, through common/bson_compare.h): missing
// sorts with undefined, below null; strings under `strings` (a collation; nullptr: binary).
int CompareValue(const Value& a, const Value& b, const StringComparator* strings = nullptr);
inline bool ValueEquals(const Value& a, const Value& b) { return CompareValue(a, b) == 0; }

// ---- Limits on the values expressions build ----
//
// Every value an operator builds is a BSON buffer here, where MongoDB holds a tree of Values and
// only serializes it (Document::toBson) at the end. So the limits MongoDB meets when it
// serializes, or when its StringBuilder grows, apply as each value is built, before its bytes
// are allocated:
// - MongoDB's BufferMaxSize, 64 MiB: the most a BufBuilder (the StringBuilder of $concat,
//   $replaceAll, ...; the builder a value is serialized into) holds. Past it, 13548
//   "BufBuilder attempted to grow() to N bytes, past the 64MB limit.".
// - maxBSONDepth (200, common/bson_validate.h): Overflow "cannot convert document to BSON
//   because it exceeds the limit of 200 levels of nesting" (document.cpp's toBson), for a value
//   nested deeper (the value itself counts as one level). So no value recursion ever goes
//   deeper than the BSON a client can send.
inline constexpr size_t kMaxBuiltValueBytes = 64 * 1024 * 1024;
// 13548 for a value that would take `bytes` bytes, when that is past kMaxBuiltValueBytes.
Status CheckBuiltSize(size_t bytes);
// The 13548 Status itself (`bytes`: the size the builder would have grown to).
Status BuiltSizeError(size_t bytes);
// Overflow when `child`, nested one level below what is being built, takes the result past
// MaxBsonDepth() levels. Reads only values large enough to be that deep (each level of BSON
// nesting costs at least 6 bytes), so small values cost nothing.
Status CheckNestedDepth(const Value& child);
// A document query/ hands out (an aggregate's result, a find projection's) must be one MongoDB
// could serialize: at most BSONObjMaxInternalSize (16 MiB + 16 KiB), else BSONObjectTooLarge
// 10334 "BSONObj size: N (0xHEX) is invalid. Size must be between 0 and 16793600(16MB) First
// element: <name>: <value>" (BSONObj::_assertInvalid); and at most maxBSONDepth levels, else
// Overflow as above. Small documents cost a length comparison.
Status CheckOutputDocument(BsonView doc);

// Builds an array value element by element (indexes "0", "1", ... are supplied). An element
// that would break the limits above is refused before it is copied; the builder keeps the first
// such error and Finish answers it.
class ArrayBuilder {
 public:
  ArrayBuilder();
  ~ArrayBuilder();
  ArrayBuilder(const ArrayBuilder&) = delete;
  ArrayBuilder& operator=(const ArrayBuilder&) = delete;

  // Appends `v`; a missing value is appended as null (arrays cannot hold missing).
  void Append(const Value& v);
  void AppendIter(const bson_iter_t* it);
  uint32_t size() const { return count_; }
  // The array built so far, or the first limit an Append broke; the builder must not be used
  // afterwards.
  Result<Value> Finish();

 private:
  bool Admit(const Value& v, size_t key_len);

  bson_t root_;
  bson_t array_;
  uint32_t count_ = 0;
  bool finished_ = false;
  Status error_;
};

// Builds a document value field by field, with ArrayBuilder's limits.
class DocumentBuilder {
 public:
  DocumentBuilder();
  ~DocumentBuilder();
  DocumentBuilder(const DocumentBuilder&) = delete;
  DocumentBuilder& operator=(const DocumentBuilder&) = delete;

  // Appends `v` under `key`; nothing when missing.
  void Append(std::string_view key, const Value& v);
  Result<Value> Finish();

 private:
  bson_t doc_;
  Status error_;
};

}  // namespace cairn::query
