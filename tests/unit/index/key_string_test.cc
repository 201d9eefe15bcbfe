// Specification of index/key_string: the invariant sign(CompareValues(a, b)) ==
// sign(memcmp-order(Encode(a), Encode(b))), checked on readable examples and by a randomised
// property test over mixed BSON values (single keys, descending keys, compound keys with mixed
// directions), plus the DecodeKey round trip and the pinned on-disk bytes.
#include "index/key_string.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/bson_compare.h"

namespace cairn::index {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kTwo53 = int64_t{1} << 53;
constexpr double kTwo63 = 9223372036854775808.0;

// One BSON value, held as the only field of a document.
class Value {
 public:
  explicit Value(BsonDoc doc) : doc_(std::move(doc)) { Position(); }
  Value(Value&& other) noexcept : doc_(std::move(other.doc_)) { Position(); }
  Value& operator=(Value&& other) noexcept {
    doc_ = std::move(other.doc_);
    Position();
    return *this;
  }

  static Value Json(const std::string& json) {
    return Value(BsonDoc::FromJson("{\"v\": " + json + "}"));
  }
  static Value Int32(int32_t v) {
    return Build([&](bson_t* b) { bson_append_int32(b, "v", 1, v); });
  }
  static Value Int64(int64_t v) {
    return Build([&](bson_t* b) { bson_append_int64(b, "v", 1, v); });
  }
  static Value Double(double v) {
    return Build([&](bson_t* b) { bson_append_double(b, "v", 1, v); });
  }
  static Value Decimal(const char* s) {
    return Build([&](bson_t* b) {
      bson_decimal128_t dec;
      EXPECT_TRUE(bson_decimal128_from_string(s, &dec)) << s;
      bson_append_decimal128(b, "v", 1, &dec);
    });
  }
  static Value Utf8(std::string_view s) {
    return Build([&](bson_t* b) { AppendUtf8(b, "v", s); });
  }
  static Value Symbol(std::string_view s) {
    return Build(
        [&](bson_t* b) { bson_append_symbol(b, "v", 1, s.data(), static_cast<int>(s.size())); });
  }
  static Value DbPointer(const char* ns, const char* oid_hex) {
    return Build([&](bson_t* b) {
      bson_oid_t oid;
      bson_oid_init_from_string(&oid, oid_hex);
      bson_append_dbpointer(b, "v", 1, ns, &oid);
    });
  }
  template <typename F>
  static Value Build(F f) {
    BsonDoc d;
    f(d.get());
    return Value(std::move(d));
  }

  const bson_iter_t* it() const { return &it_; }
  std::string ToString() const { return doc_.ToJson(); }

 private:
  void Position() {
    bson_iter_t it;
    ASSERT_TRUE(doc_.view().Init(&it));
    ASSERT_TRUE(bson_iter_next(&it));
    it_ = it;
  }

