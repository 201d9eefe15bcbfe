// {$meta: "textScore"} in pipelines: the score a leading $text search gives each document
// (DocumentSource::text_score) reaches $project / $addFields / $group expressions and $sort
// keys through the stages that keep documents one to one, and is 40218 without a search.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "query/pipeline/text_score_check.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query::testing {
namespace {

// A text search stand-in: documents, each with its score.
class ScoredSource final : public DocumentSource {
 public:
  ScoredSource(const std::vector<std::string>& docs, std::vector<double> scores)
      : docs_(Docs(docs)), scores_(std::move(scores)) {}

  bool Next() override {
    if (next_ >= docs_.size()) return false;
    current_ = next_++;
    return true;
  }
  BsonView document() const override { return docs_[current_].view(); }
  std::optional<double> text_score() const override { return scores_[current_]; }

 private:
  std::vector<BsonDoc> docs_;
  std::vector<double> scores_;
  size_t next_ = 0;
  size_t current_ = 0;
};

const std::vector<std::string> kDocs = {
    R"({"_id": 1, "title": "a", "body": "x", "tags": [1, 2]})",
    R"({"_id": 2, "title": "b", "body": "y", "tags": [3]})",
    R"({"_id": 3, "title": "c", "body": "z", "tags": []})",
};
const std::vector<double> kScores = {0.75, 1.5, 1.0};

Result<std::vector<std::string>> RunScored(const std::string& pipeline_json,
                                           const PipelineOptions& options = {}) {
  CAIRN_ASSIGN_OR_RETURN(Pipeline pipeline, ParseJson(pipeline_json, options));
  std::unique_ptr<DocumentSource> exec =
      pipeline.Bind(std::make_unique<ScoredSource>(kDocs, kScores), /*skip_leading_match=*/false);
  return Drain(exec.get());
}

struct ScoreCase {
  const char* name;
  const char* pipeline;
  std::vector<std::string> expected;
};

class TextScorePipelineTest : public ::testing::TestWithParam<ScoreCase> {};

TEST_P(TextScorePipelineTest, Output) {
  const ScoreCase& c = GetParam();
  Result<std::vector<std::string>> out = RunScored(c.pipeline);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(c.expected));
}

INSTANTIATE_TEST_SUITE_P(
    Stages, TextScorePipelineTest,
    ::testing::Values(
        ScoreCase{"ProjectInclusion",
                  R"([{"$project": {"title": 1, "score": {"$meta": "textScore"}}}])",
                  {R"({"_id": 1, "title": "a", "score": 0.75})",
                   R"({"_id": 2, "title": "b", "score": 1.5})",
                   R"({"_id": 3, "title": "c", "score": 1.0})"}},
        ScoreCase{"ProjectMetaAloneKeepsTheDocument",
                  R"([{"$match": {"_id": 1}}, {"$project": {"score": {"$meta": "textScore"}}}])",
                  {R"({"_id": 1, "title": "a", "body": "x", "tags": [1, 2], "score": 0.75})"}},
        ScoreCase{"ProjectMetaWithExclusion",
                  R"([{"$limit": 1}, {"$project": {"body": 0, "tags": 0,
                      "score": {"$meta": "textScore"}}}])",
                  {R"({"_id": 1, "title": "a", "score": 0.75})"}},
        ScoreCase{"AddFieldsThenMatchOnScore",
                  R"([{"$addFields": {"s": {"$multiply": [{"$meta": "textScore"}, 2]}}},
                      {"$match": {"s": {"$gte": 2}}}, {"$project": {"s": 1}}])",
                  {R"({"_id": 2, "s": 3.0})", R"({"_id": 3, "s": 2.0})"}},
        ScoreCase{"SortByScoreIsDescending",
                  R"([{"$sort": {"score": {"$meta": "textScore"}}}, {"$project": {"title": 1}}])",
                  {R"({"_id": 2, "title": "b"})", R"({"_id": 3, "title": "c"})",
                   R"({"_id": 1, "title": "a"})"}},
        ScoreCase{"SortByScoreKeepsDocumentsUnchanged",
                  R"([{"$sort": {"score": {"$meta": "textScore"}}}, {"$limit": 1}])",
                  {R"({"_id": 2, "title": "b", "body": "y", "tags": [3]})"}},
        ScoreCase{"SortCarriesScores",
                  R"([{"$sort": {"_id": -1}},
                      {"$project": {"_id": 1, "score": {"$meta": "textScore"}, "t": "$title"}}])",
                  {R"({"_id": 3, "score": 1.0, "t": "c"})", R"({"_id": 2, "score": 1.5, "t": "b"})",
                   R"({"_id": 1, "score": 0.75, "t": "a"})"}},
        ScoreCase{"TopNSortByScoreThenProject",
                  R"([{"$sort": {"score": {"$meta": "textScore"}, "_id": 1}}, {"$limit": 2},
                      {"$project": {"score": {"$meta": "textScore"}, "title": 1}}])",
                  {R"({"_id": 2, "title": "b", "score": 1.5})",
                   R"({"_id": 3, "title": "c", "score": 1.0})"}},
        ScoreCase{
            "SkipLimitUnwindKeepScores",
            R"([{"$skip": 0}, {"$limit": 5}, {"$unwind": "$tags"},
                      {"$set": {"score": {"$meta": "textScore"}}}, {"$project": {"tags": 1, "score": 1}}])",
            {R"({"_id": 1, "tags": 1, "score": 0.75})", R"({"_id": 1, "tags": 2, "score": 0.75})",
             R"({"_id": 2, "tags": 3, "score": 1.5})"}},
        ScoreCase{"ReplaceRootKeepsScores",
                  R"([{"$replaceRoot": {"newRoot": {"t": "$title"}}},
                      {"$addFields": {"score": {"$meta": "textScore"}}}, {"$limit": 1}])",
                  {R"({"t": "a", "score": 0.75})"}},
        ScoreCase{"GroupAccumulatesScores",
                  R"([{"$group": {"_id": null, "avg": {"$avg": {"$meta": "textScore"}},
                      "max": {"$max": {"$meta": "textScore"}}}}])",
                  {R"({"_id": null, "avg": 1.0833333333333333, "max": 1.5})"}}),
    [](const ::testing::TestParamInfo<ScoreCase>& info) { return std::string(info.param.name); });

