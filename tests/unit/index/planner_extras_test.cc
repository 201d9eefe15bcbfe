// Specification of the planner extras: OR plans over several indexes (index/or_plan.h), whole-
// filter answers, covered projections and COUNT_SCAN bounds (index/plan_analysis.h), and find's
// min/max key ranges and errors (index/min_max_bounds.h).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "index/min_max_bounds.h"
#include "index/or_plan.h"
#include "index/plan_analysis.h"
#include "query/matcher/matcher.h"
#include "tests/unit/index/planner_test_indexes.h"

namespace cairn::index {
namespace {

// A collection's indexes and one filter to plan over them.
class Collection : public TestIndexes {
 public:
  // Sets the filter planned by Input().
  void Filter(const char* filter) {
    filter_ = BsonDoc::FromJson(filter);
    matcher_.emplace(query::Matcher::Parse(filter_.view()).value());
  }
  const query::MatchExpression* root() const { return matcher_->root(); }
  PlannerInput Input() const { return TestIndexes::Input(matcher_->root()); }

  // "OR[rooted] a_1 { a: [...] } | b_1 { b: [...] }", or "none".
  std::string PlanOrShape(const char* filter) {
    Filter(filter);
    std::optional<OrPlan> plan = PlanOr(Input());
    if (!plan) return "none";
    std::string out = plan->rooted ? "OR[rooted]" : "OR";
    if (plan->exact) out += "[exact]";
    for (size_t i = 0; i < plan->branches.size(); ++i) {
      const IndexScanPlan& branch = plan->branches[i];
      BsonDoc bounds;
      AppendIndexBounds(bounds.get(), "b", branch, index(branch.index));
      bson_iter_t it;
      bounds.view().Find("b", &it);
      out += (i == 0 ? " " : " | ") + index(branch.index).name() + " " +
             ToShellString(IterDocument(&it));
    }
    return out;
  }

 private:
  BsonDoc filter_;
  std::optional<query::Matcher> matcher_;
};

const char* kId = R"({"v": 2, "key": {"_id": 1}, "name": "_id_"})";
const char* kA = R"({"v": 2, "key": {"a": 1}, "name": "a_1"})";
const char* kB = R"({"v": 2, "key": {"b": 1}, "name": "b_1"})";
// A text index as it is stored (its keys are terms: never covered, never bounded by min/max).
const char* kText = R"({"v": 2, "key": {"_fts": "text", "_ftsx": 1}, "name": "t_text",
    "weights": {"t": 1}, "default_language": "english", "language_override": "language",
    "textIndexVersion": 3})";

TEST(OrPlanTest, ShouldScanOneIndexPerBranchWhenEveryBranchHasOne) {
  Collection c;
  c.Add(kId).Add(kA).Add(kB);
  struct Case {
    const char* filter;
    const char* shape;
  };
  const Case cases[] = {
      {R"({"$or": [{"a": 1}, {"b": 2}]})",
       R"(OR[rooted][exact] a_1 { a: [ "[1, 1]" ] } | b_1 { b: [ "[2, 2]" ] })"},
      {R"({"$or": [{"a": {"$gt": 5}}, {"b": {"$in": [1, 2]}}, {"_id": 7}]})",
       R"(OR[rooted][exact] a_1 { a: [ "(5, inf.0]" ] } | b_1 { b: [ "[1, 1]", "[2, 2]" ] } | _id_ { _id: [ "[7, 7]" ] })"},
      // Inside a top-level $and: the other conjuncts are left to FETCH.
      {R"({"c": 3, "$or": [{"a": 1}, {"b": 2}]})",
       R"(OR[exact] a_1 { a: [ "[1, 1]" ] } | b_1 { b: [ "[2, 2]" ] })"},
      // A branch with more than its bounds answer: the $or stays in FETCH's filter.
      {R"({"$or": [{"a": 1, "c": 1}, {"b": 2}]})",
       R"(OR[rooted] a_1 { a: [ "[1, 1]" ] } | b_1 { b: [ "[2, 2]" ] })"},
      // One branch without a usable index: a collection scan, as MongoDB.
      {R"({"$or": [{"a": 1}, {"c": 2}]})", "none"},
      {R"({"$or": [{"a": 1}, {"b": {"$ne": 2}}]})", "none"},
      {R"({"a": 1})", "none"},
  };
  for (const Case& k : cases) EXPECT_EQ(c.PlanOrShape(k.filter), k.shape) << k.filter;
}