  BsonDoc doc_;
  bson_iter_t it_;
};

std::string Encode(const Value& v, bool descending = false) {
  std::string out;
  AppendValue(&out, v.it(), descending);
  return out;
}

std::string Hex(std::string_view bytes) {
  std::string out;
  char buf[4];
  for (unsigned char c : bytes) {
    std::snprintf(buf, sizeof buf, "%02X", c);
    if (!out.empty()) out += ' ';
    out += buf;
  }
  return out;
}

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// Bytewise order, shorter prefix first (what RocksDB's default comparator does).
int ByteOrder(std::string_view a, std::string_view b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return Sign(c);
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

bool IsProperPrefix(std::string_view a, std::string_view b) {
  return a.size() < b.size() && b.substr(0, a.size()) == a;
}

void ExpectSameKey(const Value& a, const Value& b) {
  EXPECT_EQ(Hex(Encode(a)), Hex(Encode(b))) << a.ToString() << " vs " << b.ToString();
}

void ExpectKeyLess(const Value& a, const Value& b) {
  EXPECT_EQ(ByteOrder(Encode(a), Encode(b)), -1) << a.ToString() << " < " << b.ToString();
  EXPECT_EQ(ByteOrder(Encode(a, true), Encode(b, true)), 1)
      << a.ToString() << " desc> " << b.ToString();
  EXPECT_LT(CompareValues(a.it(), b.it()), 0) << a.ToString() << " < " << b.ToString();
}

// Decodes a single-field key and returns the decoded value's iterator (owned by `holder`).
::testing::AssertionResult RoundTrips(const Value& v, bool descending) {
  std::string key = Encode(v, descending);
  Result<BsonDoc> decoded = DecodeKey(key, {descending});
  if (!decoded.ok()) {
    return ::testing::AssertionFailure() << v.ToString() << ": " << decoded.status().ToString();
  }
  bson_iter_t it;
  if (!decoded->view().Init(&it) || !bson_iter_next(&it) || IterKey(&it) != "") {
    return ::testing::AssertionFailure() << "no field \"\" in " << decoded->ToJson();
  }
  if (CompareValues(&it, v.it()) != 0) {
    return ::testing::AssertionFailure() << v.ToString() << " decoded as " << decoded->ToJson();
  }
  std::string again;
  AppendValue(&again, &it, descending);
  if (again != key) {
    return ::testing::AssertionFailure()
           << v.ToString() << " re-encodes differently: " << Hex(key) << " vs " << Hex(again);
  }
  if (bson_iter_next(&it)) return ::testing::AssertionFailure() << "extra fields";
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------
// Examples
// ---------------------------------------------------------------------------------------------

TEST(KeyString, ShouldEncodeOneAndOnePointZeroIdentically) {
  ExpectSameKey(Value::Int32(1), Value::Double(1.0));
  ExpectSameKey(Value::Int32(1), Value::Int64(1));
  ExpectSameKey(Value::Int32(1), Value::Decimal("1"));
  ExpectSameKey(Value::Int32(1), Value::Decimal("1.000"));
  ExpectSameKey(Value::Int32(1), Value::Decimal("0.01E2"));
}

TEST(KeyString, ShouldEncodeNegativeZeroAsZero) {
  ExpectSameKey(Value::Double(-0.0), Value::Double(0.0));
  ExpectSameKey(Value::Double(-0.0), Value::Int32(0));
  ExpectSameKey(Value::Decimal("-0"), Value::Int64(0));
  ExpectSameKey(Value::Decimal("-0E+10"), Value::Int64(0));
}

TEST(KeyString, ShouldSortNaNBelowEveryNumberAndEncodeAllNaNsAlike) {
  ExpectSameKey(Value::Double(std::nan("")), Value::Double(-std::nan("")));
  ExpectSameKey(Value::Double(std::nan("")), Value::Decimal("NaN"));
  ExpectSameKey(Value::Double(std::nan("")),
                Value::Double(std::bit_cast<double>(uint64_t{0x7FF0000000000001})));
  ExpectKeyLess(Value::Double(std::nan("")), Value::Double(-kInf));
  ExpectKeyLess(Value::Json("null"), Value::Double(std::nan("")));
}

TEST(KeyString, ShouldPlaceInfinitiesOutsideEveryFiniteNumber) {
  ExpectKeyLess(Value::Double(-kInf), Value::Double(-std::numeric_limits<double>::max()));
  ExpectKeyLess(Value::Double(-kInf), Value::Int64(kInt64Min));
  ExpectKeyLess(Value::Int64(kInt64Max), Value::Double(kInf));
  ExpectSameKey(Value::Double(kInf), Value::Decimal("Infinity"));
  ExpectSameKey(Value::Double(-kInf), Value::Decimal("-Infinity"));
}

TEST(KeyString, ShouldOrderInt64sThatDoublesCannotHold) {
  ExpectKeyLess(Value::Double(9007199254740992.0), Value::Int64(kTwo53 + 1));
  ExpectKeyLess(Value::Int64(kTwo53 + 1), Value::Double(9007199254740994.0));
  ExpectSameKey(Value::Int64(kTwo53 + 2), Value::Double(9007199254740994.0));
  ExpectKeyLess(Value::Int64(-kTwo53 - 1), Value::Double(-9007199254740992.0));
  ExpectKeyLess(Value::Double(-9007199254740994.0), Value::Int64(-kTwo53 - 1));
  ExpectKeyLess(Value::Int64(kInt64Max - 1), Value::Int64(kInt64Max));
  ExpectKeyLess(Value::Int64(kInt64Max), Value::Double(kTwo63));
  ExpectKeyLess(Value::Double(std::nextafter(kTwo63, 0.0)), Value::Int64(kInt64Max));
  ExpectSameKey(Value::Int64(kInt64Min), Value::Double(-kTwo63));
  ExpectKeyLess(Value::Int64(kInt64Min), Value::Int64(kInt64Min + 1));
  ExpectKeyLess(Value::Int64(kInt64Min + 1023), Value::Double(-kTwo63 + 1024));
  ExpectKeyLess(Value::Double(std::nextafter(-kTwo63, -kInf)), Value::Int64(kInt64Min));
}

TEST(KeyString, ShouldEncodeIntegralDecimalsExactly) {
  ExpectSameKey(Value::Decimal("9007199254740993"), Value::Int64(kTwo53 + 1));
  ExpectSameKey(Value::Decimal("9223372036854775807"), Value::Int64(kInt64Max));
  ExpectSameKey(Value::Decimal("-9223372036854775808"), Value::Int64(kInt64Min));
  ExpectSameKey(Value::Decimal("9223372036854775808"), Value::Double(kTwo63));
  ExpectSameKey(Value::Decimal("0.5"), Value::Double(0.5));
  ExpectSameKey(Value::Decimal("1E+300"), Value::Double(1e300));
}

// Known limitation (index/README.md): a decimal that is neither a double nor an int64 takes the
// key of its nearest double, so such decimals can collide with a double and with each other.
TEST(KeyString, DecimalsThatAreNeitherDoublesNorInt64sTakeTheNearestDoublesKey) {
  ExpectSameKey(Value::Decimal("0.1"), Value::Double(0.1));
  ExpectSameKey(Value::Decimal("0.1"), Value::Decimal("0.10000000000000000000001"));
}

TEST(KeyString, ShouldEncodeTypesInCanonicalOrder) {
  std::vector<Value> values;
  values.push_back(Value::Json(R"({"$minKey": 1})"));
  values.push_back(Value::Json(R"({"$undefined": true})"));
  values.push_back(Value::Json("null"));
  values.push_back(Value::Double(std::nan("")));
  values.push_back(Value::Double(-kInf));
  values.push_back(Value::Int32(0));
  values.push_back(Value::Double(kInf));
  values.push_back(Value::Utf8(""));
  values.push_back(Value::Symbol("a"));
  values.push_back(Value::Utf8("b"));
  values.push_back(Value::Json("{}"));
  values.push_back(Value::Json(R"({"a": {"$maxKey": 1}})"));
  values.push_back(Value::Json("[]"));
  values.push_back(Value::Json(R"([{"$maxKey": 1}])"));
  values.push_back(Value::Json(R"({"$binary": {"base64": "", "subType": "00"}})"));
  values.push_back(Value::Json(R"({"$binary": {"base64": "AA==", "subType": "ff"}})"));
  values.push_back(Value::Json(R"({"$oid": "000000000000000000000000"})"));
  values.push_back(Value::Json(R"({"$oid": "ffffffffffffffffffffffff"})"));
  values.push_back(Value::Json("false"));
  values.push_back(Value::Json("true"));
  values.push_back(Value::Json(R"({"$date": {"$numberLong": "-9223372036854775808"}})"));
  values.push_back(Value::Json(R"({"$date": {"$numberLong": "-1"}})"));
  values.push_back(Value::Json(R"({"$date": {"$numberLong": "0"}})"));
  values.push_back(Value::Json(R"({"$date": {"$numberLong": "9223372036854775807"}})"));
  values.push_back(Value::Json(R"({"$timestamp": {"t": 0, "i": 0}})"));
  values.push_back(Value::Json(R"({"$timestamp": {"t": 4294967295, "i": 4294967295}})"));
  values.push_back(Value::Json(R"({"$regularExpression": {"pattern": "", "options": ""}})"));
  values.push_back(Value::Json(R"({"$regularExpression": {"pattern": "a", "options": "i"}})"));
  values.push_back(Value::DbPointer("b", "ffffffffffffffffffffffff"));
  values.push_back(Value::DbPointer("aa", "000000000000000000000000"));
  values.push_back(Value::Json(R"({"$code": ""})"));
  values.push_back(Value::Json(R"({"$code": "z"})"));
  values.push_back(Value::Json(R"({"$code": "", "$scope": {"a": 1}})"));
  values.push_back(Value::Json(R"({"$maxKey": 1})"));
  for (size_t i = 0; i + 1 < values.size(); ++i) ExpectKeyLess(values[i], values[i + 1]);
}

TEST(KeyString, ShouldEncodeSymbolsAsStrings) {
  ExpectSameKey(Value::Symbol("abc"), Value::Utf8("abc"));
}

TEST(KeyString, ShouldEscapeNulBytesInStrings) {
  EXPECT_EQ(Hex(Encode(Value::Utf8(std::string_view("a\0b", 3)))), "28 61 00 FF 62 00 00");
  ExpectKeyLess(Value::Utf8("a"), Value::Utf8(std::string_view("a\0", 2)));
  ExpectKeyLess(Value::Utf8(std::string_view("a\0", 2)), Value::Utf8(std::string_view("a\0\0", 3)));
  ExpectKeyLess(Value::Utf8(std::string_view("a\0", 2)), Value::Utf8("a\x01"));
  ExpectKeyLess(Value::Utf8(std::string_view("a\0\xff", 3)), Value::Utf8("a\x01"));
  ExpectKeyLess(Value::Utf8("a"), Value::Utf8("a\xff"));
}

TEST(KeyString, ShouldOrderObjectsByTypeThenNameThenValue) {
  ExpectKeyLess(Value::Json(R"({"z": 1})"), Value::Json(R"({"a": "x"})"));
  ExpectKeyLess(Value::Json(R"({"a": 9})"), Value::Json(R"({"b": 1})"));
  ExpectKeyLess(Value::Json(R"({"a": 1})"), Value::Json(R"({"a": 1, "b": null})"));
  ExpectKeyLess(Value::Json(R"({"a": 1})"), Value::Json(R"({"ab": 1})"));
  ExpectSameKey(Value::Json(R"({"a": [1, {"b": 2}]})"),
                Value::Json(R"({"a": [1.0, {"b": {"$numberLong": "2"}}]})"));
}

TEST(KeyString, ShouldOrderArraysElementByElement) {
  ExpectKeyLess(Value::Json("[]"), Value::Json("[null]"));
  ExpectKeyLess(Value::Json("[1]"), Value::Json("[1, 2]"));
  ExpectKeyLess(Value::Json("[1, 2]"), Value::Json("[2]"));
  ExpectKeyLess(Value::Json("[[1], 2]"), Value::Json("[[1, 0]]"));
}

TEST(KeyString, ShouldOrderBinDataByLengthThenSubtypeThenBytes) {
  ExpectKeyLess(Value::Json(R"({"$binary": {"base64": "/w==", "subType": "80"}})"),
                Value::Json(R"({"$binary": {"base64": "AAA=", "subType": "00"}})"));
  ExpectKeyLess(Value::Json(R"({"$binary": {"base64": "/w==", "subType": "00"}})"),
                Value::Json(R"({"$binary": {"base64": "AA==", "subType": "04"}})"));
  ExpectKeyLess(Value::Json(R"({"$binary": {"base64": "AA==", "subType": "00"}})"),
                Value::Json(R"({"$binary": {"base64": "AQ==", "subType": "00"}})"));
}

TEST(KeyString, ShouldOrderDbPointersByNamespaceLengthFirst) {
  ExpectKeyLess(Value::DbPointer("b", "000000000000000000000000"),
                Value::DbPointer("aa", "000000000000000000000000"));
  ExpectKeyLess(Value::DbPointer("ab", "000000000000000000000001"),
                Value::DbPointer("ab", "000000000000000000000002"));
}

TEST(KeyString, ShouldEncodeAMissingFieldAsNull) {
  std::string null_value = Encode(Value::Json("null"));
  std::string missing;
  AppendNull(&missing);
  EXPECT_EQ(missing, null_value);
  std::string missing_desc;
  AppendNull(&missing_desc, true);
  EXPECT_EQ(missing_desc, Encode(Value::Json("null"), true));
}

TEST(KeyString, ShouldInvertEveryByteForDescending) {
  for (const char* json : {"1", R"("ab")", R"({"a": [1, "x"]})", "null", "true"}) {
    Value v = Value::Json(json);
    std::string asc = Encode(v), desc = Encode(v, true);
    ASSERT_EQ(asc.size(), desc.size());
    for (size_t i = 0; i < asc.size(); ++i) {
      EXPECT_EQ(static_cast<uint8_t>(asc[i]), static_cast<uint8_t>(~desc[i])) << json << " @" << i;
    }
  }
}

// Self-delimiting: no encoding is a proper prefix of another, so inverting bytes for descending
// (and appending further fields) cannot turn "shorter first" into a wrong answer.
TEST(KeyString, ShouldNeverEncodeAValueAsAProperPrefixOfAnother) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {R"("a")", R"("ab")"},
      {R"("a")", "\"a\\u0000\""},
      {"[]", "[null]"},
      {"{}", R"({"": null})"},
      {"9007199254740992", R"({"$numberLong": "9007199254740993"})"},
      {R"({"a": 1})", R"({"a": 1, "b": 1})"},
      {R"({"$code": "a"})", R"({"$code": "ab"})"},
  };
  for (const auto& [a, b] : pairs) {
    std::string ea = Encode(Value::Json(a)), eb = Encode(Value::Json(b));
    EXPECT_FALSE(IsProperPrefix(ea, eb)) << a << " / " << b;
    EXPECT_FALSE(IsProperPrefix(eb, ea)) << a << " / " << b;
    EXPECT_EQ(ByteOrder(ea, eb), -1) << a << " < " << b;
    EXPECT_EQ(ByteOrder(Encode(Value::Json(a), true), Encode(Value::Json(b), true)), 1)
        << a << " desc> " << b;
  }
}

TEST(KeyString, ShouldKeepCompoundKeysOrderedFieldByField) {
  // ("a", "z") < ("ab", "a"): the first field decides even though "a" is a prefix of "ab".
  std::string k1, k2;
  AppendValue(&k1, Value::Utf8("a").it());
  AppendValue(&k1, Value::Utf8("z").it());
  AppendValue(&k2, Value::Utf8("ab").it());
  AppendValue(&k2, Value::Utf8("a").it());
  EXPECT_EQ(ByteOrder(k1, k2), -1);
  // {a: 1, b: -1}: (1, "b") < (1, "a") < (2, "z").
  auto key = [](const Value& a, const Value& b) {
    std::string k;
    AppendValue(&k, a.it(), false);
    AppendValue(&k, b.it(), true);
    return k;
  };
  EXPECT_EQ(
      ByteOrder(key(Value::Int32(1), Value::Utf8("b")), key(Value::Int32(1), Value::Utf8("a"))),
      -1);
  EXPECT_EQ(
      ByteOrder(key(Value::Int32(1), Value::Utf8("a")), key(Value::Double(2.0), Value::Utf8("z"))),
      -1);
  EXPECT_EQ(
      ByteOrder(key(Value::Int32(1), Value::Utf8("a")), key(Value::Decimal("1"), Value::Utf8("a"))),
      0);
}

// The persisted bytes: changing any of these breaks every existing index.
TEST(KeyString, ShouldKeepTheOnDiskBytes) {
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"$minKey": 1})"))), "0A");
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"$undefined": true})"))), "0F");
  EXPECT_EQ(Hex(Encode(Value::Json("null"))), "14");
  EXPECT_EQ(Hex(Encode(Value::Int32(1))), "1E BF F0 00 00 00 00 00 00");
  EXPECT_EQ(Hex(Encode(Value::Int32(0))), "1E 80 00 00 00 00 00 00 00");
  EXPECT_EQ(Hex(Encode(Value::Int32(-1))), "1E 40 0F FF FF FF FF FF FF");
  EXPECT_EQ(Hex(Encode(Value::Double(std::nan("")))), "1E 00 00 00 00 00 00 00 00");
  EXPECT_EQ(Hex(Encode(Value::Int64(kTwo53 + 1))), "1E C3 40 00 00 00 00 00 00 00 01");
  EXPECT_EQ(Hex(Encode(Value::Int64(kInt64Max))), "1E C3 DF FF FF FF FF FF FF 03 FF");
  EXPECT_EQ(Hex(Encode(Value::Double(kTwo63))), "1E C3 E0 00 00 00 00 00 00");
  EXPECT_EQ(Hex(Encode(Value::Utf8("ab"))), "28 61 62 00 00");
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"a": 1})"))), "32 1E 61 00 00 BF F0 00 00 00 00 00 00 00");
  EXPECT_EQ(Hex(Encode(Value::Json("[true]"))), "3C 5A 01 00");
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"$binary": {"base64": "AQI=", "subType": "04"}})"))),
            "46 00 00 00 02 04 01 02");
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"$oid": "0102030405060708090a0b0c"})"))),
            "50 01 02 03 04 05 06 07 08 09 0A 0B 0C");
  EXPECT_EQ(Hex(Encode(Value::Json("false"))), "5A 00");
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"$date": {"$numberLong": "1"}})"))),
            "64 80 00 00 00 00 00 00 01");
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"$timestamp": {"t": 1, "i": 2}})"))),
            "6E 00 00 00 01 00 00 00 02");
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"$regularExpression": {"pattern": "a", "options": "i"}})"))),
            "78 61 00 00 69 00 00");
  EXPECT_EQ(Hex(Encode(Value::DbPointer("n", "0102030405060708090a0b0c"))),
            "82 00 00 00 01 6E 01 02 03 04 05 06 07 08 09 0A 0B 0C");
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"$code": "f"})"))), "8C 66 00 00");
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"$code": "f", "$scope": {"x": null}})"))),
            "96 66 00 00 14 78 00 00 00");
  EXPECT_EQ(Hex(Encode(Value::Json(R"({"$maxKey": 1})"))), "F0");
}

