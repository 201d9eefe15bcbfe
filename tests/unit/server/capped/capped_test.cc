// Capped collections: create's capped/size/max as MongoDB 7.0 checks and stores them, the
// registry's insert notifications (what wakes awaitData getMores), and eviction through the
// real write path: the oldest documents leave in the same commit as the insert that overflows
// the cap, by count and by size, including the unit's own earlier inserts.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/capped/capped_eviction.h"
#include "server/capped/capped_options.h"
#include "server/capped/capped_registry.h"
#include "server/server_state.h"
#include "server/write/collection_writer.h"
#include "tests/unit/storage/storage_test_util.h"

namespace cairn::server {
namespace {

BsonDoc Json(const char* json) {
  bson_error_t error;
  bson_t* parsed = bson_new_from_json(reinterpret_cast<const uint8_t*>(json), -1, &error);
  EXPECT_NE(parsed, nullptr) << error.message;
  BsonDoc doc{BsonView(parsed)};
  bson_destroy(parsed);
  return doc;
}

struct CreateCase {
  const char* command;
  ErrorCode code;      // kOK: accepted
  const char* stored;  // the options AppendCappedOptions writes ("" when not capped)
};

TEST(CappedOptions, ShouldCheckAndNormaliseCreateOptionsAsMongoDB) {
  const CreateCase cases[] = {
      {R"({"create": "c"})", ErrorCode::kOK, ""},
      {R"({"create": "c", "capped": false})", ErrorCode::kOK, ""},
      {R"({"create": "c", "capped": true, "size": 4096})", ErrorCode::kOK,
       R"({ "capped" : true, "size" : 4096 })"},
      // Kept as given: 7.0 no longer rounds to a multiple of 256, nor raises to 4096.
      {R"({"create": "c", "capped": true, "size": 1})", ErrorCode::kOK,
       R"({ "capped" : true, "size" : 256 })"},
      {R"({"create": "c", "capped": true, "size": 1000.9, "max": 3})", ErrorCode::kOK,
       R"({ "capped" : true, "size" : 1024, "max" : 3 })"},
      {R"({"create": "c", "capped": 1, "size": 100, "max": 0})", ErrorCode::kOK,
       R"({ "capped" : true, "size" : 256, "max" : 2147483647 })"},
      {R"({"create": "c", "capped": true, "size": {"$numberLong": "2000000000"}})", ErrorCode::kOK,
       R"({ "capped" : true, "size" : 2000000000 })"},
      {R"({"create": "c", "capped": true})", ErrorCode::kInvalidOptions, ""},
      {R"({"create": "c", "capped": true, "size": null})", ErrorCode::kInvalidOptions, ""},
      {R"({"create": "c", "size": 100})", ErrorCode::kInvalidOptions, ""},
      {R"({"create": "c", "capped": false, "max": 100})", ErrorCode::kInvalidOptions, ""},
      {R"({"create": "c", "capped": true, "size": 0})", ErrorCode::kLocation51024, ""},
      {R"({"create": "c", "capped": true, "size": -5})", ErrorCode::kLocation51024, ""},
      {R"({"create": "c", "capped": true, "size": 2e15})", ErrorCode::kBadValue, ""},
      {R"({"create": "c", "capped": true, "size": 10, "max": 2147483648})", ErrorCode::kBadValue,
       ""},
  };
  for (const CreateCase& c : cases) {
    SCOPED_TRACE(c.command);
    BsonDoc command = Json(c.command);
    Result<std::optional<CappedLimits>> parsed = ParseCreateCappedOptions(command.view());
    ASSERT_EQ(parsed.ok() ? ErrorCode::kOK : parsed.status().code(), c.code);
    if (!parsed.ok()) continue;
    if (std::string(c.stored).empty()) {
      EXPECT_FALSE(parsed.value().has_value());
      continue;
    }
    ASSERT_TRUE(parsed.value().has_value());
    BsonDoc stored;
    AppendCappedOptions(stored.get(), *parsed.value());
    char* relaxed = bson_as_relaxed_extended_json(stored.get(), nullptr);
    EXPECT_EQ(std::string(relaxed), c.stored);
    bson_free(relaxed);
  }
}

TEST(CappedOptions, ShouldPrintNumbersAsMongoDBAppendNumber) {
  BsonDoc out;
  AppendNumberAsMongoDB(out.get(), "small", (int64_t{1} << 30) - 1);
  AppendNumberAsMongoDB(out.get(), "large", int64_t{1} << 30);
  bson_iter_t it;
  ASSERT_TRUE(out.view().Find("small", &it));
  EXPECT_EQ(bson_iter_type(&it), BSON_TYPE_INT32);
  ASSERT_TRUE(out.view().Find("large", &it));
  EXPECT_EQ(bson_iter_type(&it), BSON_TYPE_INT64);
}

TEST(CappedOptions, ShouldReadTheLimitsBackFromStoredOptions) {
  storage::CollectionEntry entry;
  EXPECT_FALSE(CappedLimitsOf(entry).has_value());
  entry.options = Json(R"({"capped": true, "size": 300, "max": 2, "validator": {}})");
  std::optional<CappedLimits> limits = CappedLimitsOf(entry);
  ASSERT_TRUE(limits.has_value());
  EXPECT_EQ(limits->max_bytes, 300);
  EXPECT_EQ(limits->max_docs, 2);
  EXPECT_FALSE(limits->Exceeded(2, 300));
  EXPECT_TRUE(limits->Exceeded(3, 10)) << "over the document count";
  EXPECT_TRUE(limits->Exceeded(1, 301)) << "over the size";
  const CappedLimits size_only{100, 0};
  EXPECT_FALSE(size_only.Exceeded(1000000, 100)) << "max unset: no count limit";
}

TEST(CappedRegistry, ShouldWakeWaitersOnInsertAndNotAfterUnregister) {
  CappedRegistry registry;
  const uint64_t seen = registry.InsertVersion(5);
  int woken = 0;
  CappedRegistry::WaiterHandle handle;
  ASSERT_TRUE(registry.Register(
      5, seen, [&] { ++woken; }, &handle));
  registry.NotifyInsert(6);
  EXPECT_EQ(woken, 0) << "another collection";
  registry.NotifyInsert(5);
  EXPECT_EQ(woken, 1);
  registry.Unregister(handle);
  registry.NotifyInsert(5);
  EXPECT_EQ(woken, 1);
  // An insert between looking and waiting: no wait at all.
  CappedRegistry::WaiterHandle late;
  EXPECT_FALSE(registry.Register(
      5, seen, [&] { ++woken; }, &late));
  EXPECT_EQ(late, nullptr);
}

TEST(CappedRegistry, ShouldOnlyAdvanceTheOldestHint) {
  CappedRegistry registry;
  EXPECT_EQ(registry.OldestHint(1), 0);
  registry.AdvanceOldestHint(1, 10);
  registry.AdvanceOldestHint(1, 4);
  EXPECT_EQ(registry.OldestHint(1), 10);
}

// Eviction through CollectionWriter on a real engine.
class CappedEvictionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.dbpath = dir_.path();
    state_ = std::make_unique<ServerState>(options, storage::testing::OpenOrDie(dir_.db()));
  }

