// Specification of the writing stages $out and $merge (over an in-memory OutputTargets standing
// in for the server's collections) and of the source stage $documents: what lands in the
// target, the whenMatched/whenNotMatched modes, and MongoDB's argument and position errors.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/bson_compare.h"
#include "query/pipeline/output_target.h"
#include "query/pipeline/pipeline.h"
#include "tests/unit/query/pipeline/fake_output_targets.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::C;
using testing::Canonical;
using testing::ExpectError;
using testing::ExpectOutput;
using testing::RunPipeline;

using testing::FakeStore;
using testing::RunWriting;

TEST(OutStage, ShouldReplaceTheTargetWithItsInputAndReturnNothing) {
  FakeStore store;
  store.collections["test.out"].push_back(BsonDoc::FromJson(R"({"_id": 9})"));
  ASSERT_TRUE(
      RunWriting(&store, R"([{"$match": {"a": {"$gt": 1}}}, {"$out": "out"}])",
                 {R"({"_id": 1, "a": 1})", R"({"_id": 2, "a": 2})", R"({"_id": 3, "a": 3})"})
          .ok());
  EXPECT_EQ(store.Contents("test.out"),
            C(std::vector<std::string>{R"({"_id": 2, "a": 2})", R"({"_id": 3, "a": 3})"}));
}

TEST(OutStage, ShouldWriteToTheDatabaseAndCollectionOfAnObjectTarget) {
  FakeStore store;
  ASSERT_TRUE(
      RunWriting(&store, R"([{"$out": {"db": "other", "coll": "c"}}])", {R"({"_id": 1})"}).ok());
  EXPECT_EQ(store.Contents("other.c"), C(std::vector<std::string>{R"({"_id": 1})"}));
}

TEST(MergeStage, ShouldApplyEachWhenMatchedAndWhenNotMatchedMode) {
  struct Case {
    const char* merge;
    std::vector<std::string> expected;
  };
  // Target before: {_id: 1, a: 1, b: 1}; input: {_id: 1, a: 2, c: 2}, {_id: 2, a: 2}.
  const Case cases[] = {
      {R"({"into": "t"})", {R"({"_id": 1, "a": 2, "b": 1, "c": 2})", R"({"_id": 2, "a": 2})"}},
      {R"({"into": "t", "whenMatched": "replace"})",
       {R"({"_id": 1, "a": 2, "c": 2})", R"({"_id": 2, "a": 2})"}},
      {R"({"into": "t", "whenMatched": "keepExisting", "whenNotMatched": "insert"})",
       {R"({"_id": 1, "a": 1, "b": 1})", R"({"_id": 2, "a": 2})"}},
      {R"({"into": "t", "whenMatched": "merge", "whenNotMatched": "discard"})",
       {R"({"_id": 1, "a": 2, "b": 1, "c": 2})"}},
      {R"({"into": {"db": "test", "coll": "t"}, "on": "_id", "whenMatched": "replace",
           "whenNotMatched": "discard"})",
       {R"({"_id": 1, "a": 2, "c": 2})"}},
  };
  for (const Case& c : cases) {
    FakeStore store;
    store.collections["test.t"].push_back(BsonDoc::FromJson(R"({"_id": 1, "a": 1, "b": 1})"));
    Status status = RunWriting(&store, std::string(R"([{"$merge": )") + c.merge + "}]",
                               {R"({"_id": 1, "a": 2, "c": 2})", R"({"_id": 2, "a": 2})"});
    ASSERT_TRUE(status.ok()) << c.merge << ": " << status.ToString();
    EXPECT_EQ(store.Contents("test.t"), C(c.expected)) << c.merge;
  }
}

TEST(MergeStage, ShouldFailAsMongoDBWhenAModeSaysFail) {
  FakeStore store;
  store.collections["test.t"].push_back(BsonDoc::FromJson(R"({"_id": 1})"));
  Status matched = RunWriting(&store, R"([{"$merge": {"into": "t", "whenMatched": "fail"}}])",
                              {R"({"_id": 1, "a": 2})"});
  EXPECT_EQ(matched.code_number(), 11000);
  Status not_matched = RunWriting(
      &store, R"([{"$merge": {"into": "t", "whenNotMatched": "fail"}}])", {R"({"_id": 5})"});
  EXPECT_EQ(not_matched.code_number(), 13113);
  EXPECT_EQ(not_matched.reason(),
            "$merge could not find a matching document in the target collection for at least "
            "one document in the source collection");
  Status other_on = RunWriting(&store, R"([{"$merge": {"into": "t", "on": "a"}}])", {"{}"});
  EXPECT_EQ(other_on.code_number(), 51183);
}

