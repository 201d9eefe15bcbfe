// Specification of MongoDB's canonical BSON order as common/bson_compare implements it: the type
// order of the "Comparison/Sort Order" page, numbers by exact value across int32/int64/double,
// strings binary, objects, arrays, binData and the rarer types as mongod's compareElementValues.
#include "common/bson_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace cairn {
namespace {

// One BSON value, held as the field "v" of a document.
class Value {
 public:
  // `json` is the value in (canonical or relaxed) Extended JSON, e.g. `{"$numberLong": "5"}`.
  static Value Json(const std::string& json) {
    return Value(BsonDoc::FromJson("{\"v\": " + json + "}"));
  }
  static Value Int32(int32_t v) {
    BsonDoc d;
    bson_append_int32(d.get(), "v", 1, v);
    return Value(std::move(d));
  }
  static Value Int64(int64_t v) {
    BsonDoc d;
    bson_append_int64(d.get(), "v", 1, v);
    return Value(std::move(d));
  }
  static Value Double(double v) {
    BsonDoc d;
    bson_append_double(d.get(), "v", 1, v);
    return Value(std::move(d));
  }
  static Value Decimal(const char* s) {
    BsonDoc d;
    bson_decimal128_t dec;
    EXPECT_TRUE(bson_decimal128_from_string(s, &dec)) << s;
    bson_append_decimal128(d.get(), "v", 1, &dec);
    return Value(std::move(d));
  }
  static Value Utf8(std::string_view s) {
    BsonDoc d;
    AppendUtf8(d.get(), "v", s);
    return Value(std::move(d));
  }
  static Value Symbol(std::string_view s) {
    BsonDoc d;
    bson_append_symbol(d.get(), "v", 1, s.data(), static_cast<int>(s.size()));
    return Value(std::move(d));
  }
  static Value Binary(bson_subtype_t subtype, std::string_view bytes) {
    BsonDoc d;
    bson_append_binary(d.get(), "v", 1, subtype, reinterpret_cast<const uint8_t*>(bytes.data()),
                       static_cast<uint32_t>(bytes.size()));
    return Value(std::move(d));
  }
  static Value DbPointer(const char* ns, const char* oid_hex) {
    BsonDoc d;
    bson_oid_t oid;
    bson_oid_init_from_string(&oid, oid_hex);
    bson_append_dbpointer(d.get(), "v", 1, ns, &oid);
    return Value(std::move(d));
  }

  const bson_iter_t* it() const { return &it_; }
  std::string ToString() const { return doc_.ToJson(); }

  Value(Value&& other) noexcept : doc_(std::move(other.doc_)) { Position(); }

 private:
  explicit Value(BsonDoc doc) : doc_(std::move(doc)) { Position(); }
  void Position() { EXPECT_TRUE(doc_.view().Find("v", &it_)); }