  void Create(const char* options) {
    BsonDoc doc = Json(options);
    ASSERT_TRUE(state_->engine().catalog().CreateCollection("db.c", doc.view()).ok());
  }

  std::unique_ptr<CollectionWriter> Writer() {
    auto writer = CollectionWriter::Open(state_->writes(), "db.c", false);
    EXPECT_TRUE(writer.ok());
    return std::move(writer).value();
  }

  std::vector<int64_t> Ids() {
    std::vector<int64_t> ids;
    auto handle = state_->engine().catalog().Find("db.c");
    auto scan = state_->engine().ScanRecords(handle->prefix);
    while (scan->Next()) ids.push_back(storage::testing::IdOf(scan->value()));
    return ids;
  }

  int64_t Count() {
    return state_->engine().RecordCount(state_->engine().catalog().Find("db.c")->prefix);
  }

  storage::testing::TempDir dir_;
  std::unique_ptr<ServerState> state_;
};

TEST_F(CappedEvictionTest, ShouldKeepTheNewestMaxDocumentsAcrossAndWithinCommits) {
  Create(R"({"capped": true, "size": 100000, "max": 3})");
  auto writer = Writer();
  for (int64_t i = 1; i <= 5; ++i) {
    ASSERT_TRUE(writer->Insert(storage::testing::Doc(i).view()).ok());
  }
  ASSERT_TRUE(writer->Commit().ok());
  EXPECT_EQ(Ids(), (std::vector<int64_t>{3, 4, 5})) << "the unit's own oldest inserts went";
  EXPECT_EQ(Count(), 3);
  for (int64_t i = 6; i <= 7; ++i) {
    ASSERT_TRUE(writer->Insert(storage::testing::Doc(i).view()).ok());
    ASSERT_TRUE(writer->Commit().ok());
  }
  EXPECT_EQ(Ids(), (std::vector<int64_t>{5, 6, 7}));
  EXPECT_EQ(Count(), 3);
  // An evicted _id is free again.
  ASSERT_TRUE(writer->Insert(storage::testing::Doc(3).view()).ok());
  ASSERT_TRUE(writer->Commit().ok());
  EXPECT_EQ(Ids(), (std::vector<int64_t>{6, 7, 3}));
}

TEST_F(CappedEvictionTest, ShouldEvictBySizeAndRefuseADocumentLargerThanTheCap) {
  const int64_t doc_size = static_cast<int64_t>(storage::testing::Doc(1, 50).view().size());
  const std::string options = R"({"capped": true, "size": )" + std::to_string(doc_size * 4) + "}";
  Create(options.c_str());
  auto writer = Writer();
  for (int64_t i = 1; i <= 10; ++i) {
    ASSERT_TRUE(writer->Insert(storage::testing::Doc(i, 50).view()).ok());
    ASSERT_TRUE(writer->Commit().ok());
  }
  EXPECT_EQ(Ids(), (std::vector<int64_t>{7, 8, 9, 10}));
  Status too_big = writer->Insert(storage::testing::Doc(11, 500).view());
  EXPECT_EQ(too_big.code(), ErrorCode::kBadValue);
  EXPECT_EQ(too_big.reason(), "object to insert exceeds cappedMaxSize");
  // A bigger document takes the room of several small ones.
  ASSERT_TRUE(writer->Insert(storage::testing::Doc(12, 50 + 2 * doc_size).view()).ok());
  ASSERT_TRUE(writer->Commit().ok());
  EXPECT_EQ(Ids(), (std::vector<int64_t>{10, 12}));
}

TEST_F(CappedEvictionTest, ShouldLeaveUncappedCollectionsAlone) {
  Create("{}");
  auto writer = Writer();
  for (int64_t i = 1; i <= 5; ++i) {
    ASSERT_TRUE(writer->Insert(storage::testing::Doc(i, 5000).view()).ok());
  }
  ASSERT_TRUE(writer->Commit().ok());
  EXPECT_EQ(Count(), 5);
}

}  // namespace
}  // namespace cairn::server
