// WriteUnit: all-or-nothing commits of documents, index entries and counters; counters that
// follow commits and survive a reopen.
#include "storage/engine.h"

#include <gtest/gtest.h>

#include <thread>

#include "storage_test_util.h"

namespace cairn::storage {
namespace {

using testing::Doc;
using testing::IdOf;
using testing::InsertDocs;
using testing::OpenOrDie;
using testing::TempDir;

CollectionHandle Create(Engine& engine, std::string_view ns) {
  auto r = engine.catalog().CreateCollection(ns, BsonView());
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : nullptr;
}

int CountRecords(Engine& engine, Prefix p) {
  int n = 0;
  for (auto c = engine.ScanRecords(p); c->Next();) ++n;
  return n;
}

TEST(WriteUnit, ShouldCommitEverythingInTheUnitTogether) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  CollectionHandle c = Create(*engine, "db.c");
  WriteUnit unit = engine->BeginWrite();
  EXPECT_TRUE(unit.empty());
  for (int i = 1; i <= 3; ++i) {
    unit.PutRecord(c->prefix, i, Doc(i).view());
    unit.PutIndexEntry(c->indexes[0].prefix, "k" + std::to_string(i), EncodeRecordId(i));
  }
  unit.AdjustCounts(c->prefix, 3, 300);
  EXPECT_FALSE(unit.empty());
  EXPECT_GT(unit.ApproximateBytes(), 3 * Doc(1).view().size());

  // Nothing is visible before Commit.
  EXPECT_EQ(CountRecords(*engine, c->prefix), 0);
  EXPECT_EQ(engine->RecordCount(c->prefix), 0);
  EXPECT_FALSE(engine->ScanIndex(c->indexes[0].prefix, "", "")->Next());

  ASSERT_TRUE(unit.Commit().ok());
  EXPECT_EQ(CountRecords(*engine, c->prefix), 3);
  EXPECT_EQ(engine->RecordCount(c->prefix), 3);
  EXPECT_EQ(engine->DataSize(c->prefix), 300);
  int entries = 0;
  for (auto cur = engine->ScanIndex(c->indexes[0].prefix, "", ""); cur->Next();) ++entries;
  EXPECT_EQ(entries, 3);
  EXPECT_TRUE(unit.empty());  // a committed unit is reset
}

TEST(WriteUnit, ShouldDiscardAnUncommittedUnit) {
  TempDir dir;
  {
    auto engine = OpenOrDie(dir.db());
    CollectionHandle c = Create(*engine, "db.c");
    {
      WriteUnit unit = engine->BeginWrite();
      unit.PutRecord(c->prefix, 1, Doc(1).view());
      unit.PutRecord(c->prefix, 2, Doc(2).view());
      unit.PutIndexEntry(c->indexes[0].prefix, "k", "v");
      unit.AdjustCounts(c->prefix, 2, 100);
    }  // destroyed without Commit
    EXPECT_EQ(CountRecords(*engine, c->prefix), 0);
    EXPECT_EQ(engine->RecordCount(c->prefix), 0);
    EXPECT_FALSE(engine->ScanIndex(c->indexes[0].prefix, "", "")->Next());
  }
  auto engine = OpenOrDie(dir.db());
  CollectionHandle c = engine->catalog().Find("db.c");
  EXPECT_EQ(CountRecords(*engine, c->prefix), 0);
  EXPECT_EQ(engine->RecordCount(c->prefix), 0);
}

TEST(WriteUnit, ShouldBeMovable) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  CollectionHandle c = Create(*engine, "db.c");
  WriteUnit first = engine->BeginWrite();
  first.PutRecord(c->prefix, 1, Doc(1).view());
  WriteUnit second = std::move(first);
  second.AdjustCounts(c->prefix, 1, 10);
  ASSERT_TRUE(second.Commit().ok());
  EXPECT_EQ(CountRecords(*engine, c->prefix), 1);
  EXPECT_EQ(engine->RecordCount(c->prefix), 1);
}