  BsonDoc doc_;
  bson_iter_t it_;
};

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// Checks a < b in both argument orders.
void ExpectLess(const Value& a, const Value& b) {
  EXPECT_EQ(Sign(CompareValues(a.it(), b.it())), -1) << a.ToString() << " < " << b.ToString();
  EXPECT_EQ(Sign(CompareValues(b.it(), a.it())), 1) << b.ToString() << " > " << a.ToString();
}

void ExpectEqual(const Value& a, const Value& b) {
  EXPECT_EQ(CompareValues(a.it(), b.it()), 0) << a.ToString() << " == " << b.ToString();
  EXPECT_EQ(CompareValues(b.it(), a.it()), 0) << b.ToString() << " == " << a.ToString();
  EXPECT_TRUE(ValuesEqual(a.it(), b.it()));
}

// Every pair of a list given in strictly ascending order.
void ExpectStrictlyAscending(const std::vector<Value>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(CompareValues(values[i].it(), values[i].it()), 0) << values[i].ToString();
    for (size_t j = i + 1; j < values.size(); ++j) ExpectLess(values[i], values[j]);
  }
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr double kTwo53 = 9007199254740992.0;
constexpr double kTwo63 = 9223372036854775808.0;

// ---- type order ----

// mongodb.com/docs/manual/reference/bson-type-comparison-order: MinKey, Null, Numbers,
// Symbol/String, Object, Array, BinData, ObjectId, Boolean, Date, Timestamp, Regular Expression,
// JavaScript Code, JavaScript Code with Scope, MaxKey; undefined (deprecated) sorts below null
// (canonicalizeBSONType rank 0), dbPointer between regex and code (rank 55).
TEST(BsonCompare, ShouldOrderTypesCanonically) {
  std::vector<Value> values;
  values.push_back(Value::Json(R"({"$minKey": 1})"));
  values.push_back(Value::Json(R"({"$undefined": true})"));
  values.push_back(Value::Json("null"));
  values.push_back(Value::Json(R"({"$numberDouble": "-Infinity"})"));
  values.push_back(Value::Json("1e308"));
  values.push_back(Value::Json(R"({"$numberDouble": "Infinity"})"));
  values.push_back(Value::Json(R"("")"));
  values.push_back(Value::Json(R"("zzzz")"));
  values.push_back(Value::Json("{}"));
  values.push_back(Value::Json(R"({"z": {"$maxKey": 1}})"));
  values.push_back(Value::Json("[]"));
  values.push_back(Value::Json(R"([{"$maxKey": 1}])"));
  values.push_back(Value::Json(R"({"$binary": {"base64": "", "subType": "00"}})"));
  values.push_back(Value::Json(R"({"$binary": {"base64": "////", "subType": "80"}})"));
  values.push_back(Value::Json(R"({"$oid": "000000000000000000000000"})"));
  values.push_back(Value::Json(R"({"$oid": "ffffffffffffffffffffffff"})"));
  values.push_back(Value::Json("false"));
  values.push_back(Value::Json("true"));
  values.push_back(Value::Json(R"({"$date": {"$numberLong": "-9223372036854775808"}})"));
  values.push_back(Value::Json(R"({"$date": {"$numberLong": "9223372036854775807"}})"));
  values.push_back(Value::Json(R"({"$timestamp": {"t": 0, "i": 0}})"));
  values.push_back(Value::Json(R"({"$timestamp": {"t": 4294967295, "i": 4294967295}})"));
  values.push_back(Value::Json(R"({"$regularExpression": {"pattern": "", "options": ""}})"));
  values.push_back(Value::Json(R"({"$regularExpression": {"pattern": "zz", "options": "imsx"}})"));
  values.push_back(Value::DbPointer("a", "000000000000000000000000"));
  values.push_back(Value::DbPointer("zzzz", "ffffffffffffffffffffffff"));
  values.push_back(Value::Json(R"({"$code": ""})"));
  values.push_back(Value::Json(R"({"$code": "zzzz"})"));
  values.push_back(Value::Json(R"({"$code": "", "$scope": {"a": 1}})"));
  values.push_back(Value::Json(R"({"$code": "zzzz", "$scope": {"a": 1}})"));
  values.push_back(Value::Json(R"({"$maxKey": 1})"));
  ExpectStrictlyAscending(values);
}

TEST(BsonCompare, ShouldRankTypesAsCanonicalizeBSONType) {
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_MINKEY), -1);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_UNDEFINED), 0);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_NULL), 5);
  for (bson_type_t t : {BSON_TYPE_INT32, BSON_TYPE_INT64, BSON_TYPE_DOUBLE, BSON_TYPE_DECIMAL128}) {
    EXPECT_EQ(CanonicalTypeRank(t), 10) << t;
  }
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_UTF8), 15);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_SYMBOL), 15);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_DOCUMENT), 20);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_ARRAY), 25);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_BINARY), 30);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_OID), 35);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_BOOL), 40);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_DATE_TIME), 45);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_TIMESTAMP), 47);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_REGEX), 50);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_DBPOINTER), 55);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_CODE), 60);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_CODEWSCOPE), 65);
  EXPECT_EQ(CanonicalTypeRank(BSON_TYPE_MAXKEY), 127);
}

TEST(BsonCompare, ShouldTreatMinKeyMaxKeyNullUndefinedAsEqualToThemselves) {
  ExpectEqual(Value::Json(R"({"$minKey": 1})"), Value::Json(R"({"$minKey": 1})"));
  ExpectEqual(Value::Json(R"({"$maxKey": 1})"), Value::Json(R"({"$maxKey": 1})"));
  ExpectEqual(Value::Json("null"), Value::Json("null"));
  ExpectEqual(Value::Json(R"({"$undefined": true})"), Value::Json(R"({"$undefined": true})"));
}

// ---- numbers ----

