// The $v: 2 diff an update is logged as (server/repl/update_diff.h), as MongoDB's doc_diff
// writes it.
#include "server/repl/update_diff.h"

#include <gtest/gtest.h>

namespace cairn::server {
namespace {

std::string Diff(const char* before, const char* after) {
  BsonDoc old_doc = BsonDoc::FromJson(before), new_doc = BsonDoc::FromJson(after);
  BsonDoc out;
  AppendDocumentDiff(old_doc.view(), new_doc.view(), out.get());
  return out.ToJson();
}

TEST(UpdateDiff, ShouldListRemovedChangedAndAddedFields) {
  EXPECT_EQ(
      Diff(R"({"_id": 1, "a": 1, "gone": true})", R"({"_id": 1, "a": 2, "new": "n"})"),
      BsonDoc::FromJson(R"({"d": {"gone": false}, "u": {"a": 2}, "i": {"new": "n"}})").ToJson());
}

TEST(UpdateDiff, ShouldDiffSubDocumentsPresentOnBothSides) {
  EXPECT_EQ(Diff(R"({"s": {"x": 1, "y": 2}})", R"({"s": {"x": 5, "y": 2}})"),
            BsonDoc::FromJson(R"({"ss": {"u": {"x": 5}}})").ToJson());
}

TEST(UpdateDiff, ShouldReplaceArraysAndTypeChangesWhole) {
  EXPECT_EQ(Diff(R"({"a": [1, 2], "n": 1})", R"({"a": [1, 2, 3], "n": 1.0})"),
            BsonDoc::FromJson(R"({"u": {"a": [1, 2, 3], "n": 1.0}})").ToJson());
}

TEST(UpdateDiff, ShouldBeEmptyForAnUnchangedDocument) {
  EXPECT_EQ(Diff(R"({"a": 1, "b": {"c": 2}})", R"({"a": 1, "b": {"c": 2}})"), "{ }");
}

// Applying the diff to the document before gives the document after (a change stream's
// post-image).
TEST(UpdateDiff, ShouldRebuildTheDocumentAfterFromTheOneBefore) {
  const char* cases[][2] = {
      {R"({"_id": 1, "a": 1, "gone": true})", R"({"_id": 1, "a": 2, "new": "n"})"},
      {R"({"s": {"x": 1, "y": 2}, "t": 0})", R"({"s": {"x": 5, "y": 2, "z": 1}, "t": 0})"},
      {R"({"a": [1, 2], "n": 1})", R"({"a": [1, 2, 3], "n": 1.0})"},
      {R"({"a": {"b": {"c": 1, "d": 2}}})", R"({"a": {"b": {"c": 1}}, "e": null})"},
  };
  for (const auto& [before_json, after_json] : cases) {
    BsonDoc before = BsonDoc::FromJson(before_json), after = BsonDoc::FromJson(after_json);
    BsonDoc diff, rebuilt;
    AppendDocumentDiff(before.view(), after.view(), diff.get());
    ApplyDocumentDiff(before.view(), diff.view(), rebuilt.get());
    EXPECT_EQ(rebuilt.ToJson(), after.ToJson()) << before_json;
  }
}

}  // namespace
}  // namespace cairn::server
