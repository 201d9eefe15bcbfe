// MongoDB's canonical BSON comparison (see bson_compare.h).
#include "common/bson_compare.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace cairn {

namespace {

template <typename T>
int Sign(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

int CompareBytes(const char* a, size_t alen, const char* b, size_t blen) {
  int c = std::memcmp(a, b, std::min(alen, blen));
  if (c != 0) return c < 0 ? -1 : 1;
  return Sign(alen, blen);
}

// A number reduced to what the comparison needs: an exact int64 (int32, int64, and decimals whose
// value is an int64), or a double (doubles; other decimals through their nearest double).
struct Number {
  bool is_int;
  int64_t i;
  double d;
};

Number ToNumber(const bson_iter_t* it) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
      return {true, bson_iter_as_int64(it), 0};
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t dec;
      bson_iter_decimal128(it, &dec);
      int64_t i = 0;
      if (DecimalToInt64Exact(dec, &i)) return {true, i, 0};
      break;
    }
    default:
      break;
  }
  double d = 0;
  IterAsDouble(it, &d);
  return {false, 0, d};
}

// Numbers: exact for int32/int64/double (long double holds every int64 and every double on
// x86-64); a decimal128 is exact when it equals an int64, otherwise compared through its nearest
// double until the query issue brings exact decimal order.
// NaN sorts below every other number and equals NaN, as in MongoDB.
int CompareNumbers(const bson_iter_t* a, const bson_iter_t* b) {
  static_assert(std::numeric_limits<long double>::digits >= 64,
                "int64/double comparison needs a 64-bit long double mantissa");
  Number na = ToNumber(a), nb = ToNumber(b);
  if (na.is_int && nb.is_int) return Sign(na.i, nb.i);
  long double x = na.is_int ? static_cast<long double>(na.i) : na.d;
  long double y = nb.is_int ? static_cast<long double>(nb.i) : nb.d;
  bool xnan = std::isnan(x), ynan = std::isnan(y);
  if (xnan || ynan) return xnan && ynan ? 0 : (xnan ? -1 : 1);
  return Sign(x, y);
}

int CompareObjects(BsonView a, BsonView b, bool consider_names, const StringComparator* strings) {
  bson_iter_t ia, ib;
  bool va = a.Init(&ia), vb = b.Init(&ib);
  if (!va || !vb) return Sign(va, vb);
  while (true) {
    bool na = bson_iter_next(&ia);
    bool nb = bson_iter_next(&ib);
    if (!na || !nb) return Sign(na, nb);
    int c = Sign(CanonicalTypeRank(bson_iter_type(&ia)), CanonicalTypeRank(bson_iter_type(&ib)));
    if (c != 0) return c;
    if (consider_names) {
      c = std::strcmp(bson_iter_key(&ia), bson_iter_key(&ib));
      if (c != 0) return c < 0 ? -1 : 1;
    }
    c = CompareValues(&ia, &ib, strings);
    if (c != 0) return c;
  }
}

}  // namespace

bool DecimalToInt64Exact(const bson_decimal128_t& dec, int64_t* out) {
  const uint64_t high = dec.high, low = dec.low;
  const bool negative = (high >> 63) != 0;
  const uint32_t combination = static_cast<uint32_t>((high >> 58) & 0x1F);
  if ((combination >> 3) == 3) {
    if (combination == 0x1E || combination == 0x1F) return false;  // Infinity, NaN
    *out = 0;  // "11" form: coefficient ≥ 2^113, non-canonical, i.e. zero
    return true;
  }
  const int exponent = static_cast<int>((high >> 49) & 0x3FFF) - 6176;
  unsigned __int128 coef = (static_cast<unsigned __int128>(high & 0x1FFFFFFFFFFFFULL) << 64) | low;
  if (coef == 0) {
    *out = 0;
    return true;
  }
  const unsigned __int128 limit = static_cast<unsigned __int128>(1) << 63;  // |int64 min|
  if (exponent >= 0) {
    for (int i = 0; i < exponent; ++i) {
      coef *= 10;
      if (coef > limit) return false;
    }
  } else {
    if (exponent < -34) return false;  // coef < 2^113 < 10^35: no exact integer but 0
    unsigned __int128 p = 1;
    for (int i = 0; i < -exponent; ++i) p *= 10;
    if (coef % p != 0) return false;
    coef /= p;
  }
  if (coef > limit || (!negative && coef == limit)) return false;
  *out = negative ? static_cast<int64_t>(-static_cast<__int128>(coef)) : static_cast<int64_t>(coef);
  return true;
}

