// Records: point reads, forward/reverse scans in RecordId order, resuming, snapshot isolation,
// and the RecordId encoding.
#include <gtest/gtest.h>

#include "storage/engine.h"
#include "storage_test_util.h"

namespace cairn::storage {
namespace {

using testing::Doc;
using testing::IdOf;
using testing::InsertDocs;
using testing::OpenOrDie;
using testing::TempDir;

struct Fixture {
  TempDir dir;
  std::unique_ptr<Engine> engine = OpenOrDie(dir.db());
  Prefix coll = Create("db.c");

  Prefix Create(std::string_view ns) {
    auto r = engine->catalog().CreateCollection(ns, BsonView());
    EXPECT_TRUE(r.ok());
    return r.ok() ? (*r)->prefix : 0;
  }
};

std::vector<RecordId> Drain(RecordCursor& cursor) {
  std::vector<RecordId> out;
  while (cursor.Next()) out.push_back(cursor.id());
  EXPECT_TRUE(cursor.status().ok());
  return out;
}

TEST(RecordStore, ShouldEncodeRecordIdsAsOrderPreservingBigEndian) {
  EXPECT_EQ(EncodeRecordId(1), std::string("\0\0\0\0\0\0\0\x01", 8));
  EXPECT_EQ(EncodeRecordId(0x0102030405060708), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  for (RecordId id : {RecordId{1}, RecordId{255}, RecordId{256}, RecordId{1} << 40, INT64_MAX}) {
    EXPECT_EQ(DecodeRecordId(EncodeRecordId(id)), id);
    EXPECT_LT(EncodeRecordId(id - 1 > 0 ? id - 1 : 0), EncodeRecordId(id));
  }
}

TEST(RecordStore, ShouldGetARecordOrReportNotFound) {
  Fixture f;
  std::vector<RecordId> ids = InsertDocs(*f.engine, f.coll, 1, 3);
  std::string out;
  bool found = false;
  ASSERT_TRUE(f.engine->GetRecord(f.coll, ids[1], &out, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(IdOf(BsonView(reinterpret_cast<const uint8_t*>(out.data()), out.size())), 2);

  ASSERT_TRUE(f.engine->GetRecord(f.coll, 999, &out, &found).ok());
  EXPECT_FALSE(found);
  ASSERT_TRUE(f.engine->GetRecord(f.coll + 100, ids[0], &out, &found).ok());
  EXPECT_FALSE(found);
}

TEST(RecordStore, ShouldScanInRecordIdOrderWithinOneCollectionOnly) {
  Fixture f;
  Prefix before = f.Create("db.before");
  Prefix after = f.Create("db.after");
  InsertDocs(*f.engine, before, 1000, 1002);
  std::vector<RecordId> ids = InsertDocs(*f.engine, f.coll, 1, 20);
  InsertDocs(*f.engine, after, 2000, 2002);
  // Written out of order: the scan still follows RecordId order.
  {
    WriteUnit unit = f.engine->BeginWrite();
    unit.PutRecord(f.coll, 50, Doc(50).view());
    unit.PutRecord(f.coll, 30, Doc(30).view());
    ASSERT_TRUE(unit.Commit().ok());
  }
  ids.push_back(30);
  ids.push_back(50);

  auto cursor = f.engine->ScanRecords(f.coll);
  std::vector<RecordId> seen;
  std::vector<int64_t> docs;
  while (cursor->Next()) {
    seen.push_back(cursor->id());
    docs.push_back(IdOf(cursor->value()));
  }
  ASSERT_TRUE(cursor->status().ok());
  EXPECT_EQ(seen, ids);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(docs[i], static_cast<int64_t>(i + 1));
  EXPECT_FALSE(cursor->Next());  // stays at the end
}

TEST(RecordStore, ShouldScanInReverse) {
  Fixture f;
  Prefix next = f.Create("db.next");
  InsertDocs(*f.engine, next, 1, 3);
  std::vector<RecordId> ids = InsertDocs(*f.engine, f.coll, 1, 10);
  std::vector<RecordId> reversed(ids.rbegin(), ids.rend());
  auto cursor = f.engine->ScanRecordsReverse(f.coll);
  EXPECT_EQ(Drain(*cursor), reversed);

  auto before = f.engine->ScanRecordsReverse(f.coll, ids[5]);
  EXPECT_EQ(Drain(*before), std::vector<RecordId>(reversed.begin() + 5, reversed.end()));
}

TEST(RecordStore, ShouldResumeAfterAGivenRecordId) {
  Fixture f;
  std::vector<RecordId> ids = InsertDocs(*f.engine, f.coll, 1, 10);
  auto cursor = f.engine->ScanRecords(f.coll, ids[3]);
  EXPECT_EQ(Drain(*cursor), std::vector<RecordId>(ids.begin() + 4, ids.end()));
  // After an id that is not stored: resumes at the next one.
  {
    WriteUnit unit = f.engine->BeginWrite();
    unit.DeleteRecord(f.coll, ids[5]);
    ASSERT_TRUE(unit.Commit().ok());
  }
  auto gap = f.engine->ScanRecords(f.coll, ids[5]);
  EXPECT_EQ(Drain(*gap), std::vector<RecordId>(ids.begin() + 6, ids.end()));
  EXPECT_TRUE(Drain(*f.engine->ScanRecords(f.coll, ids.back())).empty());
}

TEST(RecordStore, ShouldScanNothingInAnEmptyCollection) {
  Fixture f;
  Prefix other = f.Create("db.other");
  InsertDocs(*f.engine, other, 1, 3);
  EXPECT_TRUE(Drain(*f.engine->ScanRecords(f.coll)).empty());
  EXPECT_TRUE(Drain(*f.engine->ScanRecordsReverse(f.coll)).empty());
}

TEST(RecordStore, ShouldReadTheSnapshotTakenWhenTheCursorWasMade) {
  Fixture f;
  std::vector<RecordId> ids = InsertDocs(*f.engine, f.coll, 1, 5);
  auto cursor = f.engine->ScanRecords(f.coll);
  ASSERT_TRUE(cursor->Next());
  // Written after the cursor was made (some before its first Next, some during the scan).
  InsertDocs(*f.engine, f.coll, 6, 10);
  {
    WriteUnit unit = f.engine->BeginWrite();
    unit.DeleteRecord(f.coll, ids[4]);
    unit.PutRecord(f.coll, ids[2], Doc(333).view());
    ASSERT_TRUE(unit.Commit().ok());
  }
  std::vector<RecordId> seen{cursor->id()};
  std::vector<int64_t> docs{IdOf(cursor->value())};
  while (cursor->Next()) {
    seen.push_back(cursor->id());
    docs.push_back(IdOf(cursor->value()));
  }
  EXPECT_EQ(seen, ids);
  EXPECT_EQ(docs, (std::vector<int64_t>{1, 2, 3, 4, 5}));

  auto unstarted = f.engine->ScanRecords(f.coll);
  InsertDocs(*f.engine, f.coll, 11, 11);
  EXPECT_EQ(Drain(*unstarted).size(), 9u);  // 10 - 1 deleted, not the 11th
}

TEST(RecordStore, ShouldGiveAValueViewValidUntilNext) {
  Fixture f;
  InsertDocs(*f.engine, f.coll, 1, 3);
  auto cursor = f.engine->ScanRecords(f.coll);
  ASSERT_TRUE(cursor->Next());
  BsonView v = cursor->value();
  EXPECT_EQ(IdOf(v), 1);
  EXPECT_EQ(v.size(), Doc(1).view().size());
}

}  // namespace
}  // namespace cairn::storage
