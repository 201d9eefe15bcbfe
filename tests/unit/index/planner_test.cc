// Specification of index/planner: which index a query uses and with which bounds (MongoDB's
// interval strings), the multikey rules, sort provision, hidden/sparse/partial eligibility, the
// cost model, partial filter implication, and the explain filter forms.
#include "index/planner.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "query/matcher/matcher.h"
#include "tests/unit/index/planner_test_indexes.h"

namespace cairn::index {
namespace {

// A collection's indexes for one test: specs plus multikey bits.
class Indexes : public TestIndexes {
 public:
  // Plans `filter` (and `sort`); returns "COLLSCAN" or "IXSCAN <name> <direction> <bounds>".
  std::string Plan(const char* filter, const char* sort = nullptr,
                   std::optional<size_t> hint = std::nullopt) {
    BsonDoc filter_doc = BsonDoc::FromJson(filter);
    query::Matcher matcher = query::Matcher::Parse(filter_doc.view()).value();
    std::optional<query::SortPattern> pattern;
    if (sort != nullptr)
      pattern = query::SortPattern::Parse(BsonDoc::FromJson(sort).view()).value();
    PlannerInput input = Input(matcher.root());
    input.sort = pattern ? &*pattern : nullptr;
    input.hint = hint;
    QueryPlan plan = PlanQuery(input);
    last_plan_ = plan;
    if (!plan.index_scan) return "COLLSCAN";
    const IndexScanPlan& scan = *plan.index_scan;
    BsonDoc bounds;
    AppendIndexBounds(bounds.get(), "b", scan, index(scan.index));
    bson_iter_t it;
    bounds.view().Find("b", &it);
    std::string out = "IXSCAN " + index(scan.index).name() + " " +
                      (scan.reverse ? "backward" : "forward") + " " +
                      ToShellString(IterDocument(&it));
    if (scan.provides_sort) out += " sorted";
    return out;
  }

  const QueryPlan& last_plan() const { return last_plan_; }

