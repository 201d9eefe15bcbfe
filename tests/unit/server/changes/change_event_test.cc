// Change events made from oplog entries, resume tokens and the $changeStream stage's spec
// (server/changes/change_event.h), as MongoDB 7.0 shows them.
#include "server/changes/change_event.h"

#include <gtest/gtest.h>

#include <string>

namespace cairn::server {
namespace {

// The first element of {"v": <json>} as an iterator over `holder`.
bson_iter_t Field(const BsonDoc& holder) {
  bson_iter_t it;
  holder.view().Init(&it);
  bson_iter_next(&it);
  return it;
}

Result<ChangeStreamSpec> Spec(const char* json, std::string_view db = "db",
                              std::string_view collection = "c") {
  BsonDoc holder = BsonDoc::FromJson(std::string(R"({"v": )").append(json).append("}"));
  bson_iter_t it = Field(holder);
  return ParseChangeStreamSpec(&it, db, collection);
}

// The event of `entry` under a collection stream on db.c, as relaxed JSON ("" when none).
std::string Event(const char* entry, const char* spec = "{}") {
  Result<ChangeStreamSpec> parsed = Spec(spec);
  EXPECT_TRUE(parsed.ok());
  BsonDoc doc = BsonDoc::FromJson(entry);
  BsonDoc event;
  ChangeEventReads reads;
  reads.document = [](std::string_view, const bson_iter_t*, std::string* document, bool* found) {
    BsonDoc current = BsonDoc::FromJson(R"({"_id": 1, "now": true})");
    document->assign(reinterpret_cast<const char*>(current.view().data()), current.view().size());
    *found = true;
    return Status::OK();
  };
  // The pre-image entry at Timestamp(5, 1).
  reads.oplog_entry = [](Timestamp ts, std::string* entry, bool* found) {
    *found = ts == Timestamp::Of(5, 1);
    BsonDoc noop = BsonDoc::FromJson(R"({"op": "n", "ns": "db.c", "o": {"_id": 1, "a": 1}})");
    if (*found)
      entry->assign(reinterpret_cast<const char*>(noop.view().data()), noop.view().size());
    return Status::OK();
  };
  Result<bool> made = BuildChangeEvent(*parsed, doc.view(), reads, event.get());
  EXPECT_TRUE(made.ok());
  return made.ok() && *made ? event.ToJson() : "";
}

TEST(ResumeToken, ShouldRoundTripAndCompareInStreamOrder) {
  BsonDoc a, b;
  AppendResumeToken(a.get(), "t", {Timestamp::Of(100, 2), 0, false});
  AppendResumeToken(b.get(), "t", {Timestamp::Of(100, 10), 3, true});
  bson_iter_t ia = Field(a), ib = Field(b);
  Result<ResumePoint> pa = ParseResumeToken(&ia), pb = ParseResumeToken(&ib);
  ASSERT_TRUE(pa.ok() && pb.ok());
  EXPECT_EQ(pa->ts, Timestamp::Of(100, 2));
  EXPECT_EQ(pb->op_index, 3u);
  EXPECT_TRUE(pb->from_invalidate);
  bson_iter_t da, db;
  ASSERT_TRUE(IterDocument(&ia).Find("_data", &da) && IterDocument(&ib).Find("_data", &db));
  EXPECT_LT(IterUtf8(&da), IterUtf8(&db));
}

TEST(ResumeToken, ShouldRefuseWhatThisServerDidNotMake) {
  for (const char* json : {R"({"v": {"_data": "zz"}})", R"({"v": {"_data": 1}})", R"({"v": {}})",
                           R"({"v": {"_data": "8100000000000000000000000000"}})"}) {
    BsonDoc holder = BsonDoc::FromJson(json);
    bson_iter_t it = Field(holder);
    Result<ResumePoint> point = ParseResumeToken(&it);
    ASSERT_FALSE(point.ok()) << json;
    EXPECT_EQ(point.status().code(), ErrorCode::kFailedToParse);
  }
}

TEST(ChangeStreamSpec, ShouldParseOptionsAndScopes) {
  Result<ChangeStreamSpec> spec = Spec(R"({"fullDocument": "updateLookup"})");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->full_document, FullDocumentMode::kUpdateLookup);
  EXPECT_EQ(spec->scope, ChangeStreamScope::kCollection);
  EXPECT_EQ(Spec("{}", "db", "")->scope, ChangeStreamScope::kDatabase);
  EXPECT_EQ(Spec(R"({"allChangesForCluster": true})", "admin", "")->scope,
            ChangeStreamScope::kCluster);
}

TEST(ChangeStreamSpec, ShouldRefuseBadOptionsWithMongodsCodes) {
  EXPECT_EQ(Spec(R"({"fullDocument": "x"})").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(Spec(R"({"other": 1})").status().code(), ErrorCode::kLocation40415);
  EXPECT_EQ(Spec(R"({"showExpandedEvents": 1})").status().code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(Spec("1").status().code(), ErrorCode::kLocation50808);
  EXPECT_EQ(Spec("{}", "admin", "").status().code(), ErrorCode::kInvalidNamespace);
  EXPECT_EQ(Spec("{}", "db", "system.views").status().code(), ErrorCode::kInvalidNamespace);
  EXPECT_EQ(Spec(R"({"allChangesForCluster": true})", "db", "").status().code(),
            ErrorCode::kInvalidNamespace);
}

TEST(ChangeStreamScope, ShouldWatchWhatItNames) {
  ChangeStreamSpec collection = *Spec("{}"), database = *Spec("{}", "db", "");
  ChangeStreamSpec cluster = *Spec(R"({"allChangesForCluster": true})", "admin", "");
  EXPECT_TRUE(InScope(collection, "db.c"));
  EXPECT_FALSE(InScope(collection, "db.cc"));
  EXPECT_TRUE(InScope(database, "db.other"));
  EXPECT_FALSE(InScope(database, "db.system.views"));
  EXPECT_FALSE(InScope(database, "dbx.c"));
  EXPECT_TRUE(InScope(cluster, "any.c"));
  EXPECT_FALSE(InScope(cluster, "config.transactions"));
  EXPECT_FALSE(InScope(cluster, "local.oplog.rs"));
}

TEST(ChangeEvent, ShouldDescribeAnInsert) {
  std::string event = Event(
      R"({"op": "i", "ns": "db.c", "o": {"_id": 1, "a": 1}, "ts": {"$timestamp": {"t": 5, "i": 1}},
          "wall": {"$date": 0}})");
  EXPECT_NE(
      event.find(
          R"("operationType" : "insert", "clusterTime" : { "$timestamp" : { "t" : 5, "i" : 1 } }, "wallTime")"),
      std::string::npos)
      << event;
  EXPECT_NE(
      event.find(
          R"("fullDocument" : { "_id" : 1, "a" : 1 }, "ns" : { "db" : "db", "coll" : "c" }, "documentKey" : { "_id" : 1 } })"),
      std::string::npos)
      << event;
}

TEST(ChangeEvent, ShouldTurnTheDiffIntoAnUpdateDescription) {
  std::string event = Event(
      R"({"op": "u", "ns": "db.c", "o": {"$v": 2, "diff": {"d": {"x": false}, "u": {"a": 2},
          "i": {"n": 1}, "sb": {"u": {"c": 5}, "d": {"e": false}}}}, "o2": {"_id": 1},
          "ts": {"$timestamp": {"t": 5, "i": 2}}, "wall": {"$date": 0}})");
  EXPECT_NE(
      event.find(
          R"("updateDescription" : { "updatedFields" : { "a" : 2, "n" : 1, "b.c" : 5 }, "removedFields" : [ "x", "b.e" ], "truncatedArrays" : [  ] })"),
      std::string::npos)
      << event;
  EXPECT_EQ(event.find("fullDocument"), std::string::npos) << event;
  std::string looked_up = Event(
      R"({"op": "u", "ns": "db.c", "o": {"$v": 2, "diff": {"u": {"a": 2}}}, "o2": {"_id": 1},
          "ts": {"$timestamp": {"t": 5, "i": 2}}, "wall": {"$date": 0}})",
      R"({"fullDocument": "updateLookup"})");
  EXPECT_NE(looked_up.find(R"("fullDocument" : { "_id" : 1, "now" : true }, "ns")"),
            std::string::npos)
      << looked_up;
}

