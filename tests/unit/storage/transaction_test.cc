// Transaction: reads at its snapshot with its own writes over it, nothing visible before the
// commit, first writer wins, and changes made after the snapshot are conflicts.
#include "storage/transaction.h"

#include <gtest/gtest.h>

#include "storage_test_util.h"

namespace cairn::storage {
namespace {

using testing::Doc;
using testing::OpenOrDie;
using testing::TempDir;

class TransactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenOrDie(dir_.db());
    auto created = engine_->catalog().CreateCollection("db.c", BsonView());
    ASSERT_TRUE(created.ok());
    c_ = *created;
  }

  Prefix records() const { return c_->prefix; }
  Prefix ids() const { return c_->indexes[0].prefix; }

  // Commits record `id` (document Doc(value)) and its index entry outside any transaction.
  void CommitRecord(RecordId id, int value) {
    WriteUnit unit = engine_->BeginWrite();
    unit.PutRecord(records(), id, Doc(value).view());
    unit.PutIndexEntry(ids(), "k" + std::to_string(id), EncodeRecordId(id));
    unit.AdjustCounts(records(), 1, 10);
    ASSERT_TRUE(unit.Commit().ok());
  }

  // A statement of `txn` writing record `id` as Doc(value).
  Status WriteIn(Transaction& txn, RecordId id, int value) {
    WriteUnit unit = engine_->BeginWrite();
    unit.PutRecord(records(), id, Doc(value).view());
    unit.PutIndexEntry(ids(), "k" + std::to_string(id), EncodeRecordId(id));
    return txn.Apply(unit);
  }

  static std::vector<RecordId> Ids(const Reader& reader, Prefix p, bool reverse = false) {
    std::vector<RecordId> out;
    auto cursor = reverse ? reader.ScanRecordsReverse(p) : reader.ScanRecords(p);
    while (cursor->Next()) out.push_back(cursor->id());
    return out;
  }

  TempDir dir_;
  std::unique_ptr<Engine> engine_;
  CollectionHandle c_;
};

TEST_F(TransactionTest, ShouldReadItsOwnWritesAndHideThemFromOthersUntilCommit) {
  CommitRecord(1, 1);
  CommitRecord(3, 3);
  auto txn = engine_->BeginTransaction();
  ASSERT_TRUE(WriteIn(*txn, 2, 2).ok());
  WriteUnit remove = engine_->BeginWrite();
  remove.DeleteRecord(records(), 3);
  ASSERT_TRUE(txn->Apply(remove).ok());
  EXPECT_TRUE(remove.empty());

  EXPECT_EQ(Ids(*txn, records()), (std::vector<RecordId>{1, 2}));
  EXPECT_EQ(Ids(*txn, records(), /*reverse=*/true), (std::vector<RecordId>{2, 1}));
  EXPECT_EQ(Ids(*engine_, records()), (std::vector<RecordId>{1, 3}));
  std::string value;
  bool found = false;
  ASSERT_TRUE(txn->GetRecord(records(), 3, &value, &found).ok());
  EXPECT_FALSE(found);
  ASSERT_TRUE(txn->GetIndexEntry(ids(), "k2", &value, &found).ok());
  EXPECT_TRUE(found);
  ASSERT_TRUE(engine_->GetIndexEntry(ids(), "k2", &value, &found).ok());
  EXPECT_FALSE(found);
  std::vector<bool> exist;
  ASSERT_TRUE(txn->IndexEntriesExist(ids(), {"k1", "k2", "k9"}, &exist).ok());
  EXPECT_EQ(exist, (std::vector<bool>{true, true, false}));

  ASSERT_TRUE(txn->Validate().ok());
  WriteUnit writes = txn->TakeWrites();
  ASSERT_TRUE(writes.Commit().ok());
  txn.reset();
  EXPECT_EQ(Ids(*engine_, records()), (std::vector<RecordId>{1, 2}));
}

TEST_F(TransactionTest, ShouldReadTheSnapshotNotLaterCommits) {
  CommitRecord(1, 1);
  auto txn = engine_->BeginTransaction();
  CommitRecord(2, 2);
  EXPECT_EQ(Ids(*txn, records()), (std::vector<RecordId>{1}));
  EXPECT_EQ(Ids(*engine_, records()), (std::vector<RecordId>{1, 2}));
}

