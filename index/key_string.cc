// KeyString encoder and decoder. Owns the byte format written down in index/README.md (the type
// bytes below are persisted: DO NOT RENUMBER: on disk). Knows nothing of key patterns, documents
// or storage; it turns one BSON value into bytes and back.
#include "index/key_string.h"

#include "common/bson_compare.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace cairn::index {

namespace {

// Leading byte of every encoded value, in MongoDB's canonical type order.
// DO NOT RENUMBER: on disk.
enum KeyType : uint8_t {
  kEnd = 0x00,  // end of an object's / array's element list (below every type byte)
  kMinKey = 0x0A,
  kUndefined = 0x0F,
  kNull = 0x14,
  kNumber = 0x1E,  // int32, int64, double, decimal128
  kString = 0x28,  // string and symbol
  kObject = 0x32,
  kArray = 0x3C,
  kBinData = 0x46,
  kObjectId = 0x50,
  kBool = 0x5A,
  kDate = 0x64,
  kTimestamp = 0x6E,
  kRegex = 0x78,
  kDBPointer = 0x82,
  kCode = 0x8C,
  kCodeWScope = 0x96,
  kMaxKey = 0xF0,
};

// Deeper nesting than BSON itself allows is malformed.
constexpr int kMaxDecodeDepth = 200;

constexpr double kTwo53 = 9007199254740992.0;     // 2^53
constexpr double kTwo63 = 9223372036854775808.0;  // 2^63
// Encoding of NaN: below the encoding of -Infinity (0x000FFFFFFFFFFFFF).
constexpr uint64_t kNaNBits = 0;

// ---- numbers ----

// Order-preserving image of a double (NaN and -0 excluded by the caller): positive doubles get
// the sign bit set, negative ones are inverted, so unsigned big-endian order is numeric order.
uint64_t OrderedDoubleBits(double d) {
  uint64_t bits = std::bit_cast<uint64_t>(d);
  return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
}

double DoubleFromOrderedBits(uint64_t u) {
  uint64_t bits = (u >> 63) != 0 ? u & ~(uint64_t{1} << 63) : ~u;
  return std::bit_cast<double>(bits);
}

// Whether a number whose 8-byte part is `d` carries the 2-byte tiebreak: the doubles in the int64
// range whose magnitude is at least 2^53, where consecutive doubles are more than 1 apart.
bool NeedsTiebreak(double d) { return d >= -kTwo63 && d < kTwo63 && (d >= kTwo53 || d <= -kTwo53); }

// The largest double ≤ v (exact for |v| ≤ 2^53).
double FloorToDouble(int64_t v) {
  double d = static_cast<double>(v);
  if (static_cast<long double>(d) > static_cast<long double>(v)) {
    d = std::nextafter(d, -std::numeric_limits<double>::infinity());
  }
  return d;
}

// ---- byte output ----

void PutU8(std::string* out, uint8_t b) { out->push_back(static_cast<char>(b)); }

void PutBE(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) PutU8(out, static_cast<uint8_t>(v >> (8 * i)));
}

// Escaped string: 0x00 → 0x00 0xFF, then the terminator 0x00 0x00.
void PutString(std::string* out, const char* s, size_t len) {
  for (size_t i = 0; i < len; ++i) {
    out->push_back(s[i]);
    if (s[i] == '\0') PutU8(out, 0xFF);
  }
  PutU8(out, 0x00);
  PutU8(out, 0x00);
}

uint8_t TypeByte(bson_type_t type) {
  switch (type) {
    case BSON_TYPE_MINKEY:
      return kMinKey;
    case BSON_TYPE_EOD:
    case BSON_TYPE_UNDEFINED:
      return kUndefined;
    case BSON_TYPE_NULL:
      return kNull;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DECIMAL128:
      return kNumber;
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
      return kString;
    case BSON_TYPE_DOCUMENT:
      return kObject;
    case BSON_TYPE_ARRAY:
      return kArray;
    case BSON_TYPE_BINARY:
      return kBinData;
    case BSON_TYPE_OID:
      return kObjectId;
    case BSON_TYPE_BOOL:
      return kBool;
    case BSON_TYPE_DATE_TIME:
      return kDate;
    case BSON_TYPE_TIMESTAMP:
      return kTimestamp;
    case BSON_TYPE_REGEX:
      return kRegex;
    case BSON_TYPE_DBPOINTER:
      return kDBPointer;
    case BSON_TYPE_CODE:
      return kCode;
    case BSON_TYPE_CODEWSCOPE:
      return kCodeWScope;
    case BSON_TYPE_MAXKEY:
      return kMaxKey;
  }
  return kUndefined;
}