TEST(OrPlanTest, ShouldFollowEachIndexsEligibilityRulesPerBranch) {
  Collection c;
  c.Add(kId)
      .Add(R"({"v": 2, "key": {"a": 1}, "name": "a_1", "hidden": true})")
      .Add(R"({"v": 2, "key": {"b": 1}, "name": "b_1", "sparse": true})")
      .Add(
          R"({"v": 2, "key": {"d": 1}, "name": "d_1", "partialFilterExpression": {"d": {"$gt": 0}}})");
  EXPECT_EQ(c.PlanOrShape(R"({"$or": [{"a": 1}, {"_id": 2}]})"), "none");     // hidden
  EXPECT_EQ(c.PlanOrShape(R"({"$or": [{"b": null}, {"_id": 2}]})"), "none");  // sparse vs null
  EXPECT_EQ(c.PlanOrShape(R"({"$or": [{"d": 5}, {"_id": 2}]})"),
            R"(OR[rooted][exact] d_1 { d: [ "[5, 5]" ] } | _id_ { _id: [ "[2, 2]" ] })");
  EXPECT_EQ(c.PlanOrShape(R"({"$or": [{"d": -5}, {"_id": 2}]})"), "none");  // outside the filter
}

TEST(PlanAnalysisTest, ShouldTellWhenTheBoundsAnswerTheWholeFilter) {
  Collection c;
  c.Add(kId).Add(R"({"v": 2, "key": {"a": 1, "b": 1}, "name": "a_1_b_1"})");
  struct Case {
    const char* filter;
    bool answered;
  };
  const Case cases[] = {
      {R"({"a": 1})", true},
      {R"({"a": 1, "b": {"$gt": 2}})", true},
      {R"({"a": {"$in": [1, 2]}})", true},
      {R"({"a": 1, "c": 2})", false},
      {R"({"a": 1, "b": {"$ne": 2}})", false},
  };
  for (const Case& k : cases) {
    c.Filter(k.filter);
    QueryPlan plan = PlanQuery(c.Input());
    ASSERT_TRUE(plan.index_scan.has_value()) << k.filter;
    EXPECT_EQ(BoundsAnswerFilter(*plan.index_scan, c.root()), k.answered) << k.filter;
  }
  Collection multikey;
  multikey.Add(kId).Add(kA, {1});
  multikey.Filter(R"({"a": 1})");
  QueryPlan plan = PlanQuery(multikey.Input());
  ASSERT_TRUE(plan.index_scan.has_value());
  EXPECT_FALSE(BoundsAnswerFilter(*plan.index_scan, multikey.root()));
}