TEST(BsonCompare, ShouldCompareNumbersByValueAcrossTypes) {
  ExpectEqual(Value::Int32(1), Value::Int64(1));
  ExpectEqual(Value::Int32(1), Value::Double(1.0));
  ExpectEqual(Value::Int64(1), Value::Double(1.0));
  ExpectEqual(Value::Decimal("1"), Value::Int32(1));
  ExpectEqual(Value::Decimal("1.000"), Value::Double(1.0));
  ExpectEqual(Value::Decimal("1E2"), Value::Int64(100));
  ExpectLess(Value::Int32(1), Value::Double(1.5));
  ExpectLess(Value::Double(1.5), Value::Int64(2));
  ExpectLess(Value::Int32(-3), Value::Int64(-2));
  ExpectLess(Value::Decimal("1.5"), Value::Int32(2));
  ExpectLess(Value::Int32(std::numeric_limits<int32_t>::max()), Value::Int64(2147483648LL));
}

TEST(BsonCompare, ShouldCompareInt64AboveTwoToThe53Exactly) {
  // 2^53 + 1 is not a double: the neighbouring doubles are 2^53 and 2^53 + 2.
  const int64_t p53 = int64_t{1} << 53;
  ExpectLess(Value::Double(kTwo53), Value::Int64(p53 + 1));
  ExpectLess(Value::Int64(p53 + 1), Value::Double(kTwo53 + 2));
  ExpectEqual(Value::Int64(p53), Value::Double(kTwo53));
  ExpectEqual(Value::Int64(p53 + 2), Value::Double(kTwo53 + 2));
  ExpectLess(Value::Int64(p53), Value::Int64(p53 + 1));
  ExpectLess(Value::Double(-kTwo53 - 2), Value::Int64(-p53 - 1));
  ExpectLess(Value::Int64(-p53 - 1), Value::Double(-kTwo53));
}

TEST(BsonCompare, ShouldCompareInt64LimitsWithTwoToThe63Doubles) {
  // int64 max = 2^63 - 1 < 2^63 (a double); int64 min = -2^63 exactly.
  ExpectLess(Value::Int64(kInt64Max), Value::Double(kTwo63));
  ExpectLess(Value::Double(std::nextafter(kTwo63, 0.0)), Value::Int64(kInt64Max));
  ExpectEqual(Value::Int64(kInt64Min), Value::Double(-kTwo63));
  ExpectLess(Value::Double(-kTwo63), Value::Int64(kInt64Min + 1));
  ExpectLess(Value::Double(std::nextafter(-kTwo63, -kInf)), Value::Int64(kInt64Min));
  ExpectLess(Value::Int64(kInt64Max), Value::Double(1e300));
  ExpectLess(Value::Double(-1e300), Value::Int64(kInt64Min));
}

TEST(BsonCompare, ShouldTreatPositiveAndNegativeZeroAsEqual) {
  ExpectEqual(Value::Double(0.0), Value::Double(-0.0));
  ExpectEqual(Value::Double(-0.0), Value::Int32(0));
  ExpectEqual(Value::Double(-0.0), Value::Int64(0));
  ExpectEqual(Value::Decimal("-0"), Value::Int32(0));
  ExpectEqual(Value::Decimal("0E-10"), Value::Double(-0.0));
}

TEST(BsonCompare, ShouldSortNaNBelowEveryNumberAndEqualToNaN) {
  const double nan = std::nan("");
  ExpectEqual(Value::Double(nan), Value::Double(nan));
  ExpectEqual(Value::Double(nan), Value::Double(-nan));
  ExpectEqual(Value::Double(nan), Value::Decimal("NaN"));
  ExpectLess(Value::Double(nan), Value::Double(-kInf));
  ExpectLess(Value::Double(nan), Value::Int64(kInt64Min));
  ExpectLess(Value::Double(nan), Value::Int32(0));
  ExpectLess(Value::Decimal("NaN"), Value::Decimal("-Infinity"));
  // Still a number: above null, below strings.
  ExpectLess(Value::Json("null"), Value::Double(nan));
  ExpectLess(Value::Double(nan), Value::Utf8(""));
}

TEST(BsonCompare, ShouldOrderInfinitiesAroundEveryFiniteNumber) {
  ExpectLess(Value::Double(-kInf), Value::Double(-std::numeric_limits<double>::max()));
  ExpectLess(Value::Double(-kInf), Value::Int64(kInt64Min));
  ExpectLess(Value::Int64(kInt64Max), Value::Double(kInf));
  ExpectLess(Value::Double(std::numeric_limits<double>::max()), Value::Double(kInf));
  ExpectEqual(Value::Double(kInf), Value::Decimal("Infinity"));
  ExpectEqual(Value::Double(-kInf), Value::Decimal("-Infinity"));
}

