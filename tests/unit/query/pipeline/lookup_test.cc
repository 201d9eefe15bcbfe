// Specification of $lookup: its parse errors, the three forms (localField/foreignField, let +
// pipeline, both), MongoDB's equality semantics (array localField joins on any element, missing
// joins null, foreign arrays match on any element), the same answers under each join strategy
// (IndexedLoopJoin, HashJoin, NestedLoopJoin past the hash-join budget),
// the absorbed $unwind (no array built, preserveNullAndEmptyArrays and includeArrayIndex kept)
// and the 16 MiB output limit.
#include <gtest/gtest.h>

#include <map>

#include "common/bson_compare.h"
#include "query/matcher/matcher.h"
#include "query/pipeline/foreign_collections.h"
#include "query/pipeline/pipeline.h"
#include "tests/unit/query/pipeline/fake_collections.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::C;
using testing::Docs;
using testing::Drain;
using testing::ExpectError;
using testing::ParseJson;
using testing::VectorSource;

using testing::FakeCollections;

// The join strategy a test runs under: the foreign field indexed, or not and within the
// hash-join budget, or not and past it (a budget of one byte).
enum class Strategy { kIndexedLoop, kHash, kNestedLoop };

Result<std::vector<std::string>> RunJoin(const std::string& pipeline,
                                         const std::vector<std::string>& docs,
                                         const std::shared_ptr<FakeCollections>& foreign,
                                         Strategy strategy = Strategy::kHash) {
  return testing::RunWithCollections(
      pipeline, docs, foreign,
      strategy == Strategy::kNestedLoop ? 1 : PipelineOptions().hash_join_max_bytes);
}

std::shared_ptr<FakeCollections> Customers(bool indexed) {
  auto foreign = std::make_shared<FakeCollections>();
  foreign->indexed = indexed;
  foreign->collections["c"] = {R"({"_id": 1, "k": 1})", R"({"_id": 2, "k": [2, 3]})",
                               R"({"_id": 3, "k": null})", R"({"_id": 4})",
                               R"({"_id": 5, "k": 1.0})"};
  return foreign;
}

struct JoinCase {
  const char* input;
  const char* expected;
};

const JoinCase kJoins[] = {
    {R"({"_id": 0, "l": 1})",
     R"({"_id": 0, "l": 1, "as": [{"_id": 1, "k": 1}, {"_id": 5, "k": 1.0}]})"},
    {R"({"_id": 0, "l": [3, 9]})", R"({"_id": 0, "l": [3, 9], "as": [{"_id": 2, "k": [2, 3]}]})"},
    {R"({"_id": 0})", R"({"_id": 0, "as": [{"_id": 3, "k": null}, {"_id": 4}]})"},
    {R"({"_id": 0, "l": null})",
     R"({"_id": 0, "l": null, "as": [{"_id": 3, "k": null}, {"_id": 4}]})"},
    {R"({"_id": 0, "l": 7, "as": 1})", R"({"_id": 0, "l": 7, "as": []})"},
};

class LookupEquality : public ::testing::TestWithParam<Strategy> {};

TEST_P(LookupEquality, ShouldJoinAsMongoDBUnderEachStrategy) {
  for (const JoinCase& c : kJoins) {
    auto out = RunJoin(
        R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "as"}}])",
        {c.input}, Customers(GetParam() == Strategy::kIndexedLoop), GetParam());
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(*out, C(std::vector<std::string>{c.expected})) << c.input;
  }
}

INSTANTIATE_TEST_SUITE_P(EachStrategy, LookupEquality,
                         ::testing::Values(Strategy::kIndexedLoop, Strategy::kHash,
                                           Strategy::kNestedLoop));