TEST(MergeStage, ShouldGiveADocumentWithoutIdANewObjectId) {
  FakeStore store;
  ASSERT_TRUE(RunWriting(&store, R"([{"$merge": "t"}])", {R"({"a": 1})"}).ok());
  ASSERT_EQ(store.collections["test.t"].size(), 1u);
  bson_iter_t id;
  ASSERT_TRUE(store.collections["test.t"][0].view().Find("_id", &id));
  EXPECT_TRUE(BSON_ITER_HOLDS_OID(&id));
}

struct WritingErrorCase {
  const char* pipeline;
  int code;
  const char* reason;  // "" = not checked
};

void PrintTo(const WritingErrorCase& c, std::ostream* os) { *os << c.pipeline; }

class WritingStageError : public ::testing::TestWithParam<WritingErrorCase> {};

TEST_P(WritingStageError, ShouldAnswerMongoDBsCodeAndMessage) {
  const WritingErrorCase& c = GetParam();
  ExpectError(c.pipeline, {}, c.code, c.reason);
}

INSTANTIATE_TEST_SUITE_P(
    OutputStages, WritingStageError,
    ::testing::Values(
        WritingErrorCase{R"([{"$out": "a"}, {"$match": {}}])", 40601,
                         "$out can only be the final stage in the pipeline"},
        WritingErrorCase{R"([{"$merge": "a"}, {"$limit": 1}])", 40601,
                         "$merge can only be the final stage in the pipeline"},
        WritingErrorCase{R"([{"$out": 1}])", 16990,
                         "$out only supports a string or object argument, but found int"},
        WritingErrorCase{R"([{"$out": {"db": "x"}}])", 40414,
                         "BSON field '$out.coll' is missing but a required field"},
        WritingErrorCase{R"([{"$out": {"db": "x", "coll": "y", "z": 1}}])", 40415,
                         "BSON field '$out.z' is an unknown field."},
        WritingErrorCase{R"([{"$merge": 1}])", 51182,
                         "$merge only supports a string or object argument, but found int"},
        WritingErrorCase{R"([{"$merge": {}}])", 40414,
                         "BSON field '$merge.into' is missing but a required field"},
        WritingErrorCase{R"([{"$merge": {"into": "a", "x": 1}}])", 40415,
                         "BSON field '$merge.x' is an unknown field."},
        WritingErrorCase{R"([{"$merge": {"into": 1}}])", 51178, ""},
        WritingErrorCase{R"([{"$merge": {"into": "a", "on": 1}}])", 51186, ""},
        WritingErrorCase{R"([{"$merge": {"into": "a", "on": []}}])", 51187, ""},
        WritingErrorCase{R"([{"$merge": {"into": "a", "whenMatched": "x"}}])", 2,
                         "Enumeration value 'x' for field '$merge.whenMatched' is not a valid "
                         "value."},
        WritingErrorCase{R"([{"$merge": {"into": "a", "whenNotMatched": "x"}}])", 2, ""},
        WritingErrorCase{R"([{"$match": {}}, {"$documents": []}])", 40602, ""},
        WritingErrorCase{R"([{"$documents": 1}])", 5858203, ""},
        WritingErrorCase{R"([{"$documents": [1]}])", 40228, ""}));

TEST(DocumentsStage, ShouldServeTheDocumentsOfItsArrayExpression) {
  ExpectOutput(R"([{"$documents": [{"a": 1}, {"a": {"$add": [1, 1]}}]}, {"$match": {"a": 2}}])", {},
               {R"({"a": 2})"});
  ExpectOutput(R"([{"$documents": {"$map": {"input": [1, 2], "in": {"x": "$$this"}}}}])", {},
               {R"({"x": 1})", R"({"x": 2})"});
  ExpectOutput(R"([{"$documents": []}])", {}, {});
}

}  // namespace
}  // namespace cairn::query