TEST(BsonCompare, ShouldOrderTinyAndFractionalDoubles) {
  const double denorm = std::numeric_limits<double>::denorm_min();
  ExpectStrictlyAscending([&] {
    std::vector<Value> v;
    v.push_back(Value::Int32(-1));
    v.push_back(Value::Double(-0.5));
    v.push_back(Value::Double(-denorm));
    v.push_back(Value::Int32(0));
    v.push_back(Value::Double(denorm));
    v.push_back(Value::Double(std::numeric_limits<double>::min()));
    v.push_back(Value::Double(0.5));
    v.push_back(Value::Double(std::nextafter(1.0, 0.0)));
    v.push_back(Value::Int64(1));
    v.push_back(Value::Double(std::nextafter(1.0, 2.0)));
    return v;
  }());
}

// A decimal that is exactly an int64 compares exactly, even where doubles cannot hold it.
TEST(BsonCompare, ShouldCompareIntegralDecimalsExactlyAgainstInt64) {
  ExpectEqual(Value::Decimal("9007199254740993"), Value::Int64((int64_t{1} << 53) + 1));
  ExpectLess(Value::Double(kTwo53), Value::Decimal("9007199254740993"));
  ExpectEqual(Value::Decimal("9223372036854775807"), Value::Int64(kInt64Max));
  ExpectEqual(Value::Decimal("-9223372036854775808"), Value::Int64(kInt64Min));
  ExpectLess(Value::Int64(kInt64Max), Value::Decimal("9223372036854775808"));
  ExpectEqual(Value::Decimal("9223372036854775808"), Value::Double(kTwo63));
  ExpectEqual(Value::Decimal("12345678900000000000E-10"), Value::Int64(1234567890));
  ExpectLess(Value::Int64(1234567890), Value::Decimal("12345678901234567890E-10"));
}

// ---- strings ----

TEST(BsonCompare, ShouldCompareStringsBinary) {
  ExpectLess(Value::Utf8(""), Value::Utf8("a"));
  ExpectLess(Value::Utf8("a"), Value::Utf8("ab"));
  ExpectLess(Value::Utf8("B"), Value::Utf8("a"));  // no collation: 'B' (0x42) < 'a' (0x61)
  ExpectLess(Value::Utf8("ab"), Value::Utf8("b"));
  ExpectLess(Value::Utf8("z"), Value::Utf8("\xc3\xa9"));  // bytes, unsigned
  ExpectLess(Value::Utf8(std::string_view("a", 1)), Value::Utf8(std::string_view("a\0", 2)));
  ExpectLess(Value::Utf8(std::string_view("a\0", 2)), Value::Utf8(std::string_view("a\x01", 2)));
  ExpectLess(Value::Utf8(std::string_view("a\0b", 3)), Value::Utf8("ab"));
  ExpectEqual(Value::Utf8(std::string_view("a\0b", 3)), Value::Utf8(std::string_view("a\0b", 3)));
}

TEST(BsonCompare, ShouldCompareSymbolsWithStrings) {
  ExpectEqual(Value::Symbol("abc"), Value::Utf8("abc"));
  ExpectLess(Value::Symbol("abc"), Value::Utf8("abd"));
  ExpectLess(Value::Utf8("abc"), Value::Symbol("abd"));
}

// ---- objects and arrays ----

TEST(BsonCompare, ShouldCompareObjectsByTypeThenFieldNameThenValue) {
  ExpectLess(Value::Json("{}"), Value::Json(R"({"a": {"$minKey": 1}})"));
  // Type rank decides before the name: a number field beats a string field whatever the names.
  ExpectLess(Value::Json(R"({"z": 1})"), Value::Json(R"({"a": "x"})"));
  // Same type: the name decides before the value.
  ExpectLess(Value::Json(R"({"a": 9})"), Value::Json(R"({"b": 1})"));
  ExpectLess(Value::Json(R"({"a": 1})"), Value::Json(R"({"a": 2})"));
  ExpectEqual(Value::Json(R"({"a": 1})"), Value::Json(R"({"a": 1.0})"));
  // A prefix sorts first.
  ExpectLess(Value::Json(R"({"a": 1})"), Value::Json(R"({"a": 1, "b": null})"));
  // Field order matters.
  ExpectLess(Value::Json(R"({"a": 1, "b": 2})"), Value::Json(R"({"b": 2, "a": 1})"));
  // Recursion.
  ExpectLess(Value::Json(R"({"a": {"b": 1}})"), Value::Json(R"({"a": {"b": 1, "c": 0}})"));
  ExpectLess(Value::Json(R"({"a": {"b": [1]}})"), Value::Json(R"({"a": {"b": [2]}})"));
}

