// Specification of SortPattern: parse errors as MongoDB answers them, and the order of documents
// (missing as null, empty arrays before null, arrays by min ascending / max descending, several
// keys, the canonical type order across types).
#include "query/sort/sort_pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace cairn::query {
namespace {

SortPattern MustParse(const char* spec) {
  BsonDoc doc = BsonDoc::FromJson(spec);
  Result<SortPattern> pattern = SortPattern::Parse(doc.view());
  EXPECT_TRUE(pattern.ok()) << spec << ": " << pattern.status().ToString();
  return pattern.ok() ? std::move(pattern).value() : SortPattern();
}

int Sign(int x) { return x < 0 ? -1 : (x > 0 ? 1 : 0); }

struct OrderCase {
  const char* sort;
  const char* a;
  const char* b;
  int expected;  // sign of Compare(a, b)
};

void PrintTo(const OrderCase& c, std::ostream* os) {
  *os << "sort " << c.sort << ": " << c.a << " vs " << c.b << " → " << c.expected;
}

class SortOrder : public ::testing::TestWithParam<OrderCase> {};

TEST_P(SortOrder, ShouldOrderAsMongoDB) {
  const OrderCase& c = GetParam();
  SortPattern pattern = MustParse(c.sort);
  BsonDoc a = BsonDoc::FromJson(c.a), b = BsonDoc::FromJson(c.b);
  EXPECT_EQ(Sign(pattern.Compare(a.view(), b.view())), c.expected);
  EXPECT_EQ(Sign(pattern.Compare(b.view(), a.view())), -c.expected);
}

const OrderCase kOrderCases[] = {
    // One key, scalars.
    {R"({"a": 1})", R"({"a": 1})", R"({"a": 2})", -1},
    {R"({"a": -1})", R"({"a": 1})", R"({"a": 2})", 1},
    {R"({"a": 1})", R"({"a": 2})", R"({"a": 2.0})", 0},
    {R"({"a": 1})", R"({"a": {"$numberLong": "3"}})", R"({"a": 2.5})", 1},
    {R"({"a": 1.0})", R"({"a": "a"})", R"({"a": "b"})", -1},
    {R"({"a": {"$numberLong": "-1"}})", R"({"a": "a"})", R"({"a": "b"})", 1},
    // Missing sorts as null, before numbers; an empty array sorts before null.
    {R"({"a": 1})", R"({})", R"({"a": null})", 0},
    {R"({"a": 1})", R"({})", R"({"a": 0})", -1},
    {R"({"a": 1})", R"({"a": []})", R"({"a": null})", -1},
    {R"({"a": 1})", R"({"a": []})", R"({})", -1},
    {R"({"a": -1})", R"({})", R"({"a": -5})", 1},
    // Canonical type order: numbers < strings < objects < arrays < binData < ObjectId < bool <
    // date.
    {R"({"a": 1})", R"({"a": 5})", R"({"a": "x"})", -1},
    {R"({"a": 1})", R"({"a": "x"})", R"({"a": {"b": 1}})", -1},
    {R"({"a": 1})", R"({"a": {"b": 1}})", R"({"a": {"$oid": "5f1b0c0e0000000000000001"}})", -1},
    {R"({"a": 1})", R"({"a": {"$oid": "5f1b0c0e0000000000000001"}})", R"({"a": false})", -1},
    {R"({"a": 1})", R"({"a": true})", R"({"a": {"$date": "2020-01-01T00:00:00Z"}})", -1},
    {R"({"a": 1})", R"({"a": {"$minKey": 1}})", R"({"a": null})", -1},
    {R"({"a": 1})", R"({"a": {"$maxKey": 1}})", R"({"a": {"$date": "2020-01-01T00:00:00Z"}})", 1},
    // Arrays: smallest element ascending, largest descending.
    {R"({"a": 1})", R"({"a": [5, 1]})", R"({"a": 2})", -1},
    {R"({"a": -1})", R"({"a": [5, 1]})", R"({"a": 3})", -1},
    {R"({"a": -1})", R"({"a": [0, 1]})", R"({"a": 3})", 1},
    {R"({"a": 1})", R"({"a": [3, "x"]})", R"({"a": [4]})", -1},
    {R"({"a": -1})", R"({"a": [3, "x"]})", R"({"a": [4]})", -1},
    {R"({"a": 1})", R"({"a": [null, 5]})", R"({"a": 0})", -1},
    {R"({"a": 1})", R"({"a": [[1, 2]]})", R"({"a": 100})", 1},
    // Dotted paths through documents and arrays of documents.
    {R"({"a.b": 1})", R"({"a": {"b": 1}})", R"({"a": {"b": 2}})", -1},
    {R"({"a.b": 1})", R"({"a": [{"b": 3}, {"b": 0}]})", R"({"a": {"b": 1}})", -1},
    {R"({"a.b": -1})", R"({"a": [{"b": 3}, {"b": 0}]})", R"({"a": {"b": 1}})", -1},
    {R"({"a.b": 1})", R"({"a": [{"b": [7, 2]}]})", R"({"a": {"b": 3}})", -1},
    {R"({"a.b": 1})", R"({"a": 5})", R"({"a": {"b": null}})", 0},
    {R"({"a.b": 1})", R"({"a": [1, {"b": 5}]})", R"({"a": {"b": 0}})", -1},
    {R"({"a.b": -1})", R"({"a": [1, {"b": 5}]})", R"({"a": {"b": 0}})", -1},
    {R"({"a.1": 1})", R"({"a": [9, 1]})", R"({"a": [0, 2]})", -1},
    // Several keys.
    {R"({"a": 1, "b": -1})", R"({"a": 1, "b": 2})", R"({"a": 1, "b": 1})", -1},
    {R"({"a": 1, "b": -1})", R"({"a": 0, "b": 0})", R"({"a": 1, "b": 5})", -1},
    {R"({"a": 1, "b": 1})", R"({"a": 1, "b": 1})", R"({"b": 1, "a": 1.0})", 0},
    {R"({"a": 1, "b": 1})", R"({"a": 1})", R"({"a": 1, "b": 1})", -1},
    // No keys: every document is equal.
    {R"({})", R"({"a": 1})", R"({"a": 2})", 0},
};
INSTANTIATE_TEST_SUITE_P(Compare, SortOrder, ::testing::ValuesIn(kOrderCases));

TEST(SortPattern, ShouldSortMixedDocumentsIntoMongoDBOrder) {
  SortPattern pattern = MustParse(R"({"a": 1, "_id": 1})");
  std::vector<BsonDoc> docs;
  for (const char* json : {
           R"({"_id": 1, "a": "str"})",
           R"({"_id": 2, "a": 3})",
           R"({"_id": 3})",
           R"({"_id": 4, "a": null})",
           R"({"_id": 5, "a": [2, 10]})",
           R"({"_id": 6, "a": {"x": 1}})",
           R"({"_id": 7, "a": []})",
           R"({"_id": 8, "a": {"$numberDecimal": "2.5"}})",
       }) {
    docs.push_back(BsonDoc::FromJson(json));
  }
  std::vector<const BsonDoc*> order;
  for (const BsonDoc& d : docs) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(), [&](const BsonDoc* x, const BsonDoc* y) {
    return pattern.Compare(x->view(), y->view()) < 0;
  });
  std::vector<int> ids;
  for (const BsonDoc* d : order) {
    bson_iter_t it;
    ASSERT_TRUE(d->view().Find("_id", &it));
    ids.push_back(bson_iter_int32(&it));
  }
  EXPECT_EQ(ids, (std::vector<int>{7, 3, 4, 5, 8, 2, 1, 6}));
}