void PutNumber(std::string* out, const bson_iter_t* it) {
  bool is_int = false;
  int64_t i = 0;
  double d = 0;
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
      is_int = true;
      i = bson_iter_as_int64(it);
      break;
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t dec;
      bson_iter_decimal128(it, &dec);
      is_int = DecimalToInt64Exact(dec, &i);
      if (!is_int) IterAsDouble(it, &d);  // nearest double (the documented limitation)
      break;
    }
    default:
      IterAsDouble(it, &d);
      break;
  }
  if (is_int) {
    double f = FloorToDouble(i);
    PutBE(out, OrderedDoubleBits(f), 8);
    if (NeedsTiebreak(f)) PutBE(out, static_cast<uint64_t>(i - static_cast<int64_t>(f)), 2);
    return;
  }
  if (std::isnan(d)) {
    PutBE(out, kNaNBits, 8);
    return;
  }
  if (d == 0) d = 0.0;  // -0 → +0
  PutBE(out, OrderedDoubleBits(d), 8);
  // Doubles in this range are integers: their offset from their own floor is 0.
  if (NeedsTiebreak(d)) PutBE(out, 0, 2);
}

void PutPayload(std::string* out, const bson_iter_t* it);

// Elements of a document (with names) or array (without: a valid array's names are its
// positions), then kEnd. Recurses once per level of the value: bounded by what a value can be,
// a stored document's field (at most 180 levels, MaxStorageDepth) or a query's operand (at most
// maxBSONDepth, 200, for BSON a client sends and values expressions build).
void PutElements(std::string* out, BsonView doc, bool with_names) {
  bson_iter_t child;
  if (doc.Init(&child)) {
    while (bson_iter_next(&child)) {
      PutU8(out, TypeByte(bson_iter_type(&child)));
      if (with_names) PutString(out, bson_iter_key(&child), bson_iter_key_len(&child));
      PutPayload(out, &child);
    }
  }
  PutU8(out, kEnd);
}

// The bytes after the type byte.
void PutPayload(std::string* out, const bson_iter_t* it) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_EOD:
    case BSON_TYPE_MINKEY:
    case BSON_TYPE_MAXKEY:
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_NULL:
      return;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DECIMAL128:
      PutNumber(out, it);
      return;
    case BSON_TYPE_UTF8: {
      uint32_t len = 0;
      const char* s = bson_iter_utf8(it, &len);
      PutString(out, s, len);
      return;
    }
    case BSON_TYPE_SYMBOL: {
      uint32_t len = 0;
      const char* s = bson_iter_symbol(it, &len);
      PutString(out, s, len);
      return;
    }
    case BSON_TYPE_DOCUMENT:
      PutElements(out, IterDocument(it), true);
      return;
    case BSON_TYPE_ARRAY:
      PutElements(out, IterDocument(it), false);
      return;
    case BSON_TYPE_BINARY: {
      bson_subtype_t subtype;
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_binary(it, &subtype, &len, &data);
      PutBE(out, len, 4);
      PutU8(out, static_cast<uint8_t>(subtype));
      if (len > 0) out->append(reinterpret_cast<const char*>(data), len);
      return;
    }
    case BSON_TYPE_OID:
      out->append(reinterpret_cast<const char*>(bson_iter_oid(it)->bytes), 12);
      return;
    case BSON_TYPE_BOOL:
      PutU8(out, bson_iter_bool(it) ? 1 : 0);
      return;
    case BSON_TYPE_DATE_TIME:
      PutBE(out, static_cast<uint64_t>(bson_iter_date_time(it)) ^ (uint64_t{1} << 63), 8);
      return;
    case BSON_TYPE_TIMESTAMP: {
      uint32_t t = 0, i = 0;
      bson_iter_timestamp(it, &t, &i);
      PutBE(out, (static_cast<uint64_t>(t) << 32) | i, 8);
      return;
    }
    case BSON_TYPE_REGEX: {
      const char* options = nullptr;
      const char* pattern = bson_iter_regex(it, &options);
      PutString(out, pattern, std::strlen(pattern));
      PutString(out, options, std::strlen(options));
      return;
    }
    case BSON_TYPE_DBPOINTER: {
      uint32_t len = 0;
      const char* ns = nullptr;
      const bson_oid_t* oid = nullptr;
      bson_iter_dbpointer(it, &len, &ns, &oid);
      PutBE(out, len, 4);
      out->append(ns, len);
      out->append(reinterpret_cast<const char*>(oid->bytes), 12);
      return;
    }
    case BSON_TYPE_CODE: {
      uint32_t len = 0;
      const char* code = bson_iter_code(it, &len);
      PutString(out, code, len);
      return;
    }
    case BSON_TYPE_CODEWSCOPE: {
      uint32_t len = 0, scope_len = 0;
      const uint8_t* scope = nullptr;
      const char* code = bson_iter_codewscope(it, &len, &scope_len, &scope);
      PutString(out, code, len);
      PutElements(out, scope != nullptr ? BsonView(scope, scope_len) : BsonView(), true);
      return;
    }
  }
}