TEST(PlanAnalysisTest, ShouldCoverOnlyProjectionsOfKeyFieldsWithoutId) {
  Collection c;
  c.Add(R"({"v": 2, "key": {"a": 1, "b": -1}, "name": "a_1_b_-1"})")
      .Add(R"({"v": 2, "key": {"_id": 1, "a": 1}, "name": "_id_1_a_1"})")
      .Add(kText);
  struct Case {
    size_t index;
    const char* projection;
    const char* fields;  // key fields returned, "|"-joined; "none": not covered
  };
  const Case cases[] = {
      {0, R"({"_id": 0, "a": 1})", "a|"},
      {0, R"({"_id": 0, "b": true, "a": 1})", "a|b"},
      {0, R"({"a": 1})", "none"},  // _id is returned and is not a key field
      {0, R"({"_id": 0, "a": 1, "c": 1})", "none"},
      {0, R"({"_id": 0, "a": 0})", "none"},  // an exclusion returns the other fields
      {0, R"({"_id": 0, "a.x": 1})", "none"},
      {0, R"({"_id": 0, "a": {"$add": [1, 2]}})", "none"},
      {1, R"({"a": 1})", "_id|a"},
      {1, R"({"_id": 1})", "_id|"},
      {2, R"({"_id": 0, "t": 1})", "none"},
  };
  for (const Case& k : cases) {
    BsonDoc projection = BsonDoc::FromJson(k.projection);
    auto fields = CoveredFields(projection.view(), c.index(k.index), c.multikey(k.index));
    std::string got = "none";
    if (fields) {
      got.clear();
      for (size_t i = 0; i < fields->size(); ++i) got += (i ? "|" : "") + (*fields)[i];
    }
    EXPECT_EQ(got, k.fields) << k.projection;
  }
  Collection multikey;
  multikey.Add(kA, {1});
  BsonDoc projection = BsonDoc::FromJson(R"({"_id": 0, "a": 1})");
  EXPECT_FALSE(CoveredFields(projection.view(), multikey.index(0), multikey.multikey(0)));
}

TEST(PlanAnalysisTest, ShouldPrintCountScanBoundsAsOneKeyInterval) {
  Collection c;
  c.Add(R"({"v": 2, "key": {"a": 1, "b": -1}, "name": "a_1_b_-1"})");
  struct Case {
    const char* filter;
    const char* bounds;  // "none": not one interval
  };
  const Case cases[] = {
      {R"({"a": 5})",
       R"({ "startKey" : { "a" : 5, "b" : { "$maxKey" : 1 } }, "startKeyInclusive" : true, )"
       R"("endKey" : { "a" : 5, "b" : { "$minKey" : 1 } }, "endKeyInclusive" : true })"},
      {R"({"a": 5, "b": {"$gt": 1, "$lte": 9}})",
       R"({ "startKey" : { "a" : 5, "b" : 9 }, "startKeyInclusive" : true, )"
       R"("endKey" : { "a" : 5, "b" : 1 }, "endKeyInclusive" : false })"},
      {R"({"a": {"$gt": 2}})",
       R"({ "startKey" : { "a" : 2, "b" : { "$minKey" : 1 } }, "startKeyInclusive" : false, )"
       R"("endKey" : { "a" : { "$numberDouble" : "Infinity" }, "b" : { "$minKey" : 1 } }, )"
       R"("endKeyInclusive" : true })"},
      {R"({"a": {"$in": [1, 2]}})", "none"},
  };
  for (const Case& k : cases) {
    c.Filter(k.filter);
    QueryPlan plan = PlanQuery(c.Input());
    ASSERT_TRUE(plan.index_scan.has_value()) << k.filter;
    BsonDoc out;
    std::string got = "none";
    if (AppendCountScanBounds(out.get(), "b", *plan.index_scan, c.index(0))) {
      bson_iter_t it;
      out.view().Find("b", &it);
      got = BsonDoc(IterDocument(&it)).ToJson();
    }
    EXPECT_EQ(got, k.bounds) << k.filter;
  }
}

