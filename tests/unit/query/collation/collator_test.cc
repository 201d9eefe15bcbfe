// Specification of query/collation: collation documents parsed with MongoDB's codes and messages,
// the normalised form (defaults filled in from the locale), string order under each option, sort
// keys that agree with the order, and the comparator plumbed through CompareValues.
#include "query/collation/collator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "common/bson_compare.h"
#include "tests/unit/query/bson_test_util.h"

namespace cairn::query {
namespace {

using testing::Canonical;

std::shared_ptr<const Collator> MustMake(const char* json) {
  BsonDoc spec = BsonDoc::FromJson(json);
  Result<std::shared_ptr<const Collator>> collator = Collator::Make(spec.view());
  EXPECT_TRUE(collator.ok()) << json << ": " << collator.status().ToString();
  EXPECT_TRUE(collator.ok() && *collator != nullptr) << json;
  return collator.ok() ? *collator : nullptr;
}

int Sign(int x) { return x < 0 ? -1 : (x > 0 ? 1 : 0); }

// ---- Parsing: errors ----

struct ErrorCase {
  const char* spec;
  int code;
  const char* message;  // nullptr: code only
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.spec; }

class CollationErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(CollationErrors, ShouldRefuseAsMongoDB) {
  const ErrorCase& c = GetParam();
  BsonDoc spec = BsonDoc::FromJson(c.spec);
  Result<std::shared_ptr<const Collator>> collator = Collator::Make(spec.view());
  testing::ExpectError(collator.status(), c.code, c.message, c.spec);
}

const ErrorCase kErrorCases[] = {
    // IDL field rules.
    {R"({})", 40414, "BSON field 'collation.locale' is missing but a required field"},
    {R"({"strength": 2})", 40414, nullptr},
    {R"({"locale": "en", "blah": 1})", 40415, "BSON field 'collation.blah' is an unknown field."},
    {R"({"blah": 1})", 40415, nullptr},
    {R"({"locale": "en", "locale": "fr"})", 40413,
     "BSON field 'collation.locale' is a duplicate field"},
    {R"({"locale": 3})", 14,
     "BSON field 'collation.locale' is the wrong type 'int', expected type 'string'"},
    {R"({"locale": "en", "caseLevel": "yes"})", 14,
     "BSON field 'collation.caseLevel' is the wrong type 'string', expected type 'bool'"},
    {R"({"locale": "en", "caseFirst": 1})", 14, nullptr},
    {R"({"locale": "en", "numericOrdering": 1})", 14, nullptr},
    {R"({"locale": "en", "normalization": 1})", 14, nullptr},
    {R"({"locale": "en", "backwards": 1})", 14, nullptr},
    {R"({"locale": "en", "version": 57.1})", 14, nullptr},
    {R"({"locale": "en", "strength": "2"})", 14,
     "BSON field 'collation.strength' is the wrong type 'string', expected types '[long, int, "
     "decimal, double]'"},
    {R"({"locale": "en", "strength": 99})", 51024,
     "BSON field 'collation.strength' value must be <= 5, actual value '99'"},
    {R"({"locale": "en", "strength": 9.9})", 51024, nullptr},
    {R"({"locale": "en", "strength": -1})", 51024,
     "BSON field 'collation.strength' value must be >= 0, actual value '-1'"},
    {R"({"locale": "en", "strength": 0})", 2,
     "Enumeration value '0' for field 'collation.strength' is not a valid value."},
    {R"({"locale": "en", "caseFirst": "invalid"})", 2,
     "Enumeration value 'invalid' for field 'collation.caseFirst' is not a valid value."},
    {R"({"locale": "en", "alternate": "all"})", 2,
     "Enumeration value 'all' for field 'collation.alternate' is not a valid value."},
    {R"({"locale": "en", "maxVariable": "symbol"})", 2, nullptr},
    // Locales ICU does not know exactly.
    {R"({"locale": "xx"})", 2, "Field 'locale' is invalid in: { locale: \"xx\" }"},
    {R"({"locale": "garbage"})", 2, nullptr},
    {R"({"locale": ""})", 2, "Field 'locale' cannot be the empty string in: { locale: \"\" }"},
    {R"({"locale": "root"})", 2, "Field 'locale' is invalid in: { locale: \"root\" }"},
    {R"({"locale": "en_us"})", 2,
     "Field 'locale' is invalid in: { locale: \"en_us\" }. Did you mean 'en_US'?"},
    {R"({"locale": "en_ZZ"})", 2, nullptr},
    {R"({"locale": "en-US"})", 2, nullptr},
    {R"({"locale": "en_USA"})", 2, nullptr},
    {R"({"locale": "en_US@collation=phonebook"})", 2, nullptr},
    {R"({"locale": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"})", 2, nullptr},
    {R"({"locale": "en\u0000"})", 2, nullptr},
    // Version and combinations.
    {R"({"locale": "en", "version": "unknownVersion"})", 161,
     "Requested collation version unknownVersion but the only available collator version was "
     "57.1. Requested collation spec: { locale: \"en\", version: \"unknownVersion\" }"},
    {R"({"locale": "en", "strength": 1, "backwards": true})", 2,
     "'backwards' is invalid with 'strength' of 1 in: { locale: \"en\", strength: 1, backwards: "
     "true }"},
    {R"({"locale": "fr_CA", "strength": 1})", 2, nullptr},  // fr_CA is backwards by default
    {R"({"locale": "en", "strength": 2, "caseFirst": "upper"})", 2,
     "'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: { "
     "locale: \"en\", strength: 2, caseFirst: \"upper\" }"},
};

INSTANTIATE_TEST_SUITE_P(Collation, CollationErrors, ::testing::ValuesIn(kErrorCases));

// ---- Parsing: accepted documents and the normalised form ----

TEST(Collation, ShouldAnswerNoCollatorForSimple) {
  BsonDoc spec = BsonDoc::FromJson(R"({"locale": "simple"})");
  Result<std::shared_ptr<const Collator>> collator = Collator::Make(spec.view());
  ASSERT_TRUE(collator.ok()) << collator.status().ToString();
  EXPECT_EQ(*collator, nullptr);
}

TEST(Collation, ShouldTreatAnEmptyQueryCollationAsNone) {
  Result<std::shared_ptr<const Collator>> none = ParseQueryCollation(BsonView());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
  BsonDoc spec = BsonDoc::FromJson(R"({"locale": "en"})");
  Result<std::shared_ptr<const Collator>> en = ParseQueryCollation(spec.view());
  ASSERT_TRUE(en.ok());
  EXPECT_NE(*en, nullptr);
}

struct NormalisedCase {
  const char* spec;
  const char* normalised;  // canonical extended JSON of spec().ToBson()
};

void PrintTo(const NormalisedCase& c, std::ostream* os) { *os << c.spec; }

class CollationNormalisedForm : public ::testing::TestWithParam<NormalisedCase> {};

TEST_P(CollationNormalisedForm, ShouldFillInTheLocaleDefaults) {
  const NormalisedCase& c = GetParam();
  std::shared_ptr<const Collator> collator = MustMake(c.spec);
  ASSERT_NE(collator, nullptr);
  BsonDoc want = BsonDoc::FromJson(c.normalised);
  EXPECT_EQ(Canonical(collator->spec().ToBson().view()), Canonical(want.view()));
}

const NormalisedCase kNormalisedCases[] = {
    {R"({"locale": "en_US"})",
     R"({"locale": "en_US", "caseLevel": false, "caseFirst": "off", "strength": 3,
         "numericOrdering": false, "alternate": "non-ignorable", "maxVariable": "punct",
         "normalization": false, "backwards": false, "version": "57.1"})"},
    {R"({"locale": "fr_CA"})",
     R"({"locale": "fr_CA", "caseLevel": false, "caseFirst": "off", "strength": 3,
         "numericOrdering": false, "alternate": "non-ignorable", "maxVariable": "punct",
         "normalization": false, "backwards": true, "version": "57.1"})"},
    {R"({"locale": "da"})",
     R"({"locale": "da", "caseLevel": false, "caseFirst": "upper", "strength": 3,
         "numericOrdering": false, "alternate": "non-ignorable", "maxVariable": "punct",
         "normalization": false, "backwards": false, "version": "57.1"})"},
    {R"({"locale": "en", "strength": 2.9, "caseLevel": true, "numericOrdering": true,
         "alternate": "shifted", "maxVariable": "space", "normalization": true,
         "backwards": true, "version": "57.1"})",
     R"({"locale": "en", "caseLevel": true, "caseFirst": "off", "strength": 2,
         "numericOrdering": true, "alternate": "shifted", "maxVariable": "space",
         "normalization": true, "backwards": true, "version": "57.1"})"},
    {R"({"locale": "de@collation=phonebook", "strength": {"$numberLong": "1"}})",
     R"({"locale": "de@collation=phonebook", "caseLevel": false, "caseFirst": "off",
         "strength": 1, "numericOrdering": false, "alternate": "non-ignorable",
         "maxVariable": "punct", "normalization": false, "backwards": false,
         "version": "57.1"})"},
    {R"({"locale": "en", "strength": null, "caseFirst": "lower"})",
     R"({"locale": "en", "caseLevel": false, "caseFirst": "lower", "strength": 3,
         "numericOrdering": false, "alternate": "non-ignorable", "maxVariable": "punct",
         "normalization": false, "backwards": false, "version": "57.1"})"},
};