TEST(KeyString, ShouldDecodeEveryTypeToAnEqualValue) {
  for (const char* json : {R"({"$minKey": 1})",
                           R"({"$maxKey": 1})",
                           "null",
                           R"({"$undefined": true})",
                           "0",
                           "-1",
                           "1.5",
                           R"({"$numberLong": "9007199254740993"})",
                           R"({"$numberLong": "-9223372036854775808"})",
                           R"({"$numberLong": "9223372036854775807"})",
                           R"({"$numberDouble": "NaN"})",
                           R"({"$numberDouble": "-Infinity"})",
                           "1e300",
                           "-5e-324",
                           R"({"$numberDecimal": "0.1"})",
                           R"("")",
                           R"("a\u0000b")",
                           R"({"$symbol": "s"})",
                           "{}",
                           R"({"a": {"b": [1, {"c": "d"}]}})",
                           "[]",
                           R"([[], {}, null])",
                           R"({"$binary": {"base64": "AQID", "subType": "80"}})",
                           R"({"$binary": {"base64": "AQID", "subType": "02"}})",
                           R"({"$oid": "0102030405060708090a0b0c"})",
                           "true",
                           "false",
                           R"({"$date": {"$numberLong": "-5"}})",
                           R"({"$timestamp": {"t": 7, "i": 9}})",
                           R"({"$regularExpression": {"pattern": "^a.*b", "options": "im"}})",
                           R"({"$code": "fn"})",
                           R"({"$code": "fn", "$scope": {"x": [1]}})"}) {
    Value v = Value::Json(json);
    EXPECT_TRUE(RoundTrips(v, false)) << json;
    EXPECT_TRUE(RoundTrips(v, true)) << json;
  }
  EXPECT_TRUE(RoundTrips(Value::DbPointer("db.coll", "0102030405060708090a0b0c"), false));
  EXPECT_TRUE(RoundTrips(Value::DbPointer("db.coll", "0102030405060708090a0b0c"), true));
}