 private:
  QueryPlan last_plan_;
};

const char* kId = R"({"v": 2, "key": {"_id": 1}, "name": "_id_"})";
const char* kA = R"({"v": 2, "key": {"a": 1}, "name": "a_1"})";

TEST(PlannerTest, ShouldScanAnIndexForEqualityRangesAndIn) {
  Indexes ix;
  ix.Add(kId).Add(kA);
  struct Case {
    const char* filter;
    const char* plan;
  };
  const Case cases[] = {
      {R"({"a": 5})", R"(IXSCAN a_1 forward { a: [ "[5, 5]" ] })"},
      {R"({"a": {"$gt": 5, "$lte": 10}})", R"(IXSCAN a_1 forward { a: [ "(5, 10]" ] })"},
      {R"({"a": {"$lt": 2.5}})", R"p(IXSCAN a_1 forward { a: [ "[-inf.0, 2.5)" ] })p"},
      {R"({"a": {"$gte": "m"}})", R"p(IXSCAN a_1 forward { a: [ "["m", {})" ] })p"},
      {R"({"a": {"$in": [3, 1, 2, 1.0]}})",
       R"(IXSCAN a_1 forward { a: [ "[1, 1]", "[2, 2]", "[3, 3]" ] })"},
      {R"({"a": null})",
       R"(IXSCAN a_1 forward { a: [ "[undefined, undefined]", "[null, null]" ] })"},
      {R"({"a": [1, 2]})", R"(IXSCAN a_1 forward { a: [ "[1, 1]", "[[ 1, 2 ], [ 1, 2 ]]" ] })"},
      {R"({"a": {"$regex": "^ab"}})",
       R"p(IXSCAN a_1 forward { a: [ "["ab", "ac")", "[/^ab/, /^ab/]" ] })p"},
      {R"({"a": {"$regex": "b"}})", R"p(IXSCAN a_1 forward { a: [ "["", {})", "[/b/, /b/]" ] })p"},
      {R"({"$or": [{"a": 1}, {"a": {"$gt": 9}}]})",
       R"(IXSCAN a_1 forward { a: [ "[1, 1]", "(9, inf.0]" ] })"},
      {R"({"a": {"$gt": 5, "$lt": 1}})", R"(IXSCAN a_1 forward { a: [] })"},
      {R"({"_id": {"$in": [1, 2]}})", R"(IXSCAN _id_ forward { _id: [ "[1, 1]", "[2, 2]" ] })"},
      {R"({"b": 1})", "COLLSCAN"},
      {R"({"a": {"$ne": 1}})", "COLLSCAN"},
      {R"({})", "COLLSCAN"},
  };
  for (const Case& c : cases) EXPECT_EQ(ix.Plan(c.filter), c.plan) << c.filter;
}

TEST(PlannerTest, ShouldNotIntersectBoundsOnAMultikeyFieldOutsideElemMatch) {
  Indexes ix;
  ix.Add(kId).Add(kA, {1});
  EXPECT_EQ(ix.Plan(R"({"a": {"$gt": 5, "$lt": 10}})"),
            R"(IXSCAN a_1 forward { a: [ "(5, inf.0]" ] })");
  EXPECT_EQ(ix.Plan(R"({"a": {"$gt": 5, "$in": [7, 20]}})"),
            R"(IXSCAN a_1 forward { a: [ "[7, 7]", "[20, 20]" ] })");
  EXPECT_EQ(ix.Plan(R"({"a": {"$elemMatch": {"$gt": 5, "$lt": 10}}})"),
            R"p(IXSCAN a_1 forward { a: [ "(5, 10)" ] })p");
  EXPECT_TRUE(ix.last_plan().index_scan->multikey);
}

TEST(PlannerTest, ShouldCompoundOnlyFieldsThatDoNotShareAMultikeyPrefix) {
  Indexes ix;
  ix.Add(kId).Add(R"({"v": 2, "key": {"a.b": 1, "a.c": 1}, "name": "ab_ac"})", {1, 1});
  EXPECT_EQ(ix.Plan(R"({"a.b": 1, "a.c": 2})"),
            R"(IXSCAN ab_ac forward { a.b: [ "[1, 1]" ], a.c: [ "[MinKey, MaxKey]" ] })");
  EXPECT_EQ(ix.Plan(R"({"a": {"$elemMatch": {"b": 1, "c": 2}}})"),
            R"(IXSCAN ab_ac forward { a.b: [ "[1, 1]" ], a.c: [ "[2, 2]" ] })");
  Indexes other;
  other.Add(kId).Add(R"({"v": 2, "key": {"a": 1, "b": 1}, "name": "a_b"})", {1, 0});
  EXPECT_EQ(other.Plan(R"({"a": 1, "b": {"$gte": 2}})"),
            R"(IXSCAN a_b forward { a: [ "[1, 1]" ], b: [ "[2, inf.0]" ] })");
}

TEST(PlannerTest, ShouldUseCompoundPrefixesAndDescendingFields) {
  Indexes ix;
  ix.Add(kId).Add(R"({"v": 2, "key": {"a": 1, "b": -1}, "name": "a_1_b_-1"})");
  EXPECT_EQ(ix.Plan(R"({"a": 1, "b": {"$gt": 5}})"),
            R"p(IXSCAN a_1_b_-1 forward { a: [ "[1, 1]" ], b: [ "[inf.0, 5)" ] })p");
  EXPECT_EQ(ix.Plan(R"({"a": {"$gt": 1}})"),
            R"(IXSCAN a_1_b_-1 forward { a: [ "(1, inf.0]" ], b: [ "[MaxKey, MinKey]" ] })");
  EXPECT_EQ(ix.Plan(R"({"b": 1})"), "COLLSCAN");  // not a prefix
}

TEST(PlannerTest, ShouldLetAnIndexProvideTheSort) {
  Indexes ix;
  ix.Add(kId).Add(kA).Add(R"({"v": 2, "key": {"x": 1, "y": -1}, "name": "x_1_y_-1"})");
  EXPECT_EQ(ix.Plan("{}", R"({"a": -1})"),
            R"(IXSCAN a_1 backward { a: [ "[MaxKey, MinKey]" ] } sorted)");
  EXPECT_EQ(ix.Plan(R"({"x": 5})", R"({"y": 1})"),
            R"(IXSCAN x_1_y_-1 backward { x: [ "[5, 5]" ], y: [ "[MinKey, MaxKey]" ] } sorted)");
  EXPECT_EQ(ix.Plan(R"({"x": {"$gt": 5}})", R"({"x": 1, "y": -1})"),
            R"(IXSCAN x_1_y_-1 forward { x: [ "(5, inf.0]" ], y: [ "[MaxKey, MinKey]" ] } sorted)");
  // Mixed directions that are not the index's (or its reverse) need a blocking sort.
  EXPECT_EQ(ix.Plan(R"({"x": {"$gt": 5}})", R"({"x": 1, "y": 1})"),
            R"(IXSCAN x_1_y_-1 forward { x: [ "(5, inf.0]" ], y: [ "[MaxKey, MinKey]" ] })");
  // $in on the prefix does not keep the next field sorted.
  EXPECT_EQ(ix.Plan(R"({"x": {"$in": [1, 2]}})", R"({"y": 1})"),
            R"(IXSCAN x_1_y_-1 forward { x: [ "[1, 1]", "[2, 2]" ], y: [ "[MaxKey, MinKey]" ] })");
  Indexes multikey;
  multikey.Add(kId).Add(kA, {1});
  EXPECT_EQ(multikey.Plan("{}", R"({"a": 1})"), "COLLSCAN");
}

TEST(PlannerTest, ShouldPreferUniqueEqualityThenMoreEqualityFieldsThenRanges) {
  Indexes ix;
  ix.Add(kId)
      .Add(kA)
      .Add(R"({"v": 2, "key": {"a": 1, "b": 1}, "name": "a_1_b_1"})")
      .Add(R"({"v": 2, "unique": true, "key": {"c": 1}, "name": "c_1"})");
  EXPECT_EQ(ix.Plan(R"({"a": 1, "b": 2})"),
            R"(IXSCAN a_1_b_1 forward { a: [ "[1, 1]" ], b: [ "[2, 2]" ] })");
  EXPECT_EQ(ix.last_plan().rejected.size(), 1u);  // a_1
  EXPECT_EQ(ix.Plan(R"({"a": 1, "c": 2})"), R"(IXSCAN c_1 forward { c: [ "[2, 2]" ] })");
  EXPECT_EQ(ix.Plan(R"({"a": 1, "b": {"$gt": 2}})"),
            R"(IXSCAN a_1_b_1 forward { a: [ "[1, 1]" ], b: [ "(2, inf.0]" ] })");
  EXPECT_EQ(ix.Plan(R"({"a": 1})"), R"(IXSCAN a_1 forward { a: [ "[1, 1]" ] })");
}

TEST(PlannerTest, ShouldSkipHiddenSparseAndPartialIndexesThatCouldMissDocuments) {
  Indexes ix;
  ix.Add(kId)
      .Add(R"({"v": 2, "hidden": true, "key": {"h": 1}, "name": "h_1"})")
      .Add(R"({"v": 2, "key": {"s": 1}, "name": "s_1", "sparse": true})")
      .Add(
          R"({"v": 2, "key": {"p": 1}, "name": "p_1", "partialFilterExpression": {"q": {"$gt": 5}}})");
  EXPECT_EQ(ix.Plan(R"({"h": 1})"), "COLLSCAN");
  EXPECT_EQ(ix.Plan(R"({"h": 1})", nullptr, 1), R"(IXSCAN h_1 forward { h: [ "[1, 1]" ] })");
  EXPECT_EQ(ix.Plan(R"({"s": 1})"), R"(IXSCAN s_1 forward { s: [ "[1, 1]" ] })");
  EXPECT_EQ(ix.Plan(R"({"s": {"$exists": true}})"),
            R"(IXSCAN s_1 forward { s: [ "[MinKey, MaxKey]" ] })");
  EXPECT_EQ(ix.Plan(R"({"s": null})"), "COLLSCAN");
  EXPECT_EQ(ix.Plan(R"({"s": {"$in": [1, null]}})"), "COLLSCAN");
  EXPECT_EQ(ix.Plan("{}", R"({"s": 1})"), "COLLSCAN");  // a sort alone would miss documents
  EXPECT_EQ(ix.Plan(R"({"p": 1, "q": 6})"), R"(IXSCAN p_1 forward { p: [ "[1, 1]" ] })");
  EXPECT_EQ(ix.Plan(R"({"p": 1, "q": {"$gte": 10}})"), R"(IXSCAN p_1 forward { p: [ "[1, 1]" ] })");
  EXPECT_EQ(ix.Plan(R"({"p": 1, "q": {"$gte": 5}})"), "COLLSCAN");
  EXPECT_EQ(ix.Plan(R"({"p": 1})"), "COLLSCAN");
}

TEST(PlannerTest, ShouldDecideWhetherAQueryImpliesAPartialFilter) {
  struct Case {
    const char* query;
    const char* filter;
    bool implied;
  };
  const Case cases[] = {
      {R"({"a": 5})", R"({"a": {"$exists": true}})", true},
      {R"({"a": null})", R"({"a": {"$exists": true}})", false},
      {R"({"a": {"$in": [6, 7]}})", R"({"a": {"$gt": 5}})", true},
      {R"({"a": {"$in": [5, 7]}})", R"({"a": {"$gt": 5}})", false},
      {R"({"a": {"$gt": 5}})", R"({"a": {"$gte": 5}})", true},
      {R"({"a": {"$gte": 5}})", R"({"a": {"$gt": 5}})", false},
      {R"({"a": {"$lt": 3}})", R"({"a": {"$lte": 4}})", true},
      {R"({"a": {"$gt": "x"}})", R"({"a": {"$gt": 5}})", false},
      {R"({"a": 1, "b": 2})", R"({"$and": [{"a": 1}, {"b": {"$gte": 2}}]})", true},
      {R"({"a": 1})", R"({"$or": [{"a": 1}, {"b": 1}]})", true},
      {R"({"a": 1})", R"({"a": 1, "b": 1})", false},
      {R"({"a": "s"})", R"({"a": {"$type": "string"}})", true},
      {R"({"a": "xc"})", R"({"a": {"$in": [{"$regularExpression": {"pattern": "c$",
                                                                  "options": ""}}]}})",
       true},
      // A regex PCRE2 stops with an error (its match limit) proves nothing: not implied.
      {R"({"a": "aaaaaaaaaaaaaaaaaaaaaaaaa!c"})",
       R"({"a": {"$in": [{"$regularExpression": {"pattern": "(a+)+$|c", "options": ""}}]}})",
       false},
  };
  for (const Case& c : cases) {
    query::Matcher q = query::Matcher::Parse(BsonDoc::FromJson(c.query).view()).value();
    query::Matcher f = query::Matcher::Parse(BsonDoc::FromJson(c.filter).view()).value();
    EXPECT_EQ(QueryImpliesFilter(q.root(), f.root()), c.implied) << c.query << " ⇒ " << c.filter;
  }
}