INSTANTIATE_TEST_SUITE_P(Collation, CollationNormalisedForm, ::testing::ValuesIn(kNormalisedCases));

// ---- String order ----

struct OrderCase {
  const char* spec;
  const char* a;
  const char* b;
  int expected;  // sign of Compare(a, b)
};

void PrintTo(const OrderCase& c, std::ostream* os) {
  *os << c.spec << ": \"" << c.a << "\" vs \"" << c.b << "\" → " << c.expected;
}

class CollationOrder : public ::testing::TestWithParam<OrderCase> {};

TEST_P(CollationOrder, ShouldOrderStringsAsTheCollation) {
  const OrderCase& c = GetParam();
  std::shared_ptr<const Collator> collator = MustMake(c.spec);
  ASSERT_NE(collator, nullptr);
  EXPECT_EQ(Sign(collator->Compare(c.a, c.b)), c.expected);
  EXPECT_EQ(Sign(collator->Compare(c.b, c.a)), -c.expected);
  // Comparison keys order (and tie) exactly as Compare does.
  std::string ka, kb;
  collator->AppendComparisonKey(c.a, &ka);
  collator->AppendComparisonKey(c.b, &kb);
  EXPECT_EQ(Sign(ka.compare(kb)), c.expected);
}

const OrderCase kOrderCases[] = {
    // Strength: 1 ignores case and accents, 2 ignores case, 3 (default) sees both.
    {R"({"locale": "en", "strength": 2})", "a", "A", 0},
    {R"({"locale": "en", "strength": 2})", "ping", "PING", 0},
    {R"({"locale": "en", "strength": 2})", "a", "á", -1},
    {R"({"locale": "en", "strength": 1})", "a", "á", 0},
    {R"({"locale": "en", "strength": 1})", "résumé", "RESUME", 0},
    {R"({"locale": "en"})", "a", "A", -1},
    {R"({"locale": "en"})", "A", "b", -1},  // binary would put "A" < "b" too, but ...
    {R"({"locale": "en"})", "a", "B", -1},  // ... "a" < "B" only under the collation
    {R"({"locale": "en", "caseFirst": "upper"})", "A", "a", -1},
    {R"({"locale": "en", "strength": 1, "caseLevel": true})", "a", "A", -1},
    {R"({"locale": "en", "strength": 1, "caseLevel": true})", "a", "á", 0},
    // numericOrdering: digit runs compare as numbers.
    {R"({"locale": "en"})", "10", "9", -1},
    {R"({"locale": "en", "numericOrdering": true})", "10", "9", 1},
    {R"({"locale": "en", "numericOrdering": true})", "item2", "item10", -1},
    // alternate: shifted ignores punctuation and spaces (maxVariable punct) at strength < 4.
    {R"({"locale": "en", "alternate": "shifted"})", "a-b", "ab", 0},
    {R"({"locale": "en", "alternate": "shifted"})", "a b", "ab", 0},
    {R"({"locale": "en"})", "a-b", "ab", -1},
    {R"({"locale": "en", "alternate": "shifted", "maxVariable": "space"})", "a-b", "ab", -1},
    {R"({"locale": "en", "alternate": "shifted", "maxVariable": "space"})", "a b", "ab", 0},
    {R"({"locale": "en", "alternate": "shifted", "strength": 4})", "a-b", "ab", -1},
    // backwards (French): accents weigh from the end of the string.
    {R"({"locale": "en"})", "cote", "côté", -1},
    {R"({"locale": "en"})", "côte", "coté", 1},
    {R"({"locale": "fr_CA"})", "côte", "coté", -1},
    {R"({"locale": "en", "backwards": true})", "côte", "coté", -1},
    // Locale tailoring: Swedish sorts ä after z, German as a.
    {R"({"locale": "sv"})", "ä", "z", 1},
    {R"({"locale": "de"})", "ä", "z", -1},
    // Identical strength tells apart strings equal at every other level.
    {R"({"locale": "en", "strength": 5})", "a", "a", 0},
};

