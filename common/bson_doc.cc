// BsonView/BsonDoc and BSON helpers.
#include "common/bson_doc.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/status.h"

namespace cairn {

namespace {
const uint8_t kEmptyDoc[5] = {5, 0, 0, 0, 0};
}  // namespace

BsonView::BsonView() : data_(kEmptyDoc), size_(5) {}

bool BsonView::Find(std::string_view key, bson_iter_t* it) const {
  if (!Init(it)) return false;
  return bson_iter_find_w_len(it, key.data(), static_cast<int>(key.size()));
}

uint32_t BsonView::CountKeys() const {
  bson_iter_t it;
  uint32_t n = 0;
  if (!Init(&it)) return 0;
  while (bson_iter_next(&it)) ++n;
  return n;
}

bson_t BsonView::AsBson() const {
  bson_t b;
  bson_init_static(&b, data_, size_);
  return b;
}

std::string BsonView::ToJson() const {
  bson_t b = AsBson();
  size_t len = 0;
  char* json = bson_as_relaxed_extended_json(&b, &len);
  if (json == nullptr) return "{}";
  std::string out(json, len);
  bson_free(json);
  return out;
}

BsonDoc::BsonDoc() : doc_(bson_new()) {}

BsonDoc::BsonDoc(BsonView view) : doc_(bson_new_from_data(view.data(), view.size())) {
  if (doc_ == nullptr) doc_ = bson_new();
}

BsonDoc BsonDoc::FromJson(std::string_view json) {
  bson_error_t error;
  bson_t* parsed = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                      static_cast<ssize_t>(json.size()), &error);
  if (parsed == nullptr) {
    std::fprintf(stderr, "BsonDoc::FromJson: %s in %.*s\n", error.message,
                 static_cast<int>(json.size()), json.data());
    std::abort();
  }
  BsonDoc doc;
  bson_destroy(doc.doc_);
  doc.doc_ = parsed;
  return doc;
}

BsonDoc& BsonDoc::operator=(BsonDoc&& other) noexcept {
  if (this != &other) {
    if (doc_ != nullptr) bson_destroy(doc_);
    doc_ = other.doc_;
    other.doc_ = nullptr;
  }
  return *this;
}

BsonDoc::~BsonDoc() {
  if (doc_ != nullptr) bson_destroy(doc_);
}

std::string_view IterUtf8(const bson_iter_t* it) {
  uint32_t len = 0;
  const char* s = bson_iter_utf8(it, &len);
  return std::string_view(s, len);
}

BsonView IterDocument(const bson_iter_t* it) {
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  if (BSON_ITER_HOLDS_DOCUMENT(it)) {
    bson_iter_document(it, &len, &data);
  } else if (BSON_ITER_HOLDS_ARRAY(it)) {
    bson_iter_array(it, &len, &data);
  }
  if (data == nullptr) return BsonView();
  return BsonView(data, len);
}

bool IterIsNumber(const bson_iter_t* it) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128:
      return true;
    default:
      return false;
  }
}

bool IterAsDouble(const bson_iter_t* it, double* out) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
      *out = bson_iter_int32(it);
      return true;
    case BSON_TYPE_INT64:
      *out = static_cast<double>(bson_iter_int64(it));
      return true;
    case BSON_TYPE_DOUBLE:
      *out = bson_iter_double(it);
      return true;
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t dec;
      bson_iter_decimal128(it, &dec);
      char buf[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&dec, buf);
      if (std::strcmp(buf, "NaN") == 0) {
        *out = NAN;
        return true;
      }
      if (std::strcmp(buf, "Infinity") == 0) {
        *out = INFINITY;
        return true;
      }
      if (std::strcmp(buf, "-Infinity") == 0) {
        *out = -INFINITY;
        return true;
      }
      *out = std::strtod(buf, nullptr);
      return true;
    }
    default:
      return false;
  }
}

bool IterAsInt64(const bson_iter_t* it, int64_t* out) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
      *out = bson_iter_int32(it);
      return true;
    case BSON_TYPE_INT64:
      *out = bson_iter_int64(it);
      return true;
    case BSON_TYPE_DOUBLE: {
      double d = bson_iter_double(it);
      if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
      if (std::trunc(d) != d) return false;
      *out = static_cast<int64_t>(d);
      return true;
    }
    default:
      return false;
  }
}

std::string_view BsonTypeName(bson_type_t type) {
  switch (type) {
    case BSON_TYPE_EOD:
      return "missing";
    case BSON_TYPE_DOUBLE:
      return "double";
    case BSON_TYPE_UTF8:
      return "string";
    case BSON_TYPE_DOCUMENT:
      return "object";
    case BSON_TYPE_ARRAY:
      return "array";
    case BSON_TYPE_BINARY:
      return "binData";
    case BSON_TYPE_UNDEFINED:
      return "undefined";
    case BSON_TYPE_OID:
      return "objectId";
    case BSON_TYPE_BOOL:
      return "bool";
    case BSON_TYPE_DATE_TIME:
      return "date";
    case BSON_TYPE_NULL:
      return "null";
    case BSON_TYPE_REGEX:
      return "regex";
    case BSON_TYPE_DBPOINTER:
      return "dbPointer";
    case BSON_TYPE_CODE:
      return "javascript";
    case BSON_TYPE_SYMBOL:
      return "symbol";
    case BSON_TYPE_CODEWSCOPE:
      return "javascriptWithScope";
    case BSON_TYPE_INT32:
      return "int";
    case BSON_TYPE_TIMESTAMP:
      return "timestamp";
    case BSON_TYPE_INT64:
      return "long";
    case BSON_TYPE_DECIMAL128:
      return "decimal";
    case BSON_TYPE_MINKEY:
      return "minKey";
    case BSON_TYPE_MAXKEY:
      return "maxKey";
  }
  return "unknown";
}