TEST_F(TransactionTest, AnOpenCursorShouldNotSeeTheTransactionsLaterWrites) {
  CommitRecord(1, 1);
  auto txn = engine_->BeginTransaction();
  auto cursor = txn->ScanRecords(records());
  ASSERT_TRUE(WriteIn(*txn, 2, 2).ok());
  std::vector<RecordId> seen;
  while (cursor->Next()) seen.push_back(cursor->id());
  EXPECT_EQ(seen, (std::vector<RecordId>{1}));
}

TEST_F(TransactionTest, IndexCursorsShouldMergeSeekAndSkipDeletes) {
  CommitRecord(1, 1);
  CommitRecord(3, 3);
  CommitRecord(5, 5);
  auto txn = engine_->BeginTransaction();
  ASSERT_TRUE(WriteIn(*txn, 4, 4).ok());
  WriteUnit remove = engine_->BeginWrite();
  remove.DeleteIndexEntry(ids(), "k3");
  ASSERT_TRUE(txn->Apply(remove).ok());
  std::vector<std::string> keys;
  for (auto c = txn->ScanIndex(ids(), "", ""); c->Next();) keys.emplace_back(c->key());
  EXPECT_EQ(keys, (std::vector<std::string>{"k1", "k4", "k5"}));
  keys.clear();
  for (auto c = txn->ScanIndexReverse(ids(), "", ""); c->Next();) keys.emplace_back(c->key());
  EXPECT_EQ(keys, (std::vector<std::string>{"k5", "k4", "k1"}));
  auto seek = txn->ScanIndex(ids(), "", "");
  seek->Seek("k2");
  ASSERT_TRUE(seek->Next());
  EXPECT_EQ(seek->key(), "k4");
  auto back = txn->ScanIndexReverse(ids(), "", "");
  back->Seek("k5");
  ASSERT_TRUE(back->Next());
  EXPECT_EQ(back->key(), "k4");
  ASSERT_TRUE(back->Next());
  EXPECT_EQ(back->key(), "k1");
}

TEST_F(TransactionTest, TheSecondWriterOfAKeyShouldGetWriteConflict) {
  CommitRecord(1, 1);
  auto first = engine_->BeginTransaction();
  auto second = engine_->BeginTransaction();
  ASSERT_TRUE(WriteIn(*first, 1, 10).ok());
  Status conflict = WriteIn(*second, 1, 20);
  EXPECT_EQ(conflict.code(), ErrorCode::kWriteConflict);
  // The first writer may write the key again.
  EXPECT_TRUE(WriteIn(*first, 1, 11).ok());
  // Once the first ends (here: abandoned), a transaction begun after may write it.
  first.reset();
  auto third = engine_->BeginTransaction();
  EXPECT_TRUE(WriteIn(*third, 1, 30).ok());
}

TEST_F(TransactionTest, AKeyCommittedAfterTheSnapshotShouldBeAConflict) {
  CommitRecord(1, 1);
  auto txn = engine_->BeginTransaction();
  CommitRecord(1, 2);  // a write outside transactions, after the snapshot
  EXPECT_EQ(WriteIn(*txn, 1, 3).code(), ErrorCode::kWriteConflict);
  txn.reset();  // a transaction that met a conflict is abandoned

  auto late = engine_->BeginTransaction();
  ASSERT_TRUE(WriteIn(*late, 1, 4).ok());
  CommitRecord(1, 5);  // not held off: Validate catches it
  EXPECT_EQ(late->Validate().code(), ErrorCode::kWriteConflict);
}

TEST_F(TransactionTest, CommittedCountsShouldIncludeTheTransactionsAdjustments) {
  auto txn = engine_->BeginTransaction();
  WriteUnit unit = engine_->BeginWrite();
  unit.PutRecord(records(), 1, Doc(1).view());
  unit.AdjustCounts(records(), 1, 10);
  ASSERT_TRUE(txn->Apply(unit).ok());
  EXPECT_EQ(engine_->RecordCount(records()), 0);
  WriteUnit writes = txn->TakeWrites();
  ASSERT_TRUE(writes.Commit().ok());
  EXPECT_EQ(engine_->RecordCount(records()), 1);
  EXPECT_EQ(engine_->DataSize(records()), 10);
}

}  // namespace
}  // namespace cairn::storage