TEST(PlanAnalysisTest, ShouldPlanADistinctScanOnAnIndexLedByTheKey) {
  Collection c;
  c.Add(kId)
      .Add(R"({"v": 2, "key": {"a": 1, "b": 1}, "name": "a_1_b_1"})")
      .Add(kA)
      .Add(R"({"v": 2, "key": {"m": 1}, "name": "m_1"})", {1})
      .Add(
          R"({"v": 2, "key": {"p": 1}, "name": "p_1", "partialFilterExpression": {"p": {"$gt": 0}}})");
  struct Case {
    const char* filter;
    const char* key;
    const char* index;  // "none": no DISTINCT_SCAN
  };
  const Case cases[] = {
      {"{}", "a", "a_1"},  // the index with the fewest fields
      {R"({"a": {"$gt": 1}})", "a", "a_1"},
      {R"({"a": 1, "b": 2})", "a", "a_1_b_1"},  // only it answers the whole filter
      {R"({"b": 2})", "a", "a_1_b_1"},
      {R"({"c": 2})", "a", "none"},
      {"{}", "b", "none"},  // not a leading field
      {"{}", "m", "none"},  // multikey
      {"{}", "p", "none"},  // partial
  };
  for (const Case& k : cases) {
    c.Filter(k.filter);
    std::optional<IndexScanPlan> plan = PlanDistinctScan(c.Input(), k.key);
    EXPECT_EQ(plan ? c.index(plan->index).name() : "none", k.index) << k.filter << " " << k.key;
  }
}

TEST(MinMaxBoundsTest, ShouldRefuseMinMaxAsMongoDb) {
  struct Case {
    const char* min;
    const char* max;
    bool hinted;
    int code;  // 0: accepted
  };
  const Case cases[] = {
      {R"({"a": 1})", R"({"a": 5})", true, 0},
      {R"({"a": 1})", "{}", true, 0},
      {R"({"a": 1})", R"({"a": 5})", false, 51173},
      {"{}", R"({"a": 5})", false, 51173},
      {R"({"a": 1})", R"({"b": 5})", true, 51176},
      {R"({"a": 1})", R"({"a": 5, "b": 1})", false, 51176},  // checked before the hint
  };
  for (const Case& k : cases) {
    BsonDoc min = BsonDoc::FromJson(k.min), max = BsonDoc::FromJson(k.max);
    Status s = ValidateFindMinMax(min.view(), max.view(), k.hinted);
    EXPECT_EQ(s.ok() ? 0 : static_cast<int>(s.code()), k.code) << k.min << " " << k.max;
  }
}

TEST(MinMaxBoundsTest, ShouldBoundTheHintedIndexFromMinToMaxInKeyOrder) {
  Collection c;
  c.Add(R"({"v": 2, "key": {"a": 1, "b": -1}, "name": "a_1_b_-1"})").Add(kText);
  struct Case {
    size_t index;
    const char* min;
    const char* max;
    int code;
  };
  const Case cases[] = {
      {0, R"({"a": 1, "b": 5})", R"({"a": 1, "b": 2})", 0},  // b descending: 5 comes first
      {0, R"({"a": 1, "b": 2})", R"({"a": 1, "b": 5})", 51175},
      {0, R"({"a": 1, "b": 2})", R"({"a": 1, "b": 2})", 51175},
      {0, R"({"a": 1})", "{}", 51174},          // not every key field
      {0, R"({"b": 1, "a": 1})", "{}", 51174},  // not in key order
      {0, "{}", R"({"a": 3, "b": 0})", 0},
      {1, R"({"t": "x"})", "{}", 51174},
  };
  for (const Case& k : cases) {
    BsonDoc min = BsonDoc::FromJson(k.min), max = BsonDoc::FromJson(k.max);
    Result<IndexScanRanges> ranges = MinMaxRanges(c.index(k.index), min.view(), max.view());
    EXPECT_EQ(ranges.ok() ? 0 : static_cast<int>(ranges.status().code()), k.code)
        << k.min << " " << k.max;
    if (ranges.ok()) {
      EXPECT_EQ(ranges->ranges().size(), 1u);
      EXPECT_FALSE(ranges->needs_key_check());
      EXPECT_EQ(ranges->ranges()[0].start.empty(), min.view().empty());
      EXPECT_EQ(ranges->ranges()[0].end.empty(), max.view().empty());
    }
  }
}

}  // namespace
}  // namespace cairn::index