TEST(TextScorePipelineSpillTest, SpilledSortCarriesScores) {
  PipelineOptions options;
  options.sort_max_memory_bytes = 1;  // every document spills
  Result<std::vector<std::string>> out = RunScored(
      R"([{"$sort": {"s": {"$meta": "textScore"}}},
          {"$project": {"title": 1, "s": {"$meta": "textScore"}}}])",
      options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, C(std::vector<std::string>{R"({"_id": 2, "title": "b", "s": 1.5})",
                                             R"({"_id": 3, "title": "c", "s": 1.0})",
                                             R"({"_id": 1, "title": "a", "s": 0.75})"}));
}

TEST(TextScoreUnavailableTest, WithoutTextSearchIs40218) {
  const std::string reason = "query requires text score metadata, but it is not available";
  const std::vector<std::string> docs = {R"({"_id": 1})"};
  ExpectError(R"([{"$project": {"score": {"$meta": "textScore"}}}])", docs, 40218, reason);
  ExpectError(R"([{"$addFields": {"score": {"$meta": "textScore"}}}])", docs, 40218, reason);
  ExpectError(R"([{"$sort": {"score": {"$meta": "textScore"}}}])", docs, 40218, reason);
  ExpectError(R"([{"$group": {"_id": 1, "a": {"$avg": {"$meta": "textScore"}}}}])", docs, 40218,
              reason);
}

TEST(TextScoreUnavailableTest, OtherMetaNamesAreNotSupported) {
  ExpectError(R"([{"$project": {"k": {"$meta": "indexKey"}}}])", {R"({"_id": 1})"}, 2);
}

TEST(TextScoreUnavailableTest, PipelinesWithoutScoresAreUnchanged) {
  ExpectOutput(R"([{"$sort": {"a": -1}}, {"$project": {"a": 1}}])",
               {R"({"_id": 1, "a": 1})", R"({"_id": 2, "a": 2})"},
               {R"({"_id": 2, "a": 2})", R"({"_id": 1, "a": 1})"});
}

TEST(CheckTextScoreAvailableTest, RefusesReadersBeforeTheFirstNewDocumentStage) {
  struct Case {
    const char* pipeline;
    bool text_search_leads;
    int code;  // 0: OK
  };
  const Case cases[] = {
      {R"([{"$project": {"s": {"$meta": "textScore"}}}])", false, 40218},
      {R"([{"$match": {"a": 1}}, {"$set": {"s": {"$add": [1, {"$meta": "textScore"}]}}}])", false,
       40218},
      {R"([{"$sort": {"s": {"$meta": "textScore"}}}])", false, 40218},
      {R"([{"$group": {"_id": 1, "a": {"$avg": {"$meta": "textScore"}}}}])", false, 40218},
      {R"([{"$group": {"_id": 1}}, {"$project": {"s": {"$meta": "textScore"}}}])", false, 0},
      {R"([{"$project": {"s": {"$meta": "indexKey"}}}])", false, 0},
      {R"([{"$match": {"$text": {"$search": "a"}}}, {"$sort": {"s": {"$meta": "textScore"}}}])",
       true, 0},
      {R"([{"$project": {"a": 1}}])", false, 0},
  };
  for (const Case& c : cases) {
    PipelineSpec spec(c.pipeline);
    Status status = CheckTextScoreAvailable(spec.array(), c.text_search_leads);
    EXPECT_EQ(status.ok() ? 0 : status.code_number(), c.code) << c.pipeline;
  }
}

}  // namespace
}  // namespace cairn::query::testing