void Invert(std::string* out, size_t from) {
  for (size_t i = from; i < out->size(); ++i) (*out)[i] = static_cast<char>(~(*out)[i]);
}

// ---- decoding ----

// Reads the bytes of one field, undoing the descending inversion through `mask`.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  void set_mask(uint8_t mask) { mask_ = mask; }
  size_t offset() const { return pos_; }
  bool done() const { return pos_ == bytes_.size(); }

  bool Byte(uint8_t* b) {
    if (pos_ >= bytes_.size()) return false;
    *b = static_cast<uint8_t>(bytes_[pos_++]) ^ mask_;
    return true;
  }
  bool BE(int bytes, uint64_t* v) {
    *v = 0;
    for (int i = 0; i < bytes; ++i) {
      uint8_t b;
      if (!Byte(&b)) return false;
      *v = (*v << 8) | b;
    }
    return true;
  }
  bool Raw(size_t n, std::string* out) {
    if (bytes_.size() - pos_ < n) return false;
    out->resize(n);
    for (size_t i = 0; i < n; ++i) (*out)[i] = static_cast<char>(bytes_[pos_ + i] ^ mask_);
    pos_ += n;
    return true;
  }
  bool Skip(size_t n) {
    if (bytes_.size() - pos_ < n) return false;
    pos_ += n;
    return true;
  }
  // Steps over an escaped string through its terminator (the mask does not change 0x00 tests:
  // an inverted 0x00 is 0xFF, so compare after unmasking).
  bool SkipString() {
    while (true) {
      uint8_t b;
      if (!Byte(&b)) return false;
      if (b != 0x00) continue;
      if (!Byte(&b)) return false;
      if (b == 0x00) return true;
      if (b != 0xFF) return false;
    }
  }
  // An escaped string through its 0x00 0x00 terminator.
  bool String(std::string* out) {
    out->clear();
    while (true) {
      uint8_t b;
      if (!Byte(&b)) return false;
      if (b != 0x00) {
        out->push_back(static_cast<char>(b));
        continue;
      }
      if (!Byte(&b)) return false;
      if (b == 0x00) return true;
      if (b != 0xFF) return false;
      out->push_back('\0');
    }
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
  uint8_t mask_ = 0;
};

// An owned, initialised bson_t destroyed at scope exit.
struct ScopedBson {
  ScopedBson() { bson_init(&b); }
  ~ScopedBson() { bson_destroy(&b); }
  ScopedBson(const ScopedBson&) = delete;
  ScopedBson& operator=(const ScopedBson&) = delete;
  bson_t b;
};

bool DecodeValue(Reader* r, uint8_t type, bson_t* out, const char* key, int key_len, int depth);

bool DecodeElements(Reader* r, bson_t* out, bool with_names, int depth) {
  if (depth > kMaxDecodeDepth) return false;
  std::string name;
  char index_buf[16];
  for (uint32_t index = 0;; ++index) {
    uint8_t type;
    if (!r->Byte(&type)) return false;
    if (type == kEnd) return true;
    const char* key = nullptr;
    size_t key_len = 0;
    if (with_names) {
      if (!r->String(&name)) return false;
      if (name.find('\0') != std::string::npos) return false;
      key = name.c_str();
      key_len = name.size();
    } else {
      key_len = bson_uint32_to_string(index, &key, index_buf, sizeof index_buf);
    }
    if (!DecodeValue(r, type, out, key, static_cast<int>(key_len), depth)) return false;
  }
}