TEST(WriteUnit, ShouldAdjustCountsWithCommitsAndPersistThem) {
  TempDir dir;
  Prefix a, b;
  int64_t a_size = 0;
  {
    auto engine = OpenOrDie(dir.db());
    a = Create(*engine, "db.a")->prefix;
    b = Create(*engine, "db.b")->prefix;
    std::vector<RecordId> ids = InsertDocs(*engine, a, 1, 10);
    InsertDocs(*engine, b, 1, 4);
    a_size = 10 * static_cast<int64_t>(Doc(1).view().size());
    EXPECT_EQ(engine->RecordCount(a), 10);
    EXPECT_EQ(engine->DataSize(a), a_size);

    // A unit touching two collections, with deletes (negative deltas).
    WriteUnit unit = engine->BeginWrite();
    unit.DeleteRecord(a, ids[0]);
    unit.AdjustCounts(a, -1, -static_cast<int64_t>(Doc(1).view().size()));
    unit.DeleteRecord(a, ids[1]);
    unit.AdjustCounts(a, -1, -static_cast<int64_t>(Doc(2).view().size()));
    unit.PutRecord(b, 100, Doc(100, 50).view());
    unit.AdjustCounts(b, 1, static_cast<int64_t>(Doc(100, 50).view().size()));
    ASSERT_TRUE(unit.Commit().ok());
    a_size -= 2 * static_cast<int64_t>(Doc(1).view().size());
    EXPECT_EQ(engine->RecordCount(a), 8);
    EXPECT_EQ(engine->DataSize(a), a_size);
    EXPECT_EQ(engine->RecordCount(b), 5);
  }
  auto engine = OpenOrDie(dir.db());
  EXPECT_EQ(engine->RecordCount(a), 8);
  EXPECT_EQ(engine->DataSize(a), a_size);
  EXPECT_EQ(engine->RecordCount(b), 5);
  EXPECT_EQ(engine->DataSize(b), 4 * static_cast<int64_t>(Doc(1).view().size()) +
                                     static_cast<int64_t>(Doc(100, 50).view().size()));
  EXPECT_EQ(CountRecords(*engine, a), 8);
}

TEST(WriteUnit, ShouldKeepCountsExactUnderConcurrentCommits) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  Prefix p = Create(*engine, "db.c")->prefix;
  constexpr int kThreads = 4, kUnits = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kUnits; ++i) {
        WriteUnit unit = engine->BeginWrite();
        BsonDoc d = Doc(i);
        unit.PutRecord(p, engine->NextRecordId(p), d.view());
        unit.AdjustCounts(p, 1, static_cast<int64_t>(d.view().size()));
        EXPECT_TRUE(unit.Commit().ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(engine->RecordCount(p), kThreads * kUnits);
  EXPECT_EQ(CountRecords(*engine, p), kThreads * kUnits);
  EXPECT_EQ(engine->DataSize(p), kThreads * kUnits * static_cast<int64_t>(Doc(1).view().size()));
}

TEST(WriteUnit, ShouldNotResurrectCountersOfADroppedCollection) {
  TempDir dir;
  Prefix p;
  {
    auto engine = OpenOrDie(dir.db());
    p = Create(*engine, "db.c")->prefix;
    InsertDocs(*engine, p, 1, 3);
    WriteUnit late = engine->BeginWrite();  // prepared before the drop, committed after
    late.PutRecord(p, 99, Doc(99).view());
    late.AdjustCounts(p, 1, 10);
    ASSERT_TRUE(engine->catalog().DropCollection("db.c").ok());
    ASSERT_TRUE(late.Commit().ok());
    EXPECT_EQ(engine->RecordCount(p), 0);
  }
  auto engine = OpenOrDie(dir.db());
  EXPECT_EQ(engine->RecordCount(p), 0);
  EXPECT_EQ(engine->DataSize(p), 0);
}

TEST(WriteUnit, ShouldCommitAnEmptyUnit) {
  TempDir dir;
  auto engine = OpenOrDie(dir.db());
  WriteUnit unit = engine->BeginWrite();
  EXPECT_TRUE(unit.empty());
  EXPECT_TRUE(unit.Commit().ok());
}

}  // namespace
}  // namespace cairn::storage
