// validate on a tampered store: what no client can do (an index entry deleted or invented, a
// record whose bytes are not BSON) is done here through storage's WriteUnit, and the command
// must name each fault as MongoDB 7.0 does (missingIndexEntries / extraIndexEntries with
// indexName, recordId, idKey, indexKey; corruptRecords; the errors, warnings and advice), then
// with repair: true remove the corrupt record and the extra entry, insert the missing one, and
// leave a collection the next validate finds valid.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "index/key_generator.h"
#include "server/catalog/collection_indexes.h"
#include "server/commands/command_table.h"
#include "server/server_state.h"
#include "server/write/collection_writer.h"
#include "tests/unit/storage/storage_test_util.h"

namespace cairn::server {
namespace {

BsonDoc Json(const std::string& json) { return BsonDoc::FromJson(json); }

std::string AsJson(BsonView v) { return v.ToJson(); }

class ValidateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.dbpath = dir_.path();
    state_ = std::make_unique<ServerState>(options, storage::testing::OpenOrDie(dir_.db()));
    storage::Catalog& catalog = state_->engine().catalog();
    ASSERT_TRUE(catalog.CreateCollection("db.c", BsonView()).ok());
    BsonDoc spec = Json(R"({"v": 2, "key": {"a": 1}, "name": "a_1"})");
    ASSERT_TRUE(catalog.CreateIndex("db.c", "a_1", spec.view()).ok());
    auto writer = CollectionWriter::Open(state_->writes(), "db.c", false);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    for (int i = 1; i <= 5; ++i) {
      BsonDoc doc =
          Json(R"({"_id": )" + std::to_string(i) + R"(, "a": )" + std::to_string(10 * i) + "}");
      ASSERT_TRUE((*writer)->Insert(doc.view()).ok());
    }
    ASSERT_TRUE((*writer)->Commit().ok());
  }

  storage::CollectionHandle Handle() { return state_->engine().catalog().Find("db.c"); }

  // The RecordId of the document with this _id.
  storage::RecordId RecordOf(int id) {
    auto scan = state_->engine().ScanRecords(Handle()->prefix);
    while (scan->Next()) {
      if (storage::testing::IdOf(scan->value()) == id) return scan->id();
    }
    ADD_FAILURE() << "no document " << id;
    return 0;
  }

  // The key of `doc` in index number `i` (0: _id_, 1: a_1).
  std::string KeyOf(size_t i, const std::string& doc_json) {
    auto indexes = IndexesOf(Handle());
    EXPECT_TRUE(indexes.ok());
    BsonDoc doc = Json(doc_json);
    index::KeySet keys;
    index::MultikeyPaths paths;
    EXPECT_TRUE((*indexes)->all()[i].descriptor->GetKeys(doc.view(), &keys, &paths).ok());
    EXPECT_EQ(keys.size(), 1u);
    return keys.empty() ? std::string() : keys[0];
  }

  storage::Prefix IndexPrefix(size_t i) { return Handle()->indexes[i].prefix; }

  BsonDoc Validate(const std::string& options = "") {
    BsonDoc body = Json(R"({"validate": "c")" + options + R"(, "$db": "db"})");
    std::vector<wire::DocumentSequence> sequences;
    CommandRequest request;
    request.name = "validate";
    request.db = "db";
    request.body = body.view();
    request.sequences = &sequences;
    ConnectionInfo connection;
    CommandContext ctx{*state_, connection};
    const CommandDef* def = FindCommand("validate");
    EXPECT_NE(def, nullptr);
    BsonDoc reply;
    Status status = def->handler(ctx, request, reply.get()).status();
    EXPECT_TRUE(status.ok()) << status.ToString();
    return reply;
  }

  static std::string Field(const BsonDoc& reply, const char* name) {
    bson_iter_t it;
    if (!reply.view().Find(name, &it)) return "<absent>";
    BsonDoc wrapper;
    AppendIter(wrapper.get(), "v", &it);
    std::string json = wrapper.ToJson();
    // { "v" : X } -> X
    return json.substr(8, json.size() - 10);
  }

  storage::testing::TempDir dir_;
  std::unique_ptr<ServerState> state_;
};