TEST(BsonCompare, ShouldCompareArraysElementByElement) {
  ExpectLess(Value::Json("[]"), Value::Json("[null]"));
  ExpectLess(Value::Json("[1]"), Value::Json("[1, 2]"));
  ExpectLess(Value::Json("[1, 2]"), Value::Json("[2]"));
  ExpectLess(Value::Json("[1, 2]"), Value::Json(R"([1, "a"])"));
  ExpectEqual(Value::Json("[1, 2.0]"), Value::Json(R"([1.0, {"$numberLong": "2"}])"));
  ExpectLess(Value::Json("[[1, 2], [3]]"), Value::Json("[[1, 3]]"));
}

TEST(BsonCompare, ShouldCompareDocumentsLikeWoCompare) {
  BsonDoc a = BsonDoc::FromJson(R"({"a": 1, "b": "x"})");
  BsonDoc b = BsonDoc::FromJson(R"({"a": 1.0, "b": "y"})");
  BsonDoc c = BsonDoc::FromJson(R"({"a": {"$numberLong": "1"}, "b": "x"})");
  EXPECT_LT(CompareDocuments(a.view(), b.view()), 0);
  EXPECT_GT(CompareDocuments(b.view(), a.view()), 0);
  EXPECT_EQ(CompareDocuments(a.view(), c.view()), 0);
  EXPECT_LT(CompareDocuments(BsonView(), a.view()), 0);
  EXPECT_EQ(CompareDocuments(BsonView(), BsonView()), 0);
}

// ---- binData and the rarer types ----

// mongod compares binData by length, then subtype, then bytes.
TEST(BsonCompare, ShouldCompareBinDataByLengthThenSubtypeThenBytes) {
  ExpectLess(Value::Binary(BSON_SUBTYPE_USER, "z"), Value::Binary(BSON_SUBTYPE_BINARY, "aa"));
  ExpectLess(Value::Binary(BSON_SUBTYPE_BINARY, "zz"), Value::Binary(BSON_SUBTYPE_UUID, "aa"));
  ExpectLess(Value::Binary(BSON_SUBTYPE_UUID, "zz"), Value::Binary(BSON_SUBTYPE_USER, "aa"));
  ExpectLess(Value::Binary(BSON_SUBTYPE_BINARY, "ab"), Value::Binary(BSON_SUBTYPE_BINARY, "ba"));
  ExpectLess(Value::Binary(BSON_SUBTYPE_BINARY, std::string_view("\x7f", 1)),
             Value::Binary(BSON_SUBTYPE_BINARY, std::string_view("\x80", 1)));
  ExpectEqual(Value::Binary(BSON_SUBTYPE_BINARY, ""), Value::Binary(BSON_SUBTYPE_BINARY, ""));
}

TEST(BsonCompare, ShouldCompareObjectIdsBytewise) {
  ExpectLess(Value::Json(R"({"$oid": "000000000000000000000001"})"),
             Value::Json(R"({"$oid": "000000000000000000000002"})"));
  ExpectLess(Value::Json(R"({"$oid": "7fffffffffffffffffffffff"})"),
             Value::Json(R"({"$oid": "800000000000000000000000"})"));
}

TEST(BsonCompare, ShouldCompareBoolsDatesAndTimestamps) {
  ExpectLess(Value::Json("false"), Value::Json("true"));
  // Dates are signed: before 1970 sorts first.
  ExpectLess(Value::Json(R"({"$date": {"$numberLong": "-1"}})"),
             Value::Json(R"({"$date": {"$numberLong": "0"}})"));
  // Timestamps are unsigned, seconds then increment.
  ExpectLess(Value::Json(R"({"$timestamp": {"t": 1, "i": 4294967295}})"),
             Value::Json(R"({"$timestamp": {"t": 2, "i": 0}})"));
  ExpectLess(Value::Json(R"({"$timestamp": {"t": 2147483647, "i": 0}})"),
             Value::Json(R"({"$timestamp": {"t": 2147483648, "i": 0}})"));
  ExpectLess(Value::Json(R"({"$timestamp": {"t": 1, "i": 1}})"),
             Value::Json(R"({"$timestamp": {"t": 1, "i": 2}})"));
}