TEST(KeyString, ShouldDecodeNumbersToTheNarrowestTypeHoldingTheValue) {
  auto decoded_type = [](const Value& v) {
    Result<BsonDoc> d = DecodeKey(Encode(v), {false});
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    bson_iter_t it;
    if (!d.ok() || !d->view().Init(&it) || !bson_iter_next(&it)) return BSON_TYPE_EOD;
    return bson_iter_type(&it);
  };
  EXPECT_EQ(decoded_type(Value::Double(1.0)), BSON_TYPE_INT32);
  EXPECT_EQ(decoded_type(Value::Int64(1)), BSON_TYPE_INT32);
  EXPECT_EQ(decoded_type(Value::Int64(int64_t{1} << 40)), BSON_TYPE_INT64);
  EXPECT_EQ(decoded_type(Value::Int64(kTwo53 + 1)), BSON_TYPE_INT64);
  EXPECT_EQ(decoded_type(Value::Double(1.5)), BSON_TYPE_DOUBLE);
  EXPECT_EQ(decoded_type(Value::Double(kTwo63)), BSON_TYPE_DOUBLE);
  EXPECT_EQ(decoded_type(Value::Symbol("s")), BSON_TYPE_UTF8);
}

TEST(KeyString, ShouldDecodeCompoundKeysWithMixedDirections) {
  std::string key;
  AppendValue(&key, Value::Utf8("x").it(), false);
  AppendValue(&key, Value::Json(R"({"a": [1, 2]})").it(), true);
  AppendNull(&key, true);
  Result<BsonDoc> decoded = DecodeKey(key, {false, true, true});
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(ToShellString(decoded->view()), R"({ : "x", : { a: [ 1, 2 ] }, : null })");
}