TEST_F(ValidateTest, ShouldFindAConsistentCollectionValid) {
  BsonDoc reply = Validate(R"(, "full": true)");
  EXPECT_EQ(Field(reply, "valid"), "true") << AsJson(reply.view());
  EXPECT_EQ(Field(reply, "nrecords"), "5");
  EXPECT_EQ(Field(reply, "keysPerIndex"), R"({ "_id_" : 5, "a_1" : 5 })");
  EXPECT_EQ(Field(reply, "indexDetails"),
            R"({ "_id_" : { "valid" : true }, "a_1" : { "valid" : true } })");
  EXPECT_EQ(Field(reply, "advice"), "<absent>");
}

TEST_F(ValidateTest, ShouldNameMissingAndExtraIndexEntries) {
  const storage::RecordId rid3 = RecordOf(3);
  {
    storage::WriteUnit unit = state_->engine().BeginWrite();
    // Document 3's a_1 entry disappears; an entry for a record that does not exist appears.
    unit.DeleteIndexEntry(IndexPrefix(1), IndexEntryKey(false, KeyOf(1, R"({"a": 30})"), rid3));
    unit.PutIndexEntry(IndexPrefix(1), IndexEntryKey(false, KeyOf(1, R"({"a": 77})"), 999),
                       IndexEntryValue(false, 999));
    ASSERT_TRUE(unit.Commit().ok());
  }
  BsonDoc reply = Validate();
  EXPECT_EQ(Field(reply, "valid"), "false") << AsJson(reply.view());
  EXPECT_EQ(Field(reply, "keysPerIndex"), R"({ "_id_" : 5, "a_1" : 5 })");
  EXPECT_EQ(Field(reply, "indexDetails"),
            R"({ "_id_" : { "valid" : true }, "a_1" : { "valid" : false } })");
  EXPECT_EQ(Field(reply, "missingIndexEntries"),
            R"([ { "indexName" : "a_1", "recordId" : )" + std::to_string(rid3) +
                R"(, "idKey" : { "_id" : 3 }, "indexKey" : { "a" : 30 } } ])");
  EXPECT_EQ(Field(reply, "extraIndexEntries"),
            R"([ { "indexName" : "a_1", "recordId" : 999, "indexKey" : { "a" : 77 } } ])");
  EXPECT_EQ(Field(reply, "errors"), R"([ "Index with name 'a_1' has inconsistencies." ])");
  EXPECT_EQ(Field(reply, "warnings"),
            R"([ "Detected 1 missing index entries.", "Detected 1 extra index entries." ])");
  EXPECT_EQ(Field(reply, "repaired"), "false");
  EXPECT_NE(Field(reply, "advice"), "<absent>");
}

TEST_F(ValidateTest, ShouldFindAMissingIdIndexEntry) {
  const storage::RecordId rid2 = RecordOf(2);
  {
    storage::WriteUnit unit = state_->engine().BeginWrite();
    unit.DeleteIndexEntry(IndexPrefix(0), IndexEntryKey(true, KeyOf(0, R"({"_id": 2})"), rid2));
    ASSERT_TRUE(unit.Commit().ok());
  }
  BsonDoc reply = Validate();
  EXPECT_EQ(Field(reply, "valid"), "false") << AsJson(reply.view());
  EXPECT_EQ(Field(reply, "keysPerIndex"), R"({ "_id_" : 4, "a_1" : 5 })");
  EXPECT_EQ(Field(reply, "missingIndexEntries"),
            R"([ { "indexName" : "_id_", "recordId" : )" + std::to_string(rid2) +
                R"(, "idKey" : { "_id" : 2 }, "indexKey" : { "_id" : 2 } } ])");
}