bool AppendIter(bson_t* out, std::string_view key, const bson_iter_t* it) {
  return bson_append_iter(out, key.data(), static_cast<int>(key.size()), it);
}

namespace {

void AppendShellValue(std::string& out, const bson_iter_t* it);

void AppendShellDoc(std::string& out, BsonView doc, bool is_array) {
  bson_iter_t it;
  if (!doc.Init(&it)) {
    out += is_array ? "[]" : "{}";
    return;
  }
  bool first = true;
  out += is_array ? "[" : "{";
  while (bson_iter_next(&it)) {
    out += first ? " " : ", ";
    first = false;
    if (!is_array) {
      out += IterKey(&it);
      out += ": ";
    }
    AppendShellValue(out, &it);
  }
  out += first ? (is_array ? "]" : "}") : (is_array ? " ]" : " }");
}

void AppendDouble(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "nan.0";
    return;
  }
  if (std::isinf(d)) {
    out += d > 0 ? "inf.0" : "-inf.0";
    return;
  }
  char buf[64];
  if (std::trunc(d) == d && std::fabs(d) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.1f", d);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", d);
    // Shortest representation that round-trips.
    for (int precision = 1; precision <= 17; ++precision) {
      char candidate[64];
      std::snprintf(candidate, sizeof candidate, "%.*g", precision, d);
      if (std::strtod(candidate, nullptr) == d) {
        std::memcpy(buf, candidate, sizeof candidate);
        break;
      }
    }
  }
  out += buf;
}

void AppendShellValue(std::string& out, const bson_iter_t* it) {
  char buf[64];
  switch (bson_iter_type(it)) {
    case BSON_TYPE_DOUBLE:
      AppendDouble(out, bson_iter_double(it));
      break;
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL: {
      uint32_t len = 0;
      const char* s =
          BSON_ITER_HOLDS_UTF8(it) ? bson_iter_utf8(it, &len) : bson_iter_symbol(it, &len);
      out += '"';
      out.append(s, len);
      out += '"';
      break;
    }
    case BSON_TYPE_DOCUMENT:
      AppendShellDoc(out, IterDocument(it), false);
      break;
    case BSON_TYPE_ARRAY:
      AppendShellDoc(out, IterDocument(it), true);
      break;
    case BSON_TYPE_OID: {
      char hex[25];
      bson_oid_to_string(bson_iter_oid(it), hex);
      out += "ObjectId('";
      out += hex;
      out += "')";
      break;
    }
    case BSON_TYPE_BOOL:
      out += bson_iter_bool(it) ? "true" : "false";
      break;
    case BSON_TYPE_DATE_TIME:
      std::snprintf(buf, sizeof buf, "new Date(%lld)",
                    static_cast<long long>(bson_iter_date_time(it)));
      out += buf;
      break;
    case BSON_TYPE_NULL:
      out += "null";
      break;
    case BSON_TYPE_UNDEFINED:
      out += "undefined";
      break;
    case BSON_TYPE_INT32:
      out += std::to_string(bson_iter_int32(it));
      break;
    case BSON_TYPE_INT64:
      out += std::to_string(bson_iter_int64(it));
      break;
    case BSON_TYPE_TIMESTAMP: {
      uint32_t t, i;
      bson_iter_timestamp(it, &t, &i);
      std::snprintf(buf, sizeof buf, "Timestamp(%u, %u)", t, i);
      out += buf;
      break;
    }
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t dec;
      bson_iter_decimal128(it, &dec);
      char s[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&dec, s);
      out += "NumberDecimal(\"";
      out += s;
      out += "\")";
      break;
    }
    case BSON_TYPE_REGEX: {
      const char* options = nullptr;
      const char* pattern = bson_iter_regex(it, &options);
      out += '/';
      out += pattern;
      out += '/';
      out += options;
      break;
    }
    case BSON_TYPE_MINKEY:
      out += "MinKey";
      break;
    case BSON_TYPE_MAXKEY:
      out += "MaxKey";
      break;
    case BSON_TYPE_BINARY: {
      bson_subtype_t subtype;
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_binary(it, &subtype, &len, &data);
      std::snprintf(buf, sizeof buf, "BinData(%d, ", static_cast<int>(subtype));
      out += buf;
      static const char* kHex = "0123456789ABCDEF";
      for (uint32_t i = 0; i < len; ++i) {
        out += kHex[data[i] >> 4];
        out += kHex[data[i] & 15];
      }
      out += ')';
      break;
    }
    default:
      out += "?";
      break;
  }
}

}  // namespace

std::string ToShellString(BsonView doc) {
  std::string out;
  AppendShellDoc(out, doc, false);
  return out;
}

std::string ValueToShellString(const bson_iter_t* it) {
  std::string out;
  AppendShellValue(out, it);
  return out;
}

}  // namespace cairn
