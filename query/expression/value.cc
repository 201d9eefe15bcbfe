// Value (value.h): storage (views, inline scalars, shared buffers), typed reads, and the array
// and document builders operators use to make computed values.
#include "query/expression/value.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "common/bson_compare.h"
#include "common/bson_validate.h"

namespace cairn::query {

namespace {

// Copies a libbson-built one-field document {"": v} into a shared buffer and returns the
// value viewing it.
Value ShareOneFieldDocument(const uint8_t* data, uint32_t len) {
  auto buffer = std::make_shared<std::string>(reinterpret_cast<const char*>(data), len);
  bson_iter_t it;
  if (!bson_iter_init_from_data(&it, reinterpret_cast<const uint8_t*>(buffer->data()),
                                buffer->size()) ||
      !bson_iter_next(&it)) {
    return Value();
  }
  return Value::Element(&it, std::move(buffer));
}

}  // namespace

Value Value::Element(const bson_iter_t* it, std::shared_ptr<const void> owner) {
  Value v;
  v.kind_ = Kind::kElement;
  v.type_ = static_cast<uint8_t>(bson_iter_type(it));
  v.element_ = BsonElement(it);
  v.owner_ = std::move(owner);
  return v;
}

Value Value::DocumentView(BsonView doc, std::shared_ptr<const void> owner) {
  Value v;
  v.kind_ = Kind::kDocumentView;
  v.type_ = BSON_TYPE_DOCUMENT;
  v.doc_data_ = doc.data();
  v.doc_size_ = static_cast<uint32_t>(doc.size());
  v.owner_ = std::move(owner);
  return v;
}

Value Value::Scalar(bson_type_t type, void (*append)(bson_t*, const void*), const void* arg) {
  bson_t doc;
  bson_init(&doc);
  append(&doc, arg);
  Value v;
  v.kind_ = Kind::kInline;
  v.type_ = static_cast<uint8_t>(type);
  v.inline_len_ = static_cast<uint8_t>(doc.len);
  std::memcpy(v.inline_, bson_get_data(&doc), doc.len);
  bson_destroy(&doc);
  return v;
}

Value Value::Null() {
  return Scalar(
      BSON_TYPE_NULL, [](bson_t* d, const void*) { bson_append_null(d, "", 0); }, nullptr);
}

Value Value::Undefined() {
  return Scalar(
      BSON_TYPE_UNDEFINED, [](bson_t* d, const void*) { bson_append_undefined(d, "", 0); },
      nullptr);
}

Value Value::MinKey() {
  return Scalar(
      BSON_TYPE_MINKEY, [](bson_t* d, const void*) { bson_append_minkey(d, "", 0); }, nullptr);
}

Value Value::MaxKey() {
  return Scalar(
      BSON_TYPE_MAXKEY, [](bson_t* d, const void*) { bson_append_maxkey(d, "", 0); }, nullptr);
}

Value Value::Bool(bool b) {
  return Scalar(
      BSON_TYPE_BOOL,
      [](bson_t* d, const void* a) { bson_append_bool(d, "", 0, *static_cast<const bool*>(a)); },
      &b);
}

Value Value::Int32(int32_t i) {
  return Scalar(
      BSON_TYPE_INT32,
      [](bson_t* d, const void* a) {
        bson_append_int32(d, "", 0, *static_cast<const int32_t*>(a));
      },
      &i);
}

Value Value::Int64(int64_t i) {
  return Scalar(
      BSON_TYPE_INT64,
      [](bson_t* d, const void* a) {
        bson_append_int64(d, "", 0, *static_cast<const int64_t*>(a));
      },
      &i);
}

Value Value::IntOrLong(int64_t i) {
  if (i >= std::numeric_limits<int32_t>::min() && i <= std::numeric_limits<int32_t>::max()) {
    return Int32(static_cast<int32_t>(i));
  }
  return Int64(i);
}

Value Value::Double(double x) {
  return Scalar(
      BSON_TYPE_DOUBLE,
      [](bson_t* d, const void* a) {
        bson_append_double(d, "", 0, *static_cast<const double*>(a));
      },
      &x);
}

Value Value::Date(int64_t millis) {
  return Scalar(
      BSON_TYPE_DATE_TIME,
      [](bson_t* d, const void* a) {
        bson_append_date_time(d, "", 0, *static_cast<const int64_t*>(a));
      },
      &millis);
}

Value Value::Decimal(const bson_decimal128_t& dec) {
  return Scalar(
      BSON_TYPE_DECIMAL128,
      [](bson_t* d, const void* a) {
        bson_append_decimal128(d, "", 0, static_cast<const bson_decimal128_t*>(a));
      },
      &dec);
}

Value Value::Oid(const bson_oid_t& oid) {
  return Scalar(
      BSON_TYPE_OID,
      [](bson_t* d, const void* a) {
        bson_append_oid(d, "", 0, static_cast<const bson_oid_t*>(a));
      },
      &oid);
}

Value Value::Timestamp(uint32_t seconds, uint32_t increment) {
  const uint32_t parts[2] = {seconds, increment};
  return Scalar(
      BSON_TYPE_TIMESTAMP,
      [](bson_t* d, const void* a) {
        const uint32_t* p = static_cast<const uint32_t*>(a);
        bson_append_timestamp(d, "", 0, p[0], p[1]);
      },
      parts);
}

Value Value::String(std::string_view s) {
  bson_t doc;
  bson_init(&doc);
  bson_append_utf8(&doc, "", 0, s.data(), static_cast<int>(s.size()));
  Value v = FromOneFieldDocument(&doc);
  bson_destroy(&doc);
  return v;
}

Value Value::FromOneFieldDocument(const bson_t* one_field_doc) {
  return ShareOneFieldDocument(bson_get_data(one_field_doc), one_field_doc->len);
}

Value Value::Document(BsonView doc) {
  bson_t wrapper;
  bson_init(&wrapper);
  bson_t inner = doc.AsBson();
  bson_append_document(&wrapper, "", 0, &inner);
  Value v = FromOneFieldDocument(&wrapper);
  bson_destroy(&wrapper);
  return v;
}

bool Value::numeric() const {
  switch (type()) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128:
      return kind_ != Kind::kMissing;
    default:
      return false;
  }
}