TEST(BsonCompare, ShouldCompareRegexByPatternThenOptions) {
  ExpectLess(Value::Json(R"({"$regularExpression": {"pattern": "a", "options": "x"}})"),
             Value::Json(R"({"$regularExpression": {"pattern": "ab", "options": ""}})"));
  ExpectLess(Value::Json(R"({"$regularExpression": {"pattern": "a", "options": "i"}})"),
             Value::Json(R"({"$regularExpression": {"pattern": "a", "options": "m"}})"));
  ExpectEqual(Value::Json(R"({"$regularExpression": {"pattern": "a", "options": "i"}})"),
              Value::Json(R"({"$regularExpression": {"pattern": "a", "options": "i"}})"));
}

// mongod compares dbPointer value sizes first (so the namespace length), then the bytes.
TEST(BsonCompare, ShouldCompareDbPointerByNamespaceLengthThenBytesThenOid) {
  ExpectLess(Value::DbPointer("b", "000000000000000000000000"),
             Value::DbPointer("aa", "000000000000000000000000"));
  ExpectLess(Value::DbPointer("aa", "ffffffffffffffffffffffff"),
             Value::DbPointer("ab", "000000000000000000000000"));
  ExpectLess(Value::DbPointer("ab", "000000000000000000000001"),
             Value::DbPointer("ab", "000000000000000000000002"));
  ExpectEqual(Value::DbPointer("ab", "000000000000000000000001"),
              Value::DbPointer("ab", "000000000000000000000001"));
}

TEST(BsonCompare, ShouldCompareCodeAndCodeWithScope) {
  ExpectLess(Value::Json(R"({"$code": "a"})"), Value::Json(R"({"$code": "ab"})"));
  ExpectLess(Value::Json(R"({"$code": "a", "$scope": {"x": 2}})"),
             Value::Json(R"({"$code": "ab", "$scope": {"x": 1}})"));
  ExpectLess(Value::Json(R"({"$code": "a", "$scope": {"x": 1}})"),
             Value::Json(R"({"$code": "a", "$scope": {"x": 2}})"));
  ExpectEqual(Value::Json(R"({"$code": "a", "$scope": {"x": 1}})"),
              Value::Json(R"({"$code": "a", "$scope": {"x": 1.0}})"));
}

// A collation stand-in: ASCII letters compare case-insensitively.
class CaseInsensitive final : public StringComparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override {
    std::string x = Fold(a), y = Fold(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  void AppendComparisonKey(std::string_view s, std::string* out) const override {
    out->append(Fold(s));
  }

 private:
  static std::string Fold(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
  }
};

TEST(BsonCompare, ShouldCompareStringsAndSymbolsWithTheStringComparator) {
  const CaseInsensitive collation;
  struct Case {
    const char* a;
    const char* b;
    int with_collation;  // sign of CompareValues(a, b, &collation)
  };
  const Case cases[] = {
      {R"("abc")", R"("ABC")", 0},
      {R"("B")", R"("a")", 1},
      {R"({"$symbol": "abc"})", R"("ABC")", 0},
      {R"({"k": "x"})", R"({"k": "X"})", 0},          // strings nested in documents
      {R"(["a", ["b"]])", R"(["A", ["B"]])", 0},      // and arrays, at any depth
      {R"({"k": "x"})", R"({"K": "x"})", 1},          // field names stay binary
      {R"({"$code": "a"})", R"({"$code": "A"})", 1},  // code stays binary
      {R"({"$code": "c", "$scope": {"s": "a"}})", R"({"$code": "c", "$scope": {"s": "A"}})", 1},
      {R"(1)", R"("a")", -1},  // the type order first
  };
  for (const Case& c : cases) {
    Value a = Value::Json(c.a), b = Value::Json(c.b);
    int got = CompareValues(a.it(), b.it(), &collation);
    EXPECT_EQ(got < 0 ? -1 : (got > 0 ? 1 : 0), c.with_collation) << c.a << " vs " << c.b;
    EXPECT_EQ(ValuesEqual(a.it(), b.it(), &collation), c.with_collation == 0) << c.a;
  }
  BsonDoc x = BsonDoc::FromJson(R"({"a": "x", "b": ["Y"]})");
  BsonDoc y = BsonDoc::FromJson(R"({"a": "X", "b": ["y"]})");
  EXPECT_EQ(CompareDocuments(x.view(), y.view(), &collation), 0);
  EXPECT_NE(CompareDocuments(x.view(), y.view()), 0);  // binary without one
}

}  // namespace
}  // namespace cairn