TEST(PlannerTest, ShouldPrintTheParsedQueryAndTheResidualFilterAsMongoDb) {
  Indexes ix;
  ix.Add(kId).Add(kA);
  BsonDoc filter_doc = BsonDoc::FromJson(R"({"a": 5, "b": {"$in": [2, 1]}, "c": {"$ne": 3}})");
  query::Matcher matcher = query::Matcher::Parse(filter_doc.view()).value();
  BsonDoc parsed;
  ASSERT_TRUE(AppendFilter(matcher.root(), parsed.get()));
  EXPECT_EQ(
      ToShellString(parsed.view()),
      R"({ $and: [ { a: { $eq: 5 } }, { b: { $in: [ 1, 2 ] } }, { c: { $not: { $eq: 3 } } } ] })");
  ix.Plan(R"({"a": 5, "b": {"$in": [2, 1]}, "c": {"$ne": 3}})");
  const IndexScanPlan& scan = *ix.last_plan().index_scan;
  ASSERT_EQ(scan.exact_predicates.size(), 1u);
  // The plan's predicates point into the planned matcher; replan against ours to compare.
  PlannerInput input;
  input.filter = matcher.root();
  BsonDoc spec = BsonDoc::FromJson(kA);
  auto a = IndexDescriptor::Make(spec.view()).value();
  input.indexes.push_back({a.get(), {0}});
  QueryPlan plan = PlanQuery(input);
  BsonDoc residual;
  ASSERT_TRUE(
      AppendResidualFilter(matcher.root(), plan.index_scan->exact_predicates, residual.get()));
  EXPECT_EQ(ToShellString(residual.view()),
            R"({ $and: [ { b: { $in: [ 1, 2 ] } }, { c: { $not: { $eq: 3 } } } ] })");
}

}  // namespace
}  // namespace cairn::index