TEST(KeyString, ShouldRejectMalformedKeys) {
  std::string good = Encode(Value::Json(R"({"a": "xyz", "b": 12345678901})"));
  for (size_t cut = 0; cut < good.size(); ++cut) {
    Result<BsonDoc> r = DecodeKey(std::string_view(good).substr(0, cut), {false});
    EXPECT_EQ(r.status().code(), ErrorCode::kBadValue) << "cut at " << cut;
  }
  EXPECT_EQ(DecodeKey(good + "\x14", {false}).status().code(), ErrorCode::kBadValue);  // trailing
  EXPECT_EQ(DecodeKey(good, {false, false}).status().code(), ErrorCode::kBadValue);    // missing
  EXPECT_EQ(DecodeKey("\x01", {false}).status().code(), ErrorCode::kBadValue);         // type byte
  EXPECT_EQ(DecodeKey(std::string("\x28"
                                  "a\x00\x01\x00\x00",
                                  6),
                      {false})
                .status()
                .code(),
            ErrorCode::kBadValue);  // bad escape
  EXPECT_EQ(DecodeKey(std::string("\x5A\x02", 2), {false}).status().code(), ErrorCode::kBadValue);
  EXPECT_TRUE(DecodeKey(good, {false}).ok());
  EXPECT_FALSE(DecodeKey(good, {true}).ok());  // wrong direction
  EXPECT_TRUE(DecodeKey("", {}).ok());
}

// Malformed input never crashes the decoder: it either decodes or answers BadValue.
TEST(KeyString, ShouldSurviveCorruptedKeys) {
  std::mt19937_64 rng(7);
  std::vector<std::string> seeds;
  for (const char* json :
       {R"({"a": [1, "x", {"b": null}], "c": {"$binary": {"base64": "AQI=", "subType": "00"}}})",
        R"({"$numberLong": "9007199254740993"})", R"("a\u0000b")",
        R"({"$code": "f", "$scope": {"x": [[]]}})"}) {
    seeds.push_back(Encode(Value::Json(json)));
  }
  int decoded = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string key = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !key.empty(); ++e) {
      size_t at = rng() % key.size();
      switch (rng() % 3) {
        case 0:
          key[at] = static_cast<char>(rng());
          break;
        case 1:
          key.erase(at, 1);
          break;
        default:
          key.insert(at, 1, static_cast<char>(rng()));
          break;
      }
    }
    Result<BsonDoc> r = DecodeKey(key, {rng() % 4 == 0});
    if (r.ok()) {
      ++decoded;
    } else {
      EXPECT_EQ(r.status().code(), ErrorCode::kBadValue);
    }
  }
  // Fully random bytes, including deep nesting attempts.
  EXPECT_FALSE(DecodeKey(std::string(100000, '\x32'), {false}).ok());
  EXPECT_FALSE(DecodeKey(std::string(100000, '\x3C'), {false}).ok());
  RecordProperty("decoded", decoded);
}

// A number's offset must lie below the gap to the next double: one value, one encoding.
TEST(KeyString, ShouldRejectNonCanonicalNumberOffsets) {
  std::string key = Encode(Value::Int64(kTwo53 + 1));  // D = 2^53, offset 1
  ASSERT_EQ(Hex(key), "1E C3 40 00 00 00 00 00 00 00 01");
  key.back() = 2;  // 2^53 + 2 must be written with D = 2^53 + 2, offset 0
  EXPECT_EQ(DecodeKey(key, {false}).status().code(), ErrorCode::kBadValue);
  std::string max = Encode(Value::Int64(kInt64Max));
  max.back() = static_cast<char>(0xFF);
  max[max.size() - 2] = 0x03;  // offset 1023 at D = 2^63 - 1024 is INT64_MAX: fine
  EXPECT_TRUE(DecodeKey(max, {false}).ok());
  max[max.size() - 2] = 0x04;  // offset 1024: beyond
  EXPECT_FALSE(DecodeKey(max, {false}).ok());
}