TEST(SortPattern, ShouldExposeKeysInOrder) {
  SortPattern pattern = MustParse(R"({"b.c": -1, "a": 1})");
  ASSERT_EQ(pattern.keys().size(), 2u);
  EXPECT_EQ(pattern.keys()[0].path, "b.c");
  EXPECT_TRUE(pattern.keys()[0].descending);
  EXPECT_EQ(pattern.keys()[1].path, "a");
  EXPECT_FALSE(pattern.keys()[1].descending);
  EXPECT_FALSE(pattern.empty());
  EXPECT_TRUE(MustParse("{}").empty());
}

struct SortErrorCase {
  const char* spec;
  int code;
  const char* message;
};

void PrintTo(const SortErrorCase& c, std::ostream* os) { *os << "sort " << c.spec; }

class SortErrors : public ::testing::TestWithParam<SortErrorCase> {};

TEST_P(SortErrors, ShouldRejectWithMongoDBCodeAndMessage) {
  const SortErrorCase& c = GetParam();
  BsonDoc spec = BsonDoc::FromJson(c.spec);
  Result<SortPattern> pattern = SortPattern::Parse(spec.view());
  ASSERT_FALSE(pattern.ok());
  EXPECT_EQ(pattern.status().code_number(), c.code) << pattern.status().ToString();
  EXPECT_EQ(pattern.status().reason(), c.message);
}

const SortErrorCase kSortErrors[] = {
    {R"({"a": 0})", 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
    {R"({"a": 2})", 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
    {R"({"a": 1.5})", 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
    {R"({"a": "asc"})", 15974, "Illegal key in $sort specification: a: \"asc\""},
    {R"({"a": true})", 15974, "Illegal key in $sort specification: a: true"},
    {R"({"a": null})", 15974, "Illegal key in $sort specification: a: null"},
    {R"({"": 1})", 40352, "FieldPath cannot be constructed with empty string"},
    {R"({"a..b": 1})", 15998, "FieldPath field names may not be empty strings."},
    {R"({"a.": 1})", 40353, "FieldPath must not end with a '.'."},
    {R"({"$a": 1})", 16410,
     "FieldPath field names may not start with '$'. Consider using $getField or $setField."},
    {R"({"a": {"x": 1}})", 17312, "$meta is the only expression supported by $sort right now"},
    {R"({"a": {}})", 17312, "$meta is the only expression supported by $sort right now"},
    {R"({"a": {"$meta": "textScore", "b": 1}})", 9,
     "Cannot have additional keys in a $meta sort specification"},
    {R"({"a": {"$meta": 1}})", 17307, "$meta only supports string arguments"},
    {R"({"a": {"$meta": "foo"}})", 17308, "Unsupported argument to $meta: foo"},
    {R"({"a": {"$meta": "randVal"}})", 2, "sorting by {$meta: \"randVal\"} is not supported yet"},
};
INSTANTIATE_TEST_SUITE_P(ParseErrors, SortErrors, ::testing::ValuesIn(kSortErrors));

}  // namespace
}  // namespace cairn::query