TEST(Lookup, ShouldProbeTheForeignIdByPointLookupAndJoinTheSame) {
  auto foreign = Customers(true);
  foreign->by_id = true;
  auto out = RunJoin(
      R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "_id", "as": "as"}}])",
      {R"({"_id": 10, "l": 2})", R"({"_id": 11, "l": 2.0})", R"({"_id": 12, "l": 9})",
       R"({"_id": 13, "l": [1, 4]})", R"({"_id": 14})"},
      foreign);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{
                      R"({"_id": 10, "l": 2, "as": [{"_id": 2, "k": [2, 3]}]})",
                      R"({"_id": 11, "l": 2.0, "as": [{"_id": 2, "k": [2, 3]}]})",
                      R"({"_id": 12, "l": 9, "as": []})",
                      R"({"_id": 13, "l": [1, 4], "as": [{"_id": 1, "k": 1}, {"_id": 4}]})",
                      R"({"_id": 14, "as": []})"}));
  // One value: a point lookup each; several values or none: the filtered stream.
  EXPECT_EQ(foreign->reads_by_id, 3);
}

TEST(Lookup, ShouldBuildTheHashTableOncePerCursor) {
  auto foreign = Customers(false);
  auto out =
      RunJoin(R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "as"}}])",
              {R"({"l": 1})", R"({"l": 2})", R"({"l": 3})"}, foreign);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(foreign->opens, 1);
}

TEST(Lookup, ShouldScanTheForeignCollectionPerDocumentPastTheHashJoinBudget) {
  auto foreign = Customers(false);
  auto out =
      RunJoin(R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "as"}}])",
              {R"({"l": 1})", R"({"l": 2})", R"({"l": 3})"}, foreign, Strategy::kNestedLoop);
  ASSERT_TRUE(out.ok());
  // The read that found the budget exceeded, then one filtered scan per input document.
  EXPECT_EQ(foreign->opens, 4);
}

TEST(Lookup, ShouldRunAnUncorrelatedPipelineOnce) {
  auto foreign = Customers(false);
  auto out = RunJoin(
      R"([{"$lookup": {"from": "c", "pipeline": [{"$match": {"k": 1}}, {"$project": {"_id": 1}}], "as": "x"}}])",
      {R"({"_id": 10})", R"({"_id": 11})"}, foreign);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"_id": 10, "x": [{"_id": 1}, {"_id": 5}]})",
                                             R"({"_id": 11, "x": [{"_id": 1}, {"_id": 5}]})"}));
  EXPECT_EQ(foreign->opens, 1);
}

TEST(Lookup, ShouldBindLetVariablesForTheSubPipeline) {
  auto out = RunJoin(
      R"([{"$lookup": {"from": "c", "let": {"v": "$l"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$k", "$$v"]}}}, {"$project": {"_id": 1}}], "as": "x"}}])",
      {R"({"_id": 10, "l": 1})", R"({"_id": 11, "l": 5})"}, Customers(false));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out,
            C(std::vector<std::string>{R"({"_id": 10, "l": 1, "x": [{"_id": 1}, {"_id": 5}]})",
                                       R"({"_id": 11, "l": 5, "x": []})"}));
}

TEST(Lookup, ShouldRunThePipelineOverTheEqualityMatches) {
  auto out = RunJoin(
      R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "pipeline": [{"$project": {"_id": 1}}], "as": "x"}}])",
      {R"({"_id": 10, "l": 2})"}, Customers(false));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"_id": 10, "l": 2, "x": [{"_id": 2}]})"}));
}

class LookupPushDown : public ::testing::TestWithParam<Strategy> {};

TEST_P(LookupPushDown, ShouldMoveAMatchOnTheUnwoundDocumentIntoTheJoin) {
  const std::vector<std::string> input = {R"({"_id": 10, "l": 1})", R"({"_id": 11, "l": 2})"};
  auto out = RunJoin(
      R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "x"}}, {"$unwind": "$x"}, {"$match": {"x._id": {"$gte": 2}, "l": {"$lt": 2}}}])",
      input, Customers(GetParam() == Strategy::kIndexedLoop), GetParam());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"_id": 10, "l": 1, "x": {"_id": 5, "k": 1.0}})"}));
  // The condition on x moved into the join; the one on l stayed a $match.
  auto parsed = ParseJson(
      R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "x"}}, {"$unwind": "$x"}, {"$match": {"x._id": {"$gte": 2}, "l": {"$lt": 2}}}])");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->size(), 2u);
  auto only = ParseJson(
      R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "x"}}, {"$unwind": "$x"}, {"$match": {"x._id": 5}}])");
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->size(), 1u);
  // Kept unmatched documents have no x: the $match must still see them.
  auto preserved = RunJoin(
      R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "x"}}, {"$unwind": {"path": "$x", "preserveNullAndEmptyArrays": true}}, {"$match": {"x._id": {"$exists": false}}}])",
      {R"({"_id": 12, "l": 9})", R"({"_id": 13, "l": 1})"},
      Customers(GetParam() == Strategy::kIndexedLoop), GetParam());
  ASSERT_TRUE(preserved.ok()) << preserved.status().ToString();
  EXPECT_EQ(*preserved, C(std::vector<std::string>{R"({"_id": 12, "l": 9})"}));
}