// ---------------------------------------------------------------------------------------------
// Randomised property test
// ---------------------------------------------------------------------------------------------

// Generates mixed BSON values biased towards collisions and edge cases.
class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  Value Next() {
    BsonDoc doc;
    AppendRandom(doc.get(), "v", 0);
    return Value(std::move(doc));
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool Chance(int percent) { return Pick(100) < static_cast<size_t>(percent); }

  // Integral anchors, many of them where int64 and double part ways.
  int64_t IntAnchor() {
    static const int64_t kAnchors[] = {0,
                                       1,
                                       -1,
                                       2,
                                       -2,
                                       7,
                                       100,
                                       -100,
                                       2147483647,
                                       -2147483648LL,
                                       2147483648LL,
                                       kTwo53 - 1,
                                       kTwo53,
                                       kTwo53 + 1,
                                       kTwo53 + 2,
                                       kTwo53 + 3,
                                       -kTwo53 - 1,
                                       -kTwo53,
                                       -kTwo53 + 1,
                                       -kTwo53 - 2,
                                       -kTwo53 - 3,
                                       (int64_t{1} << 62) + 511,
                                       (int64_t{1} << 62) + 512,
                                       (int64_t{1} << 62) + 513,
                                       (int64_t{1} << 62),
                                       kInt64Max,
                                       kInt64Max - 1,
                                       kInt64Max - 1023,
                                       kInt64Max - 1024,
                                       kInt64Max - 1025,
                                       kInt64Min,
                                       kInt64Min + 1,
                                       kInt64Min + 1023,
                                       kInt64Min + 1024,
                                       kInt64Min + 1025,
                                       int64_t{1} << 60,
                                       -(int64_t{1} << 60) - 5};
    int64_t v = kAnchors[Pick(std::size(kAnchors))];
    if (Chance(20)) {
      int64_t delta = static_cast<int64_t>(Pick(5)) - 2;
      if (!((delta > 0 && v > kInt64Max - delta) || (delta < 0 && v < kInt64Min - delta)))
        v += delta;
    }
    if (Chance(10)) v = static_cast<int64_t>(rng_());
    return v;
  }

  double DoubleValue() {
    static const double kDoubles[] = {0.0,
                                      -0.0,
                                      1.0,
                                      -1.0,
                                      0.5,
                                      -0.5,
                                      1.5,
                                      2.5,
                                      0.1,
                                      -0.1,
                                      9007199254740992.0,
                                      9007199254740994.0,
                                      -9007199254740992.0,
                                      -9007199254740994.0,
                                      9007199254740991.0,
                                      kTwo63,
                                      -kTwo63,
                                      std::nextafter(kTwo63, 0.0),
                                      std::nextafter(-kTwo63, 0.0),
                                      std::nextafter(-kTwo63, -kInf),
                                      1e300,
                                      -1e300,
                                      1e-300,
                                      -1e-300,
                                      std::numeric_limits<double>::denorm_min(),
                                      -std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<double>::min(),
                                      std::numeric_limits<double>::max(),
                                      -std::numeric_limits<double>::max(),
                                      kInf,
                                      -kInf,
                                      std::nan(""),
                                      -std::nan(""),
                                      4611686018427388416.0};
    switch (Pick(5)) {
      case 0:
        return kDoubles[Pick(std::size(kDoubles))];
      case 1:
        return static_cast<double>(IntAnchor());
      case 2:
        return std::nextafter(static_cast<double>(IntAnchor()), Chance(50) ? kInf : -kInf);
      case 3:
        return std::bit_cast<double>(static_cast<uint64_t>(rng_()));
      default:
        return static_cast<double>(static_cast<int>(Pick(41)) - 20) / 4.0;
    }
  }