TEST(ChangeEvent, ShouldTellReplacementsAndDeletes) {
  std::string replace = Event(
      R"({"op": "u", "ns": "db.c", "o": {"_id": 1, "x": 1}, "o2": {"_id": 1},
          "ts": {"$timestamp": {"t": 5, "i": 3}}, "wall": {"$date": 0}})");
  EXPECT_NE(replace.find(R"("operationType" : "replace")"), std::string::npos) << replace;
  std::string removed = Event(
      R"({"op": "d", "ns": "db.c", "o": {"_id": 1}, "ts": {"$timestamp": {"t": 5, "i": 4}},
          "wall": {"$date": 0}})",
      R"({"fullDocumentBeforeChange": "whenAvailable"})");
  EXPECT_NE(removed.find(R"("documentKey" : { "_id" : 1 }, "fullDocumentBeforeChange" : null })"),
            std::string::npos)
      << removed;
}

TEST(ChangeEvent, ShouldShowTheRecordedPreImageAndThePostImageFromIt) {
  const char* update =
      R"({"op": "u", "ns": "db.c", "o": {"$v": 2, "diff": {"u": {"a": 2}}}, "o2": {"_id": 1},
          "preImageOpTime": {"ts": {"$timestamp": {"t": 5, "i": 1}}, "t": 1},
          "ts": {"$timestamp": {"t": 5, "i": 2}}, "wall": {"$date": 0}})";
  std::string event =
      Event(update, R"({"fullDocument": "whenAvailable", "fullDocumentBeforeChange": "required"})");
  EXPECT_NE(event.find(R"("fullDocument" : { "_id" : 1, "a" : 2 }, "ns")"), std::string::npos)
      << event;
  EXPECT_NE(event.find(R"("fullDocumentBeforeChange" : { "_id" : 1, "a" : 1 } })"),
            std::string::npos)
      << event;
}

TEST(ChangeEvent, ShouldFailWhenARequiredImageWasNotRecorded) {
  ChangeStreamSpec spec = *Spec(R"({"fullDocumentBeforeChange": "required"})");
  BsonDoc entry = BsonDoc::FromJson(
      R"({"op": "d", "ns": "db.c", "o": {"_id": 1}, "ts": {"$timestamp": {"t": 5, "i": 4}}})");
  BsonDoc event;
  ChangeEventReads none;
  Result<bool> made = BuildChangeEvent(spec, entry.view(), none, event.get());
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), ErrorCode::kNoMatchingDocument);
}

TEST(ChangeEvent, ShouldSkipNoopsAndOtherNamespaces) {
  EXPECT_EQ(
      Event(R"({"op": "n", "ns": "", "o": {"msg": "x"}, "ts": {"$timestamp": {"t": 5, "i": 5}}})"),
      "");
  EXPECT_EQ(
      Event(
          R"({"op": "i", "ns": "db.other", "o": {"_id": 1}, "ts": {"$timestamp": {"t": 5, "i": 6}}})"),
      "");
}

}  // namespace
}  // namespace cairn::server