bool DecodeNumber(Reader* r, bson_t* out, const char* key, int key_len) {
  uint64_t u;
  if (!r->BE(8, &u)) return false;
  if (u == kNaNBits) return bson_append_double(out, key, key_len, std::nan(""));
  double d = DoubleFromOrderedBits(u);
  if (std::isnan(d)) return false;
  if (NeedsTiebreak(d)) {
    uint64_t offset;
    if (!r->BE(2, &offset)) return false;
    // Canonical only: the offset stays below the gap to the next double (at most 1024).
    const double gap = std::nextafter(d, std::numeric_limits<double>::infinity()) - d;
    if (static_cast<double>(offset) >= gap) return false;
    int64_t base = static_cast<int64_t>(d);
    if (base > std::numeric_limits<int64_t>::max() - static_cast<int64_t>(offset)) return false;
    return bson_append_int64(out, key, key_len, base + static_cast<int64_t>(offset));
  }
  // The narrowest of int32, int64, double that holds the value.
  if (std::trunc(d) == d && std::fabs(d) < kTwo53) {
    int64_t v = static_cast<int64_t>(d);
    if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
      return bson_append_int32(out, key, key_len, static_cast<int32_t>(v));
    }
    return bson_append_int64(out, key, key_len, v);
  }
  return bson_append_double(out, key, key_len, d);
}

bool DecodeValue(Reader* r, uint8_t type, bson_t* out, const char* key, int key_len, int depth) {
  switch (type) {
    case kMinKey:
      return bson_append_minkey(out, key, key_len);
    case kMaxKey:
      return bson_append_maxkey(out, key, key_len);
    case kUndefined:
      return bson_append_undefined(out, key, key_len);
    case kNull:
      return bson_append_null(out, key, key_len);
    case kNumber:
      return DecodeNumber(r, out, key, key_len);
    case kString: {
      std::string s;
      if (!r->String(&s)) return false;
      return bson_append_utf8(out, key, key_len, s.data(), static_cast<int>(s.size()));
    }
    case kObject:
    case kArray: {
      ScopedBson child;
      if (!DecodeElements(r, &child.b, type == kObject, depth + 1)) return false;
      return type == kObject ? bson_append_document(out, key, key_len, &child.b)
                             : bson_append_array(out, key, key_len, &child.b);
    }
    case kBinData: {
      uint64_t len;
      uint8_t subtype;
      std::string data;
      if (!r->BE(4, &len) || !r->Byte(&subtype) || !r->Raw(len, &data)) return false;
      return bson_append_binary(out, key, key_len, static_cast<bson_subtype_t>(subtype),
                                reinterpret_cast<const uint8_t*>(data.data()),
                                static_cast<uint32_t>(len));
    }
    case kObjectId: {
      std::string raw;
      if (!r->Raw(12, &raw)) return false;
      bson_oid_t oid;
      std::memcpy(oid.bytes, raw.data(), 12);
      return bson_append_oid(out, key, key_len, &oid);
    }
    case kBool: {
      uint8_t b;
      if (!r->Byte(&b) || b > 1) return false;
      return bson_append_bool(out, key, key_len, b == 1);
    }
    case kDate: {
      uint64_t u;
      if (!r->BE(8, &u)) return false;
      return bson_append_date_time(out, key, key_len,
                                   static_cast<int64_t>(u ^ (uint64_t{1} << 63)));
    }
    case kTimestamp: {
      uint64_t u;
      if (!r->BE(8, &u)) return false;
      return bson_append_timestamp(out, key, key_len, static_cast<uint32_t>(u >> 32),
                                   static_cast<uint32_t>(u));
    }
    case kRegex: {
      std::string pattern, options;
      if (!r->String(&pattern) || !r->String(&options)) return false;
      if (pattern.find('\0') != std::string::npos || options.find('\0') != std::string::npos) {
        return false;
      }
      return bson_append_regex(out, key, key_len, pattern.c_str(), options.c_str());
    }
    case kDBPointer: {
      uint64_t len;
      std::string ns, raw;
      if (!r->BE(4, &len) || !r->Raw(len, &ns) || !r->Raw(12, &raw)) return false;
      if (ns.find('\0') != std::string::npos) return false;
      bson_oid_t oid;
      std::memcpy(oid.bytes, raw.data(), 12);
      return bson_append_dbpointer(out, key, key_len, ns.c_str(), &oid);
    }
    case kCode: {
      std::string code;
      if (!r->String(&code) || code.find('\0') != std::string::npos) return false;
      return bson_append_code(out, key, key_len, code.c_str());
    }
    case kCodeWScope: {
      std::string code;
      if (!r->String(&code) || code.find('\0') != std::string::npos) return false;
      ScopedBson scope;
      if (!DecodeElements(r, &scope.b, true, depth + 1)) return false;
      return bson_append_code_with_scope(out, key, key_len, code.c_str(), &scope.b);
    }
    default:
      return false;
  }
}

