// Specification of $merge beyond _id: its argument errors ('on', mode pairs, 'let', a
// whenMatched pipeline's stages), matching on other 'on' fields through a unique index, every
// whenMatched mode against a matched document (_id kept and immutable), and whenMatched
// pipelines with `let` ($$new by default), as MongoDB 7.0 answers them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/query/pipeline/fake_output_targets.h"
#include "tests/unit/query/pipeline/pipeline_test_util.h"

namespace cairn::query {
namespace {

using testing::C;
using testing::ExpectError;
using testing::FakeStore;
using testing::RunWriting;

struct SpecErrorCase {
  const char* merge;
  int code;
  const char* reason;  // "" = not checked
};

void PrintTo(const SpecErrorCase& c, std::ostream* os) { *os << c.merge; }

class MergeSpecError : public ::testing::TestWithParam<SpecErrorCase> {};

TEST_P(MergeSpecError, ShouldAnswerMongoDBsCodeAndMessage) {
  const SpecErrorCase& c = GetParam();
  ExpectError(std::string(R"([{"$merge": )") + c.merge + "}]", {}, c.code, c.reason);
}

INSTANTIATE_TEST_SUITE_P(
    MergeStage, MergeSpecError,
    ::testing::Values(
        SpecErrorCase{R"({"into": "t", "on": ["a", 1]})", 51134,
                      "$merge 'on' array elements must be strings, but found int"},
        SpecErrorCase{R"({"into": "t", "on": [null]})", 51134, ""},
        SpecErrorCase{R"({"into": "t", "on": {"_id": 1}})", 51186, ""},
        SpecErrorCase{R"({"into": "t", "whenMatched": "fail", "whenNotMatched": "discard"})", 51189,
                      "Combination of $merge modes 'whenMatched: fail' and 'whenNotMatched: "
                      "discard' is not supported"},
        SpecErrorCase{R"({"into": "t", "whenMatched": "keepExisting", "whenNotMatched": "fail"})",
                      51189, ""},
        SpecErrorCase{R"({"into": "t", "whenMatched": "replace", "let": {"x": 1}})", 51199,
                      "Cannot use 'let' variables with 'whenMatched: replace' mode"},
        SpecErrorCase{R"({"into": "t", "let": {"x": 1}})", 51199,
                      "Cannot use 'let' variables with 'whenMatched: merge' mode"},
        SpecErrorCase{R"({"into": "t", "let": 1, "whenMatched": []})", 14, ""},
        SpecErrorCase{R"({"into": "t", "whenMatched": [{"$group": {"_id": null}}]})", 72,
                      "$group is not allowed to be used within an update"},
        SpecErrorCase{R"({"into": "t", "whenMatched": [{"$match": {}}]})", 72,
                      "$match is not allowed to be used within an update"},
        SpecErrorCase{R"({"into": "t", "whenMatched": [{"$nope": {}}]})", 40324, ""},
        SpecErrorCase{R"({"into": "t", "whenMatched": [{"$set": {"a": "$$undefinedVar"}}]})", 17276,
                      ""},
        SpecErrorCase{R"({"into": "t", "let": {"new": "$a"}, "whenMatched": []})", 51273,
                      "'let' may not define a value for the reserved 'new' variable other than "
                      "'$$ROOT'"}));

// Target before: {_id: 1, a: 1, b: 1} with a unique index on {a}.
struct OnCase {
  const char* merge;
  const char* input;
  std::vector<std::string> expected;
};

TEST(MergeStage, ShouldFindTheTargetDocumentByItsOnFieldsInEveryMode) {
  const OnCase cases[] = {
      // merge: the new fields $set into the matched document, its _id kept.
      {R"({"into": "t", "on": "a"})",
       R"({"a": 1, "c": 2})",
       {R"({"_id": 1, "a": 1, "b": 1, "c": 2})"}},
      {R"({"into": "t", "on": "a", "whenMatched": "merge"})",
       R"({"_id": 1, "a": 1, "b": 5})",
       {R"({"_id": 1, "a": 1, "b": 5})"}},
      // replace: the new document with the matched one's _id first.
      {R"({"into": "t", "on": "a", "whenMatched": "replace"})",
       R"({"c": 3, "a": 1})",
       {R"({"_id": 1, "c": 3, "a": 1})"}},
      {R"({"into": "t", "on": ["a"], "whenMatched": "keepExisting"})",
       R"({"a": 1, "c": 3})",
       {R"({"_id": 1, "a": 1, "b": 1})"}},
      // no match: inserted (with its own _id), discarded.
      {R"({"into": "t", "on": "a", "whenMatched": "replace"})",
       R"({"_id": 7, "a": 2})",
       {R"({"_id": 1, "a": 1, "b": 1})", R"({"_id": 7, "a": 2})"}},
      {R"({"into": "t", "on": "a", "whenNotMatched": "discard"})",
       R"({"_id": 7, "a": 2})",
       {R"({"_id": 1, "a": 1, "b": 1})"}},
      // numbers match by value, as the index compares them.
      {R"({"into": "t", "on": "a", "whenMatched": "replace"})",
       R"({"a": 1.0, "d": 1})",
       {R"({"_id": 1, "a": 1.0, "d": 1})"}},
  };
  for (const OnCase& c : cases) {
    FakeStore store;
    store.collections["test.t"].push_back(BsonDoc::FromJson(R"({"_id": 1, "a": 1, "b": 1})"));
    store.unique_indexes["test.t"].insert({"a"});
    Status status = RunWriting(&store, std::string(R"([{"$merge": )") + c.merge + "}]", {c.input});
    ASSERT_TRUE(status.ok()) << c.merge << ": " << status.ToString();
    EXPECT_EQ(store.Contents("test.t"), C(c.expected)) << c.merge << " " << c.input;
  }
}

TEST(MergeStage, ShouldMatchOnSeveralFieldsInAnyOrderAndOnDottedPaths) {
  FakeStore store;
  store.collections["test.t"].push_back(
      BsonDoc::FromJson(R"({"_id": 1, "k": {"x": 1}, "b": 2, "v": 0})"));
  store.unique_indexes["test.t"].insert({"b", "k.x"});
  ASSERT_TRUE(
      RunWriting(&store,
                 R"([{"$merge": {"into": "t", "on": ["k.x", "b"], "whenMatched": "merge"}}])",
                 {R"({"k": {"x": 1}, "b": 2, "v": 1})", R"({"_id": 3, "k": {"x": 1}, "b": 3})"})
          .ok());
  EXPECT_EQ(store.Contents("test.t"),
            C(std::vector<std::string>{R"({"_id": 1, "k": {"x": 1}, "b": 2, "v": 1})",
                                       R"({"_id": 3, "k": {"x": 1}, "b": 3})"}));
}

TEST(MergeStage, ShouldRefuseOnFieldsWithoutAUniqueIndexOnExactlyThem) {
  FakeStore store;
  store.unique_indexes["test.t"].insert({"a", "b"});
  for (const char* on : {R"("a")", R"(["a", "c"])", R"(["a", "b", "c"])"}) {
    Status status = RunWriting(
        &store, std::string(R"([{"$merge": {"into": "t", "on": )") + on + "}}]", {R"({"a": 1})"});
    EXPECT_EQ(status.code_number(), 51183) << on;
  }
  EXPECT_TRUE(RunWriting(&store, R"([{"$merge": {"into": "t", "on": ["b", "a", "a"]}}])",
                         {R"({"a": 1, "b": 1})"})
                  .ok());
}

TEST(MergeStage, ShouldRefuseADocumentWhoseOnFieldIsMissingNullUndefinedOrAnArray) {
  struct Case {
    const char* input;
    int code;
  };
  const Case cases[] = {
      {R"({"_id": 1})", 51132},
      {R"({"_id": 1, "s": null})", 51132},
      {R"({"_id": 1, "s": {"a": null}})", 51132},
      {R"({"_id": 1, "s": {"a": {"$undefined": true}}})", 51132},
      {R"({"_id": 1, "s": [{"a": 1}]})", 51132},  // an array on the way: missing
      {R"({"_id": 1, "s": {"a": [1, 2]}})", 51185},
  };
  for (const Case& c : cases) {
    FakeStore store;
    store.unique_indexes["test.t"].insert({"s.a"});
    Status status = RunWriting(&store, R"([{"$merge": {"into": "t", "on": "s.a"}}])", {c.input});
    EXPECT_EQ(status.code_number(), c.code) << c.input;
    if (c.code == 51132) {
      EXPECT_EQ(status.reason(),
                "$merge write error: 'on' field cannot be missing, null, undefined or an array");
    }
  }
}

TEST(MergeStage, ShouldRefuseToChangeTheIdOfAMatchedDocument) {
  struct Case {
    const char* merge;
    const char* reason;
  };
  const Case cases[] = {
      {R"({"into": "t", "on": "a", "whenMatched": "replace"})",
       "$merge failed to update the matching document, did you attempt to modify the _id or the "
       "shard key? :: caused by :: After applying the update, the (immutable) field '_id' was "
       "found to have been altered to _id: 9"},
      {R"({"into": "t", "on": "a", "whenMatched": "merge"})",
       "$merge failed to update the matching document, did you attempt to modify the _id or the "
       "shard key? :: caused by :: Performing an update on the path '_id' would modify the "
       "immutable field '_id'"},
      {R"({"into": "t", "on": "a", "whenMatched": [{"$set": {"_id": 9}}]})", ""},
  };
  for (const Case& c : cases) {
    FakeStore store;
    store.collections["test.t"].push_back(BsonDoc::FromJson(R"({"_id": 1, "a": 1})"));
    store.unique_indexes["test.t"].insert({"a"});
    Status status = RunWriting(&store, std::string(R"([{"$merge": )") + c.merge + "}]",
                               {R"({"_id": 9, "a": 1})"});
    EXPECT_EQ(status.code_number(), 66) << c.merge;
    if (*c.reason != '\0') {
      EXPECT_EQ(status.reason(), c.reason) << c.merge;
    }
  }
}

TEST(MergeStage, ShouldFailOnAMatchWithWhenMatchedFailOnAnyOnFields) {
  FakeStore store;
  store.collections["test.t"].push_back(BsonDoc::FromJson(R"({"_id": 1, "a": 1})"));
  store.unique_indexes["test.t"].insert({"a"});
  Status status =
      RunWriting(&store, R"([{"$merge": {"into": "t", "on": "a", "whenMatched": "fail"}}])",
                 {R"({"_id": 2, "a": 1})"});
  EXPECT_EQ(status.code_number(), 11000);
  EXPECT_EQ(status.reason(),
            "$merge with whenMatched: fail found an existing document with the same values for "
            "the 'on' fields :: caused by :: E11000 duplicate key error");
  // A duplicate on another unique index (here _id) has the general context.
  Status other_index =
      RunWriting(&store, R"([{"$merge": {"into": "t", "on": "a", "whenMatched": "fail"}}])",
                 {R"({"_id": 1, "a": 9})"});
  EXPECT_EQ(other_index.reason(),
            "$merge failed due to a DuplicateKey error :: caused by :: E11000 duplicate key error");
  Status not_matched =
      RunWriting(&store, R"([{"$merge": {"into": "t", "on": "a", "whenNotMatched": "fail"}}])",
                 {R"({"_id": 2, "a": 5})"});
  EXPECT_EQ(not_matched.code_number(), 13113);
}

// Target before: {_id: 1, total: 10, n: 1}; input {_id: 1, total: 5}, {_id: 2, total: 7}.
struct PipelineCase {
  const char* merge;
  std::vector<std::string> expected;
};

TEST(MergeStage, ShouldRunAWhenMatchedPipelineWithItsLetVariables) {
  const PipelineCase cases[] = {
      // $$new is the incoming document by default; on no match the pipeline runs on {_id}.
      {R"({"into": "t", "whenMatched": [{"$set": {"total": {"$add": ["$total", "$$new.total"]},
                                                  "n": {"$add": ["$n", 1]}}}]})",
       {R"({"_id": 1, "total": 15, "n": 2})", R"({"_id": 2, "total": null, "n": null})"}},
      {R"({"into": "t", "let": {"t": "$total"},
           "whenMatched": [{"$set": {"total": {"$multiply": ["$total", "$$t"]}}}],
           "whenNotMatched": "discard"})",
       {R"({"_id": 1, "total": 50, "n": 1})"}},
      {R"({"into": "t", "whenMatched": [{"$replaceWith": {"seen": "$$new.total"}}],
           "whenNotMatched": "discard"})",
       {R"({"_id": 1, "seen": 5})"}},
      {R"({"into": "t", "whenMatched": [{"$project": {"n": 1}}, {"$unset": "n"}],
           "whenNotMatched": "discard"})",
       {R"({"_id": 1})"}},
  };
  for (const PipelineCase& c : cases) {
    FakeStore store;
    store.collections["test.t"].push_back(BsonDoc::FromJson(R"({"_id": 1, "total": 10, "n": 1})"));
    Status status = RunWriting(&store, std::string(R"([{"$merge": )") + c.merge + "}]",
                               {R"({"_id": 1, "total": 5})", R"({"_id": 2, "total": 7})"});
    ASSERT_TRUE(status.ok()) << c.merge << ": " << status.ToString();
    EXPECT_EQ(store.Contents("test.t"), C(c.expected)) << c.merge;
  }
  FakeStore store;
  Status not_matched = RunWriting(
      &store,
      R"([{"$merge": {"into": "t", "whenMatched": [{"$set": {"x": 1}}], "whenNotMatched": "fail"}}])",
      {R"({"_id": 1})"});
  EXPECT_EQ(not_matched.code_number(), 13113);
}

}  // namespace
}  // namespace cairn::query