bson_iter_t Value::iter() const {
  if (kind_ == Kind::kElement) return element_.iter();
  bson_iter_t it;
  if (kind_ == Kind::kDocumentView) {
    if (element_form_ == nullptr) {
      bson_t wrapper;
      bson_init(&wrapper);
      bson_t inner;
      bson_init_static(&inner, doc_data_, doc_size_);
      bson_append_document(&wrapper, "", 0, &inner);
      element_form_ = std::make_shared<const std::string>(
          reinterpret_cast<const char*>(bson_get_data(&wrapper)), wrapper.len);
      bson_destroy(&wrapper);
    }
    bson_iter_init_from_data(&it, reinterpret_cast<const uint8_t*>(element_form_->data()),
                             element_form_->size());
    bson_iter_next(&it);
    return it;
  }
  bson_iter_init_from_data(&it, inline_, inline_len_);
  bson_iter_next(&it);
  return it;
}

int32_t Value::int32() const {
  bson_iter_t it = iter();
  return bson_iter_int32(&it);
}

int64_t Value::int64() const {
  bson_iter_t it = iter();
  return bson_iter_int64(&it);
}

double Value::dbl() const {
  bson_iter_t it = iter();
  return bson_iter_double(&it);
}

bool Value::boolean() const {
  bson_iter_t it = iter();
  return bson_iter_bool(&it);
}

int64_t Value::date() const {
  bson_iter_t it = iter();
  return bson_iter_date_time(&it);
}

bson_decimal128_t Value::decimal() const {
  bson_iter_t it = iter();
  bson_decimal128_t dec;
  bson_iter_decimal128(&it, &dec);
  return dec;
}

const bson_oid_t* Value::oid() const {
  bson_iter_t it = iter();
  return bson_iter_oid(&it);
}

std::string_view Value::string() const {
  bson_iter_t it = iter();
  uint32_t len = 0;
  const char* s = nullptr;
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_UTF8:
      s = bson_iter_utf8(&it, &len);
      break;
    case BSON_TYPE_SYMBOL:
      s = bson_iter_symbol(&it, &len);
      break;
    case BSON_TYPE_CODE:
      s = bson_iter_code(&it, &len);
      break;
    default:
      return {};
  }
  return std::string_view(s, len);
}

