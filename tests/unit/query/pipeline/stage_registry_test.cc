// Specification of the stage registry's lite parse: what a stage's name alone says (StageTraits)
// and the first and last stage names of a pipeline array, which the aggregate command and the
// sub-pipeline stages decide with before anything is parsed.
#include "query/pipeline/stage_registry.h"

#include <gtest/gtest.h>

#include <string>

#include "common/bson_doc.h"

namespace cairn::query {
namespace {

// `pick` (FirstStageName, LastStageName, FirstWritingStageName) over the JSON array `json`.
std::string NameIn(std::string_view (*pick)(BsonView), const std::string& json) {
  BsonDoc doc = BsonDoc::FromJson(R"({"a": )" + json + "}");
  bson_iter_t it;
  EXPECT_TRUE(doc.view().Find("a", &it));
  return std::string(pick(IterDocument(&it)));
}

std::string First(const std::string& json) { return NameIn(FirstStageName, json); }
std::string Last(const std::string& json) { return NameIn(LastStageName, json); }

TEST(StageTraits, ShouldMarkTheWritingStages) {
  EXPECT_TRUE(TraitsOf("$out").writes_output);
  EXPECT_TRUE(TraitsOf("$merge").writes_output);
  EXPECT_FALSE(TraitsOf("$lookup").writes_output);
  EXPECT_FALSE(TraitsOf("$unionWith").writes_output);
}

TEST(StageTraits, ShouldMarkTheStagesThatNeedNoCollection) {
  for (const char* name :
       {"$documents", "$currentOp", "$listLocalSessions", "$changeStream", "$listSessions"}) {
    EXPECT_TRUE(TraitsOf(name).independent_of_collection) << name;
  }
  for (const char* name : {"$collStats", "$match", "$out", "$indexStats"}) {
    EXPECT_FALSE(TraitsOf(name).independent_of_collection) << name;
  }
}

TEST(StageTraits, ShouldMarkTheStagesThatReportTheServersState) {
  EXPECT_TRUE(TraitsOf("$collStats").reports_server_state);
  EXPECT_TRUE(TraitsOf("$currentOp").reports_server_state);
  EXPECT_TRUE(TraitsOf("$listLocalSessions").reports_server_state);
  EXPECT_FALSE(TraitsOf("$documents").reports_server_state);
}

TEST(StageTraits, ShouldSayOnlyChangeStreamsNeedAReplicaSet) {
  EXPECT_TRUE(TraitsOf("$changeStream").requires_replica_set);
  EXPECT_FALSE(TraitsOf("$changeStreamSplitLargeEvent").requires_replica_set);
  EXPECT_FALSE(TraitsOf("$match").requires_replica_set);
}

TEST(StageTraits, ShouldKnowNothingOfANameThatIsNotAStage) {
  StageTraits traits = TraitsOf("$nope");
  EXPECT_FALSE(traits.writes_output || traits.independent_of_collection ||
               traits.reports_server_state || traits.requires_replica_set);
}

TEST(StageNames, ShouldNameTheFirstAndLastStages) {
  EXPECT_EQ(First(R"([{"$match": {}}, {"$out": "x"}])"), "$match");
  EXPECT_EQ(Last(R"([{"$match": {}}, {"$out": "x"}])"), "$out");
  EXPECT_EQ(First(R"([{"$limit": 1}])"), "$limit");
  EXPECT_EQ(Last(R"([{"$limit": 1}])"), "$limit");
}

TEST(StageNames, ShouldBeEmptyWithoutAStageDocument) {
  EXPECT_EQ(First("[]"), "");
  EXPECT_EQ(Last("[]"), "");
  EXPECT_EQ(First(R"([1, {"$out": "x"}])"), "");
  EXPECT_EQ(Last(R"([{"$out": "x"}, 1])"), "");
  EXPECT_EQ(First(R"([{}])"), "");
}

TEST(StageNames, ShouldNameTheFirstWritingStageOfASubPipeline) {
  EXPECT_EQ(NameIn(FirstWritingStageName, R"([{"$match": {}}, {"$merge": "x"}, {"$out": "y"}])"),
            "$merge");
  EXPECT_EQ(NameIn(FirstWritingStageName, R"([1, {"$out": "y"}])"), "$out");
  EXPECT_EQ(NameIn(FirstWritingStageName, R"([{"$match": {}}, {"$lookup": {}}])"), "");
}

}  // namespace
}  // namespace cairn::query