int CanonicalTypeRank(bson_type_t type) {
  switch (type) {
    case BSON_TYPE_MINKEY:
      return -1;
    case BSON_TYPE_EOD:
    case BSON_TYPE_UNDEFINED:
      return 0;
    case BSON_TYPE_NULL:
      return 5;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DECIMAL128:
      return 10;
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
      return 15;
    case BSON_TYPE_DOCUMENT:
      return 20;
    case BSON_TYPE_ARRAY:
      return 25;
    case BSON_TYPE_BINARY:
      return 30;
    case BSON_TYPE_OID:
      return 35;
    case BSON_TYPE_BOOL:
      return 40;
    case BSON_TYPE_DATE_TIME:
      return 45;
    case BSON_TYPE_TIMESTAMP:
      return 47;
    case BSON_TYPE_REGEX:
      return 50;
    case BSON_TYPE_DBPOINTER:
      return 55;
    case BSON_TYPE_CODE:
      return 60;
    case BSON_TYPE_CODEWSCOPE:
      return 65;
    case BSON_TYPE_MAXKEY:
      return 127;
  }
  return 0;
}

int CompareValues(const bson_iter_t* a, const bson_iter_t* b, const StringComparator* strings) {
  bson_type_t ta = bson_iter_type(a), tb = bson_iter_type(b);
  int c = Sign(CanonicalTypeRank(ta), CanonicalTypeRank(tb));
  if (c != 0) return c;
  switch (ta) {
    case BSON_TYPE_MINKEY:
    case BSON_TYPE_MAXKEY:
    case BSON_TYPE_EOD:
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_NULL:
      return 0;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DECIMAL128:
      return CompareNumbers(a, b);
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL: {
      uint32_t la = 0, lb = 0;
      const char* sa = ta == BSON_TYPE_UTF8 ? bson_iter_utf8(a, &la) : bson_iter_symbol(a, &la);
      const char* sb = tb == BSON_TYPE_UTF8 ? bson_iter_utf8(b, &lb) : bson_iter_symbol(b, &lb);
      if (strings != nullptr) {
        c = strings->Compare(std::string_view(sa, la), std::string_view(sb, lb));
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
      }
      return CompareBytes(sa, la, sb, lb);
    }
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY:
      return CompareObjects(IterDocument(a), IterDocument(b), true, strings);
    case BSON_TYPE_BINARY: {
      bson_subtype_t sa, sb;
      uint32_t la = 0, lb = 0;
      const uint8_t *da = nullptr, *db = nullptr;
      bson_iter_binary(a, &sa, &la, &da);
      bson_iter_binary(b, &sb, &lb, &db);
      if (la != lb) return Sign(la, lb);
      if (sa != sb) return Sign(static_cast<int>(sa), static_cast<int>(sb));
      if (la == 0) return 0;
      c = std::memcmp(da, db, la);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case BSON_TYPE_OID:
      c = bson_oid_compare(bson_iter_oid(a), bson_iter_oid(b));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    case BSON_TYPE_BOOL:
      return Sign(bson_iter_bool(a), bson_iter_bool(b));
    case BSON_TYPE_DATE_TIME:
      return Sign(bson_iter_date_time(a), bson_iter_date_time(b));
    case BSON_TYPE_TIMESTAMP: {
      uint32_t t1, i1, t2, i2;
      bson_iter_timestamp(a, &t1, &i1);
      bson_iter_timestamp(b, &t2, &i2);
      c = Sign(t1, t2);
      return c != 0 ? c : Sign(i1, i2);
    }
    case BSON_TYPE_REGEX: {
      const char *oa = nullptr, *ob = nullptr;
      const char* pa = bson_iter_regex(a, &oa);
      const char* pb = bson_iter_regex(b, &ob);
      c = std::strcmp(pa, pb);
      if (c != 0) return c < 0 ? -1 : 1;
      c = std::strcmp(oa, ob);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case BSON_TYPE_DBPOINTER: {
      uint32_t la = 0, lb = 0;
      const char *ca = nullptr, *cb = nullptr;
      const bson_oid_t *oa = nullptr, *ob = nullptr;
      bson_iter_dbpointer(a, &la, &ca, &oa);
      bson_iter_dbpointer(b, &lb, &cb, &ob);
      // MongoDB compares the value sizes first (so the namespace length), then the bytes.
      if (la != lb) return Sign(la, lb);
      c = la == 0 ? 0 : std::memcmp(ca, cb, la);
      if (c != 0) return c < 0 ? -1 : 1;
      c = bson_oid_compare(oa, ob);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case BSON_TYPE_CODE: {
      uint32_t la = 0, lb = 0;
      const char* ca = bson_iter_code(a, &la);
      const char* cb = bson_iter_code(b, &lb);
      return CompareBytes(ca, la, cb, lb);
    }
    case BSON_TYPE_CODEWSCOPE: {
      uint32_t la = 0, lb = 0, sla = 0, slb = 0;
      const uint8_t *sa = nullptr, *sb = nullptr;
      const char* ca = bson_iter_codewscope(a, &la, &sla, &sa);
      const char* cb = bson_iter_codewscope(b, &lb, &slb, &sb);
      c = CompareBytes(ca, la, cb, lb);
      if (c != 0) return c;
      // MongoDB does not pass the collation into a code-with-scope's scope.
      return CompareObjects(BsonView(sa, sla), BsonView(sb, slb), true, nullptr);
    }
  }
  return 0;
}

int CompareDocuments(BsonView a, BsonView b, const StringComparator* strings) {
  return CompareObjects(a, b, true, strings);
}

}  // namespace cairn