BsonView Value::document() const {
  if (kind_ == Kind::kMissing) return BsonView();
  if (kind_ == Kind::kDocumentView) return BsonView(doc_data_, doc_size_);
  bson_iter_t it = iter();
  if (!BSON_ITER_HOLDS_DOCUMENT(&it) && !BSON_ITER_HOLDS_ARRAY(&it)) return BsonView();
  return IterDocument(&it);
}

bool Value::Recurse(bson_iter_t* it) const {
  if (type_ != BSON_TYPE_DOCUMENT && type_ != BSON_TYPE_ARRAY) return false;
  if (kind_ == Kind::kMissing) return false;
  if (kind_ == Kind::kDocumentView) return BsonView(doc_data_, doc_size_).Init(it);
  bson_iter_t self = iter();
  return bson_iter_recurse(&self, it);
}

Value Value::Child(const bson_iter_t* it) const { return Element(it, owner_); }

Value Value::Field(std::string_view name) const {
  if (type_ != BSON_TYPE_DOCUMENT || kind_ == Kind::kMissing) return Value();
  bson_iter_t it;
  if (!document().Find(name, &it)) return Value();
  return Child(&it);
}

size_t Value::EncodedSize() const {
  switch (type()) {
    case BSON_TYPE_EOD:
      return 0;
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY:
      return document().size();
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
    case BSON_TYPE_CODE:
      return string().size() + 5;
    default: {
      if (kind_ == Kind::kInline) return inline_len_;
      bson_iter_t it = iter();
      return it.next_off - it.d1;  // libbson: a value's bytes span [d1, next_off)
    }
  }
}

uint32_t Value::Count() const {
  bson_iter_t it;
  if (!Recurse(&it)) return 0;
  uint32_t n = 0;
  while (bson_iter_next(&it)) ++n;
  return n;
}

void Value::AppendTo(bson_t* out, std::string_view key) const {
  if (kind_ == Kind::kMissing) return;
  if (kind_ == Kind::kDocumentView) {
    bson_t inner;
    bson_init_static(&inner, doc_data_, doc_size_);
    bson_append_document(out, key.data(), static_cast<int>(key.size()), &inner);
    return;
  }
  bson_iter_t it = iter();
  AppendIter(out, key, &it);
}

Value Value::Owned() const {
  if (kind_ == Kind::kDocumentView) return Document(document());
  if (kind_ != Kind::kElement) return *this;
  bson_t doc;
  bson_init(&doc);
  AppendTo(&doc, "");
  Value v = FromOneFieldDocument(&doc);
  bson_destroy(&doc);
  return v;
}

Value Value::Borrowed() const {
  if (kind_ != Kind::kElement && kind_ != Kind::kDocumentView) return *this;
  Value v;
  v.kind_ = kind_;
  v.type_ = type_;
  v.element_ = element_;
  v.doc_data_ = doc_data_;
  v.doc_size_ = doc_size_;
  return v;
}

bool Value::Truthy() const {
  switch (type()) {
    case BSON_TYPE_EOD:
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
      return false;
    case BSON_TYPE_BOOL:
      return boolean();
    case BSON_TYPE_INT32:
      return int32() != 0;
    case BSON_TYPE_INT64:
      return int64() != 0;
    case BSON_TYPE_DOUBLE:
      return dbl() != 0;  // NaN is true
    case BSON_TYPE_DECIMAL128: {
      bson_iter_t it = iter();
      double d = 0;
      IterAsDouble(&it, &d);
      return d != 0;
    }
    default:
      return true;
  }
}

int CompareValue(const Value& a, const Value& b, const StringComparator* strings) {
  if (a.missing() && b.missing()) return 0;
  // MongoDB canonicalises missing (EOO) like undefined: below null, equal to undefined.
  static const Value kUndefined = Value::Undefined();
  const Value& x = a.missing() ? kUndefined : a;
  const Value& y = b.missing() ? kUndefined : b;
  if (x.is_document() && y.is_document()) {
    return CompareDocuments(x.document(), y.document(), strings);
  }
  bson_iter_t ix = x.iter();
  bson_iter_t iy = y.iter();
  return CompareValues(&ix, &iy, strings);
}