  std::string DecimalString() {
    static const char* kDecimals[] = {"0",
                                      "-0",
                                      "1",
                                      "1.0",
                                      "-1",
                                      "0.5",
                                      "0.1",
                                      "1E+2",
                                      "NaN",
                                      "-NaN",
                                      "Infinity",
                                      "-Infinity",
                                      "9007199254740993",
                                      "9223372036854775807",
                                      "-9223372036854775808",
                                      "9223372036854775808",
                                      "-9223372036854775809",
                                      "12345678901234567890E-10",
                                      "1E+400",
                                      "1E-400",
                                      "0.10000000000000000000001",
                                      "4611686018427388416"};
    char buf[64];
    switch (Pick(4)) {
      case 0:
        return kDecimals[Pick(std::size(kDecimals))];
      case 1:
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(IntAnchor()));
        return buf;
      case 2:
        std::snprintf(buf, sizeof buf, "%.17g", DoubleValue());
        return buf;
      default:
        std::snprintf(buf, sizeof buf, "%d.%02d", static_cast<int>(Pick(7)) - 3,
                      static_cast<int>(Pick(100)));
        return buf;
    }
  }

  void AppendDecimal(bson_t* out, const char* key, const std::string& s) {
    bson_decimal128_t dec;
    if (!bson_decimal128_from_string(s.c_str(), &dec)) ADD_FAILURE() << "bad decimal " << s;
    bson_append_decimal128(out, key, -1, &dec);
  }

  // One anchor value written as any of the numeric types that can hold it (or its neighbour),
  // so equal values of different types meet often.
  void AppendAnchoredNumber(bson_t* out, const char* key) {
    char buf[64];
    if (Chance(60)) {
      int64_t v = IntAnchor();
      switch (Pick(4)) {
        case 0:
          if (v >= std::numeric_limits<int32_t>::min() &&
              v <= std::numeric_limits<int32_t>::max()) {
            bson_append_int32(out, key, -1, static_cast<int32_t>(v));
            return;
          }
          [[fallthrough]];
        case 1:
          bson_append_int64(out, key, -1, v);
          return;
        case 2:
          bson_append_double(out, key, -1, static_cast<double>(v));
          return;
        default:
          std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
          AppendDecimal(out, key, Chance(50) ? std::string(buf) : std::string(buf) + ".000");
          return;
      }
    }
    double d = DoubleValue();
    int64_t i = 0;
    switch (Pick(3)) {
      case 0:
        if (std::trunc(d) == d && d >= -kTwo63 && d < kTwo63) {
          i = static_cast<int64_t>(d);
          bson_append_int64(out, key, -1, i);
          return;
        }
        [[fallthrough]];
      case 1:
        bson_append_double(out, key, -1, d);
        return;
      default:
        std::snprintf(buf, sizeof buf, "%.17g", d);
        AppendDecimal(out, key,
                      std::isnan(d)   ? "NaN"
                      : std::isinf(d) ? (d > 0 ? "Infinity" : "-Infinity")
                                      : buf);
        return;
    }
  }

  void AppendNumber(bson_t* out, const char* key) {
    switch (Pick(6)) {
      case 0: {
        int64_t v = IntAnchor();
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
          v = static_cast<int32_t>(v);
        }
        bson_append_int32(out, key, -1, static_cast<int32_t>(v));
        return;
      }
      case 1:
        bson_append_int64(out, key, -1, IntAnchor());
        return;
      case 2:
        bson_append_double(out, key, -1, DoubleValue());
        return;
      case 3:
        AppendDecimal(out, key, DecimalString());
        return;
      default:
        AppendAnchoredNumber(out, key);
        return;
    }
  }

  std::string Bytes(size_t max_len, bool allow_nul) {
    static const char kAlphabet[] = {'\0', '\x01', 'a', 'b', '\xff', '\x7f', '\x80'};
    std::string s;
    size_t len = Pick(max_len + 1);
    for (size_t i = 0; i < len; ++i) {
      char c = kAlphabet[Pick(std::size(kAlphabet))];
      if (c == '\0' && !allow_nul) c = 'a';
      s.push_back(c);
    }
    return s;
  }

  std::string Name() {
    static const char* kNames[] = {"", "a", "b", "ab", "a\x01"};
    return kNames[Pick(std::size(kNames))];
  }

  bson_oid_t Oid() {
    bson_oid_t oid;
    for (auto& b : oid.bytes)
      b = static_cast<uint8_t>(Chance(80) ? 0 : (Chance(50) ? 0xFF : Pick(256)));
    return oid;
  }

  void AppendDocument(bson_t* out, const char* key, int depth, bool array) {
    bson_t child;
    bson_init(&child);
    size_t n = Pick(4);
    char index[24];
    for (size_t i = 0; i < n; ++i) {
      if (array) {
        std::snprintf(index, sizeof index, "%zu", i);
        AppendRandom(&child, index, depth + 1);
      } else {
        AppendRandom(&child, Name().c_str(), depth + 1);
      }
    }
    if (array) {
      bson_append_array(out, key, -1, &child);
    } else {
      bson_append_document(out, key, -1, &child);
    }
    bson_destroy(&child);
  }

  void AppendRandom(bson_t* out, const char* key, int depth) {
    size_t kind = Pick(100);
    if (depth >= 3 && (kind >= 45 && kind < 60)) kind = 0;  // no deeper nesting
    if (kind < 35) return AppendNumber(out, key);
    if (kind < 45) {
      std::string s = Bytes(4, true);
      if (Chance(85)) {
        AppendUtf8(out, key, s);
      } else {
        bson_append_symbol(out, key, -1, s.data(), static_cast<int>(s.size()));
      }
      return;
    }
    if (kind < 52) return AppendDocument(out, key, depth, false);
    if (kind < 60) return AppendDocument(out, key, depth, true);
    switch (kind) {
      case 60:
      case 61:
      case 62: {
        static const bson_subtype_t kSubtypes[] = {
            BSON_SUBTYPE_BINARY, BSON_SUBTYPE_FUNCTION, BSON_SUBTYPE_BINARY_DEPRECATED,
            BSON_SUBTYPE_UUID,   BSON_SUBTYPE_USER,     static_cast<bson_subtype_t>(0xFF)};
        std::string data = Bytes(3, true);
        bson_append_binary(out, key, -1, kSubtypes[Pick(std::size(kSubtypes))],
                           reinterpret_cast<const uint8_t*>(data.data()),
                           static_cast<uint32_t>(data.size()));
        return;
      }
      case 63:
      case 64:
      case 65: {
        bson_oid_t oid = Oid();
        bson_append_oid(out, key, -1, &oid);
        return;
      }
      case 66:
      case 67:
        bson_append_bool(out, key, -1, Chance(50));
        return;
      case 68:
      case 69:
      case 70: {
        static const int64_t kDates[] = {kInt64Min, -1, 0, 1, 1700000000000, kInt64Max};
        bson_append_date_time(
            out, key, -1,
            Chance(70) ? kDates[Pick(std::size(kDates))] : static_cast<int64_t>(rng_()));
        return;
      }
      case 71:
      case 72:
      case 73: {
        static const uint32_t kParts[] = {0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF};
        bson_append_timestamp(out, key, -1, kParts[Pick(std::size(kParts))],
                              kParts[Pick(std::size(kParts))]);
        return;
      }
      case 74:
      case 75: {
        static const char* kPatterns[] = {"", "a", "ab", "b", "a\x01"};
        static const char* kOptions[] = {"", "i", "im", "x"};
        bson_append_regex(out, key, -1, kPatterns[Pick(std::size(kPatterns))],
                          kOptions[Pick(std::size(kOptions))]);
        return;
      }
      case 76:
      case 77: {
        static const char* kNamespaces[] = {"", "a", "b", "aa", "ab", "db.c"};
        bson_oid_t oid = Oid();
        bson_append_dbpointer(out, key, -1, kNamespaces[Pick(std::size(kNamespaces))], &oid);
        return;
      }
      case 78:
      case 79: {
        std::string code = Bytes(3, false);
        bson_append_code(out, key, -1, code.c_str());
        return;
      }
      case 80:
      case 81: {
        std::string code = Bytes(2, false);
        bson_t scope;
        bson_init(&scope);
        size_t n = 1 + Pick(2);
        for (size_t i = 0; i < n; ++i) AppendRandom(&scope, Name().c_str(), depth + 2);
        bson_append_code_with_scope(out, key, -1, code.c_str(), &scope);
        bson_destroy(&scope);
        return;
      }
      case 82:
      case 83:
        bson_append_minkey(out, key, -1);
        return;
      case 84:
      case 85:
        bson_append_maxkey(out, key, -1);
        return;
      case 86:
      case 87:
      case 88:
      case 89:
        bson_append_null(out, key, -1);
        return;
      case 90:
      case 91:
        bson_append_undefined(out, key, -1);
        return;
      default:
        return AppendNumber(out, key);
    }
  }

  std::mt19937_64 rng_;
};