INSTANTIATE_TEST_SUITE_P(EachStrategy, LookupPushDown,
                         ::testing::Values(Strategy::kIndexedLoop, Strategy::kHash,
                                           Strategy::kNestedLoop));

TEST(Lookup, ShouldStreamAnAbsorbedUnwind) {
  auto out = RunJoin(
      R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "x"}}, {"$unwind": {"path": "$x", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}])",
      {R"({"_id": 10, "l": 1})", R"({"_id": 11, "l": 8})"}, Customers(true));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out,
            C(std::vector<std::string>{
                R"({"_id": 10, "l": 1, "x": {"_id": 1, "k": 1}, "i": {"$numberLong": "0"}})",
                R"({"_id": 10, "l": 1, "x": {"_id": 5, "k": 1.0}, "i": {"$numberLong": "1"}})",
                R"({"_id": 11, "l": 8, "i": null})"}));
  auto parsed = ParseJson(
      R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "x"}}, {"$unwind": "$x"}])");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->size(), 1u);
}

TEST(Lookup, ShouldFailWithBSONObjectTooLargePastSixteenMiBButWorkWhenUnwound) {
  auto foreign = std::make_shared<FakeCollections>();
  std::string big(1024 * 1024, 'x');
  for (int i = 0; i < 17; ++i) {
    foreign->collections["c"].push_back(R"({"k": 1, "s": ")" + big + "\"}");
  }
  auto whole =
      RunJoin(R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "x"}}])",
              {R"({"l": 1})"}, foreign);
  ASSERT_FALSE(whole.ok());
  EXPECT_EQ(whole.status().code_number(), 10334);
  EXPECT_EQ(whole.status().reason(),
            "BSONObj size: 17826210 (0x11001A2) is invalid. Size must be between 0 and "
            "16793600(16MB) First element: l: 1");
  auto unwound = RunJoin(
      R"([{"$lookup": {"from": "c", "localField": "l", "foreignField": "k", "as": "x"}}, {"$unwind": "$x"}])",
      {R"({"l": 1})"}, foreign);
  ASSERT_TRUE(unwound.ok()) << unwound.status().ToString();
  EXPECT_EQ(unwound->size(), 17u);
}

struct LookupErrorCase {
  const char* lookup;
  int code;
  const char* reason;
};

void PrintTo(const LookupErrorCase& c, std::ostream* os) { *os << c.lookup; }

class LookupParseError : public ::testing::TestWithParam<LookupErrorCase> {};

TEST_P(LookupParseError, ShouldAnswerMongoDBsError) {
  const LookupErrorCase& c = GetParam();
  ExpectError(std::string(R"([{"$lookup": )") + c.lookup + "}]", {}, c.code, c.reason);
}

const LookupErrorCase kLookupErrors[] = {
    {R"({"from": "c", "localField": "a", "foreignField": "b"})", 9,
     "must specify 'as' field for a $lookup"},
    {R"({"from": "c", "localField": "a", "as": "x"})", 9,
     "$lookup requires both or neither of 'localField' and 'foreignField'"},
    {R"({"from": "c", "let": {"a": 1}, "as": "x"})", 9,
     "$lookup with a 'let' argument must also specify 'pipeline'"},
    {R"({"from": "c", "as": "x", "bogus": 1})", 9, "unknown argument to $lookup: bogus"},
    {R"({"from": "c", "as": "x", "pipeline": [{"$out": "o"}]})", 51047,
     "$out is not allowed within a $lookup's sub-pipeline"},
};

INSTANTIATE_TEST_SUITE_P(Lookup, LookupParseError, ::testing::ValuesIn(kLookupErrors));

}  // namespace
}  // namespace cairn::query