// ---- Limits ----

namespace {

// Overflow (with MaxBsonDepth() in the message) when `doc` is nested more than `levels` deep.
// BSON nested d levels deep takes at least 5 + 6 * (d - 1) bytes (a 4-byte length and a
// terminator, and per level a type byte, an empty key's NUL, a length and a terminator), so
// smaller documents are not read.
Status CheckLevels(BsonView doc, int levels) {
  if (doc.size() < 5 + 6 * static_cast<size_t>(levels)) return Status::OK();
  if (NestingDepth(doc, levels) <= levels) return Status::OK();
  return Status(ErrorCode::kOverflow,
                "cannot convert document to BSON because it exceeds the limit of " +
                    std::to_string(MaxBsonDepth()) + " levels of nesting");
}

}  // namespace

Status BuiltSizeError(size_t bytes) {
  return Status(ErrorCode::kLocation13548, "BufBuilder attempted to grow() to " +
                                               std::to_string(bytes) +
                                               " bytes, past the 64MB limit.");
}

Status CheckBuiltSize(size_t bytes) {
  return bytes > kMaxBuiltValueBytes ? BuiltSizeError(bytes) : Status::OK();
}

Status CheckNestedDepth(const Value& child) {
  if (!child.is_document() && !child.is_array()) return Status::OK();
  // The result is one level above `child`, so `child` may have MaxBsonDepth() - 1 levels.
  return CheckLevels(child.document(), MaxBsonDepth() - 1);
}

Status CheckOutputDocument(BsonView doc) {
  if (doc.size() > static_cast<size_t>(kMaxInternalBsonObjectSize)) {
    return ObjectTooLarge(doc.size(), doc.data(), doc.size());
  }
  return CheckLevels(doc, MaxBsonDepth());
}

// ---- ArrayBuilder ----

ArrayBuilder::ArrayBuilder() {
  bson_init(&root_);
  bson_append_array_begin(&root_, "", 0, &array_);
}

ArrayBuilder::~ArrayBuilder() {
  if (!finished_) bson_append_array_end(&root_, &array_);
  bson_destroy(&root_);
}

// Checks one more element of `key_len` key bytes: its type byte, key and NUL, and value.
bool ArrayBuilder::Admit(const Value& v, size_t key_len) {
  if (!error_.ok()) return false;
  // The open array's own length (libbson updates root_.len only when the array is closed).
  size_t grown = static_cast<size_t>(array_.len) + key_len + 2 + v.EncodedSize();
  error_ = CheckBuiltSize(grown);
  if (error_.ok()) error_ = CheckNestedDepth(v);
  return error_.ok();
}

void ArrayBuilder::Append(const Value& v) {
  char buf[16];
  const char* key;
  size_t len = bson_uint32_to_string(count_, &key, buf, sizeof buf);
  if (!Admit(v, len)) return;
  ++count_;
  if (v.missing()) {
    bson_append_null(&array_, key, static_cast<int>(len));
  } else {
    v.AppendTo(&array_, std::string_view(key, len));
  }
}

void ArrayBuilder::AppendIter(const bson_iter_t* it) { Append(Value::Element(it)); }

Result<Value> ArrayBuilder::Finish() {
  bson_append_array_end(&root_, &array_);
  finished_ = true;
  if (!error_.ok()) return error_;
  return Value::FromOneFieldDocument(&root_);
}

// ---- DocumentBuilder ----

DocumentBuilder::DocumentBuilder() { bson_init(&doc_); }

DocumentBuilder::~DocumentBuilder() { bson_destroy(&doc_); }

void DocumentBuilder::Append(std::string_view key, const Value& v) {
  if (!error_.ok() || v.missing()) return;
  error_ = CheckBuiltSize(static_cast<size_t>(doc_.len) + key.size() + 2 + v.EncodedSize());
  if (error_.ok()) error_ = CheckNestedDepth(v);
  if (error_.ok()) v.AppendTo(&doc_, key);
}

Result<Value> DocumentBuilder::Finish() {
  if (!error_.ok()) return error_;
  return Value::Document(BsonView(&doc_));
}

}  // namespace cairn::query