// Steps over one value's payload without building anything (SplitKey).
bool SkipValue(Reader* r, uint8_t type, int depth);

bool SkipElements(Reader* r, bool with_names, int depth) {
  if (depth > kMaxDecodeDepth) return false;
  while (true) {
    uint8_t type;
    if (!r->Byte(&type)) return false;
    if (type == kEnd) return true;
    if (with_names && !r->SkipString()) return false;
    if (!SkipValue(r, type, depth)) return false;
  }
}

bool SkipValue(Reader* r, uint8_t type, int depth) {
  uint64_t v = 0;
  switch (type) {
    case kMinKey:
    case kMaxKey:
    case kUndefined:
    case kNull:
      return true;
    case kNumber: {
      if (!r->BE(8, &v)) return false;
      if (v == kNaNBits) return true;
      return !NeedsTiebreak(DoubleFromOrderedBits(v)) || r->Skip(2);
    }
    case kString:
    case kCode:
      return r->SkipString();
    case kObject:
    case kArray:
      return SkipElements(r, type == kObject, depth + 1);
    case kBinData:
      return r->BE(4, &v) && r->Skip(1) && r->Skip(v);
    case kObjectId:
      return r->Skip(12);
    case kBool:
      return r->Skip(1);
    case kDate:
    case kTimestamp:
      return r->Skip(8);
    case kRegex:
      return r->SkipString() && r->SkipString();
    case kDBPointer:
      return r->BE(4, &v) && r->Skip(v) && r->Skip(12);
    case kCodeWScope:
      return r->SkipString() && SkipElements(r, true, depth + 1);
    default:
      return false;
  }
}

}  // namespace

void AppendValue(std::string* out, const bson_iter_t* it, bool descending) {
  const size_t start = out->size();
  PutU8(out, TypeByte(bson_iter_type(it)));
  PutPayload(out, it);
  if (descending) Invert(out, start);
}

void AppendNull(std::string* out, bool descending) {
  PutU8(out, static_cast<uint8_t>(descending ? ~kNull : kNull));
}

void AppendUndefined(std::string* out, bool descending) {
  PutU8(out, static_cast<uint8_t>(descending ? ~kUndefined : kUndefined));
}

bool SplitKey(std::string_view key, const std::vector<bool>& descending,
              std::vector<std::string_view>* fields) {
  fields->clear();
  Reader r(key);
  for (bool desc : descending) {
    r.set_mask(desc ? 0xFF : 0x00);
    const size_t start = r.offset();
    uint8_t type;
    if (!r.Byte(&type) || !SkipValue(&r, type, 0)) return false;
    fields->push_back(key.substr(start, r.offset() - start));
  }
  return r.done();
}

Result<BsonDoc> DecodeKey(std::string_view bytes, const std::vector<bool>& descending) {
  BsonDoc doc;
  Reader r(bytes);
  for (size_t field = 0; field < descending.size(); ++field) {
    r.set_mask(descending[field] ? 0xFF : 0x00);
    const size_t start = r.offset();
    uint8_t type;
    if (!r.Byte(&type) || !DecodeValue(&r, type, doc.get(), "", 0, 0)) {
      return Status(ErrorCode::kBadValue, "malformed index key: field " + std::to_string(field) +
                                              " at offset " + std::to_string(start));
    }
  }
  if (!r.done()) {
    return Status(ErrorCode::kBadValue,
                  "malformed index key: " + std::to_string(bytes.size() - r.offset()) +
                      " bytes after the last field");
  }
  return doc;
}

}  // namespace cairn::index