TEST_F(ValidateTest, ShouldReportACorruptRecordAndStop) {
  const storage::RecordId rid4 = RecordOf(4);
  // {_id: 4, a: {b: 1}} whose inner document ends in 0x01 instead of 0x00.
  BsonDoc good = Json(R"({"_id": 4, "a": {"b": 1}})");
  std::string bytes(reinterpret_cast<const char*>(good.view().data()), good.view().size());
  bytes[bytes.size() - 2] = 0x01;
  {
    storage::WriteUnit unit = state_->engine().BeginWrite();
    unit.PutRecord(Handle()->prefix, rid4,
                   BsonView(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    ASSERT_TRUE(unit.Commit().ok());
  }
  BsonDoc reply = Validate();
  EXPECT_EQ(Field(reply, "valid"), "false") << AsJson(reply.view());
  EXPECT_EQ(Field(reply, "nInvalidDocuments"), "1");
  EXPECT_EQ(Field(reply, "nrecords"), "5");
  EXPECT_EQ(Field(reply, "corruptRecords"), "[ " + std::to_string(rid4) + " ]");
  EXPECT_EQ(Field(reply, "errors"), R"([ "Detected one or more invalid documents. See logs." ])");
  // Validation stops before the indexes: none is reported.
  EXPECT_EQ(Field(reply, "nIndexes"), "2");
  EXPECT_EQ(Field(reply, "keysPerIndex"), "{  }");  // libbson prints {} so
}

TEST_F(ValidateTest, ShouldRepairEveryFaultAndThenBeValid) {
  const storage::RecordId rid3 = RecordOf(3);
  const storage::RecordId rid5 = RecordOf(5);
  {
    storage::WriteUnit unit = state_->engine().BeginWrite();
    unit.DeleteIndexEntry(IndexPrefix(1), IndexEntryKey(false, KeyOf(1, R"({"a": 30})"), rid3));
    unit.PutIndexEntry(IndexPrefix(1), IndexEntryKey(false, KeyOf(1, R"({"a": 77})"), 999),
                       IndexEntryValue(false, 999));
    const uint8_t not_bson[] = {9, 0, 0, 0, 0x10, 'x', 0, 1, 0};  // int32 cut short
    unit.PutRecord(Handle()->prefix, rid5, BsonView(not_bson, sizeof(not_bson)));
    ASSERT_TRUE(unit.Commit().ok());
  }
  BsonDoc reply = Validate(R"(, "repair": true)");
  EXPECT_EQ(Field(reply, "valid"), "true") << AsJson(reply.view());
  EXPECT_EQ(Field(reply, "repaired"), "true");
  EXPECT_EQ(Field(reply, "nrecords"), "4");
  EXPECT_EQ(Field(reply, "numRemovedCorruptRecords"), "1");
  // The extra entry, and the corrupt record's two entries (its _id_ and a_1 keys).
  EXPECT_EQ(Field(reply, "numRemovedExtraIndexEntries"), "3");
  EXPECT_EQ(Field(reply, "numInsertedMissingIndexEntries"), "1");
  EXPECT_EQ(Field(reply, "keysPerIndex"), R"({ "_id_" : 4, "a_1" : 4 })");
  EXPECT_EQ(Field(reply, "warnings"),
            R"([ "Removed 1 invalid documents.", "Removed 3 extra index entries.", )"
            R"("Inserted 1 missing index entries." ])");

  reply = Validate(R"(, "full": true)");
  EXPECT_EQ(Field(reply, "valid"), "true") << AsJson(reply.view());
  EXPECT_EQ(Field(reply, "repaired"), "false");
  EXPECT_EQ(Field(reply, "keysPerIndex"), R"({ "_id_" : 4, "a_1" : 4 })");
  EXPECT_EQ(state_->engine().RecordCount(Handle()->prefix), 4);
}

TEST_F(ValidateTest, ShouldCorrectAWrongFastCount) {
  {
    storage::WriteUnit unit = state_->engine().BeginWrite();
    unit.AdjustCounts(Handle()->prefix, 7, 100);
    ASSERT_TRUE(unit.Commit().ok());
  }
  BsonDoc reply = Validate(R"(, "enforceFastCount": true)");
  EXPECT_EQ(Field(reply, "valid"), "false") << AsJson(reply.view());
  EXPECT_EQ(Field(reply, "errors"),
            R"([ "fast count (12) does not match number of records (5) for collection 'db.c'" ])");
  reply = Validate();
  EXPECT_EQ(Field(reply, "valid"), "true") << AsJson(reply.view());
  EXPECT_EQ(state_->engine().RecordCount(Handle()->prefix), 5) << "corrected as mongod does";
}

}  // namespace
}  // namespace cairn::server