INSTANTIATE_TEST_SUITE_P(Collation, CollationOrder, ::testing::ValuesIn(kOrderCases));

// ---- Through CompareValues ----

TEST(Collation, ShouldCompareStringsInsideDocumentsAndArraysButNotFieldNames) {
  std::shared_ptr<const Collator> collator = MustMake(R"({"locale": "en", "strength": 2})");
  BsonDoc doc = BsonDoc::FromJson(R"({
      "s1": "abc", "s2": "ABC",
      "d1": {"x": "abc"}, "d2": {"x": "ABC"}, "d3": {"X": "abc"},
      "a1": ["a", "B"], "a2": ["A", "b"],
      "y1": {"$symbol": "abc"},
      "n": 1})");
  auto get = [&](const char* key) {
    bson_iter_t it;
    EXPECT_TRUE(doc.view().Find(key, &it)) << key;
    return it;
  };
  bson_iter_t s1 = get("s1"), s2 = get("s2"), d1 = get("d1"), d2 = get("d2"), d3 = get("d3");
  bson_iter_t a1 = get("a1"), a2 = get("a2"), y1 = get("y1"), n = get("n");
  EXPECT_EQ(CompareValues(&s1, &s2, collator.get()), 0);
  EXPECT_GT(CompareValues(&s1, &s2), 0);  // binary: 'a' > 'A'
  EXPECT_EQ(CompareValues(&d1, &d2, collator.get()), 0);
  EXPECT_NE(CompareValues(&d1, &d3, collator.get()), 0);  // field names stay binary
  EXPECT_EQ(CompareValues(&a1, &a2, collator.get()), 0);
  EXPECT_EQ(CompareValues(&y1, &s2, collator.get()), 0);  // symbols too
  EXPECT_LT(CompareValues(&n, &s1, collator.get()), 0);   // type order first
  EXPECT_EQ(CompareDocuments(IterDocument(&d1), IterDocument(&d2), collator.get()), 0);
}

TEST(Collation, ShouldBeSafeToShareAcrossThreads) {
  std::shared_ptr<const Collator> collator =
      MustMake(R"({"locale": "en", "strength": 2, "numericOrdering": true})");
  ASSERT_NE(collator, nullptr);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        if (collator->Compare("Item" + std::to_string(i), "item" + std::to_string(i)) != 0) {
          ++wrong;
        }
        if (collator->Compare("item" + std::to_string(i), "item" + std::to_string(i + 1)) >= 0) {
          ++wrong;
        }
        std::string key;
        collator->AppendComparisonKey("x" + std::to_string(i), &key);
        if (key.empty()) ++wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace cairn::query