struct Encoded {
  Value value;
  std::string asc;
  std::string desc;
};

std::vector<Encoded> MakePool(uint64_t seed, size_t n) {
  Generator gen(seed);
  std::vector<Encoded> pool;
  pool.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Value v = gen.Next();
    std::string asc = Encode(v), desc = Encode(v, true);
    pool.push_back(Encoded{std::move(v), std::move(asc), std::move(desc)});
  }
  return pool;
}

constexpr uint64_t kSeed = 20240611;
constexpr size_t kPoolSize = 2000;
constexpr int kPairs = 200000;
constexpr int kCompoundPairs = 100000;

TEST(KeyStringProperty, ShouldOrderRandomPairsAsCompareValues) {
  std::vector<Encoded> pool = MakePool(kSeed, kPoolSize);
  std::mt19937_64 rng(kSeed + 1);
  std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
  int failures = 0, equal = 0, less = 0;
  for (int n = 0; n < kPairs && failures < 10; ++n) {
    const Encoded& a = pool[pick(rng)];
    const Encoded& b = pool[pick(rng)];
    int expected = Sign(CompareValues(a.value.it(), b.value.it()));
    int asc = ByteOrder(a.asc, b.asc);
    int desc = ByteOrder(a.desc, b.desc);
    bool prefix = IsProperPrefix(a.asc, b.asc) || IsProperPrefix(b.asc, a.asc);
    if (asc != expected || desc != -expected || prefix) {
      ++failures;
      ADD_FAILURE() << a.value.ToString() << " vs " << b.value.ToString() << ": CompareValues "
                    << expected << ", asc " << asc << ", desc " << desc << ", prefix " << prefix
                    << "\n  " << Hex(a.asc) << "\n  " << Hex(b.asc);
    }
    equal += expected == 0;
    less += expected < 0;
  }
  // The generator must actually produce collisions (mostly equal numbers of different types)
  // and both orders.
  EXPECT_GT(equal, kPairs / 200);
  EXPECT_GT(less, kPairs / 4);
  RecordProperty("equal_pairs", equal);
}

TEST(KeyStringProperty, ShouldRoundTripRandomValuesThroughDecodeKey) {
  std::vector<Encoded> pool = MakePool(kSeed, kPoolSize);
  int failures = 0;
  for (const Encoded& e : pool) {
    for (bool descending : {false, true}) {
      ::testing::AssertionResult r = RoundTrips(e.value, descending);
      if (!r && ++failures <= 10) ADD_FAILURE() << r.message();
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(KeyStringProperty, ShouldOrderRandomCompoundKeysAsTupleComparison) {
  std::vector<Encoded> pool = MakePool(kSeed + 2, kPoolSize);
  std::mt19937_64 rng(kSeed + 3);
  std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
  int failures = 0;
  for (int n = 0; n < kCompoundPairs && failures < 10; ++n) {
    const size_t fields = 2 + rng() % 2;
    std::vector<bool> descending(fields);
    std::string ka, kb;
    int expected = 0;
    std::vector<const Encoded*> as, bs;
    for (size_t f = 0; f < fields; ++f) {
      descending[f] = rng() % 2 == 1;
      const Encoded* a = &pool[pick(rng)];
      // Bias towards equal leading fields so later fields get compared.
      const Encoded* b = rng() % 3 == 0 ? &pool[pick(rng)] : a;
      if (rng() % 4 == 0) b = &pool[pick(rng)];
      as.push_back(a);
      bs.push_back(b);
      ka += descending[f] ? a->desc : a->asc;
      kb += descending[f] ? b->desc : b->asc;
      if (expected == 0) {
        int c = Sign(CompareValues(a->value.it(), b->value.it()));
        expected = descending[f] ? -c : c;
      }
    }
    int got = ByteOrder(ka, kb);
    if (got != expected) {
      ++failures;
      std::string desc;
      for (size_t f = 0; f < fields; ++f) {
        desc += "\n  " + std::string(descending[f] ? "desc " : "asc  ") + as[f]->value.ToString() +
                " vs " + bs[f]->value.ToString();
      }
      ADD_FAILURE() << "expected " << expected << ", got " << got << desc;
    }
    if (n % 10 == 0) {
      Result<BsonDoc> decoded = DecodeKey(ka, descending);
      ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
      bson_iter_t it;
      ASSERT_TRUE(decoded->view().Init(&it));
      for (size_t f = 0; f < fields; ++f) {
        ASSERT_TRUE(bson_iter_next(&it));
        EXPECT_EQ(CompareValues(&it, as[f]->value.it()), 0)
            << as[f]->value.ToString() << " decoded as " << decoded->ToJson();
      }
      EXPECT_FALSE(bson_iter_next(&it));
    }
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace cairn::index
