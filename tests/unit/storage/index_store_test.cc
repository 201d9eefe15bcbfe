// Index entries: exact lookups and [start, end) range scans confined to one index prefix.
#include <gtest/gtest.h>

#include <utility>

#include "storage/engine.h"
#include "storage_test_util.h"

namespace cairn::storage {
namespace {

using testing::OpenOrDie;
using testing::TempDir;

using Entries = std::vector<std::pair<std::string, std::string>>;

struct Fixture {
  TempDir dir;
  std::unique_ptr<Engine> engine = OpenOrDie(dir.db());
  Prefix index = 0;
  Prefix neighbour = 0;

  Fixture() {
    auto r = engine->catalog().CreateCollection("db.c", BsonView());
    EXPECT_TRUE(r.ok());
    index = (*r)->indexes[0].prefix;
    auto n = engine->catalog().CreateCollection("db.d", BsonView());
    EXPECT_TRUE(n.ok());
    neighbour = (*n)->prefix;  // a prefix right after `index`
    WriteUnit unit = engine->BeginWrite();
    for (const char* k : {"b", "a", "c", "ab", "d"}) {
      unit.PutIndexEntry(index, k, std::string("v-") + k);
    }
    unit.PutIndexEntry(index, std::string("\xff\xff", 2), "high");
    unit.PutIndexEntry(index, std::string("\0", 1), "low");
    // Entries of neighbouring prefixes must never appear.
    unit.PutIndexEntry(index - 1, "a", "other");
    unit.PutIndexEntry(neighbour, "a", "other");
    unit.PutIndexEntry(index + 2, "", "other");
    EXPECT_TRUE(unit.Commit().ok());
  }

  Entries Scan(std::string_view start, std::string_view end) {
    Entries out;
    auto cursor = engine->ScanIndex(index, start, end);
    while (cursor->Next()) out.emplace_back(cursor->key(), cursor->value());
    EXPECT_TRUE(cursor->status().ok());
    return out;
  }
};

TEST(IndexStore, ShouldScanTheWholeIndexInKeyByteOrder) {
  Fixture f;
  EXPECT_EQ(f.Scan("", ""), (Entries{{std::string("\0", 1), "low"},
                                     {"a", "v-a"},
                                     {"ab", "v-ab"},
                                     {"b", "v-b"},
                                     {"c", "v-c"},
                                     {"d", "v-d"},
                                     {std::string("\xff\xff", 2), "high"}}));
}

TEST(IndexStore, ShouldScanAHalfOpenRange) {
  Fixture f;
  EXPECT_EQ(f.Scan("a", "c"), (Entries{{"a", "v-a"}, {"ab", "v-ab"}, {"b", "v-b"}}));
  EXPECT_EQ(f.Scan("aa", "b"), (Entries{{"ab", "v-ab"}}));
  EXPECT_EQ(f.Scan("c", ""),
            (Entries{{"c", "v-c"}, {"d", "v-d"}, {std::string("\xff\xff", 2), "high"}}));
  EXPECT_TRUE(f.Scan("b", "b").empty());
  EXPECT_TRUE(f.Scan("x", "y").empty());
  EXPECT_TRUE(f.Scan("d", "c").empty());
}

TEST(IndexStore, ShouldGetAnEntryByExactKey) {
  Fixture f;
  std::string value;
  bool found = false;
  ASSERT_TRUE(f.engine->GetIndexEntry(f.index, "ab", &value, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(value, "v-ab");
  ASSERT_TRUE(f.engine->GetIndexEntry(f.index, "aa", &value, &found).ok());
  EXPECT_FALSE(found);
  ASSERT_TRUE(f.engine->GetIndexEntry(f.index + 1, "ab", &value, &found).ok());
  EXPECT_FALSE(found);
}

TEST(IndexStore, ShouldTellWhichKeysExistInOneBatchedRead) {
  Fixture f;
  std::vector<bool> exist;
  ASSERT_TRUE(
      f.engine->IndexEntriesExist(f.index, {"ab", "aa", "d", std::string("\0", 1), "zz"}, &exist)
          .ok());
  EXPECT_EQ(exist, (std::vector<bool>{true, false, true, true, false}));
  // Another index's prefix sees none of them; an empty batch is fine.
  ASSERT_TRUE(f.engine->IndexEntriesExist(f.neighbour, {"ab", "d"}, &exist).ok());
  EXPECT_EQ(exist, (std::vector<bool>{false, false}));
  ASSERT_TRUE(f.engine->IndexEntriesExist(f.index, {}, &exist).ok());
  EXPECT_TRUE(exist.empty());
}

TEST(IndexStore, ShouldFindAnIndexsLargestKeyWithinItsPrefix) {
  Fixture f;
  std::string key;
  bool found = false;
  ASSERT_TRUE(f.engine->LargestIndexKey(f.index, &key, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(key, std::string("\xff\xff", 2));
  // The next prefix holds an entry whose key is empty, exactly the neighbour's end: not its.
  ASSERT_TRUE(f.engine->LargestIndexKey(f.neighbour, &key, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(key, "a");
  auto empty = f.engine->catalog().CreateCollection("db.e", BsonView());
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(f.engine->LargestIndexKey((*empty)->indexes[0].prefix, &key, &found).ok());
  EXPECT_FALSE(found);
}

TEST(IndexStore, ShouldDeleteEntries) {
  Fixture f;
  WriteUnit unit = f.engine->BeginWrite();
  unit.DeleteIndexEntry(f.index, "ab");
  unit.DeleteIndexEntry(f.index, "zz");  // absent: fine
  ASSERT_TRUE(unit.Commit().ok());
  EXPECT_EQ(f.Scan("a", "c"), (Entries{{"a", "v-a"}, {"b", "v-b"}}));
}

TEST(IndexStore, ShouldStoreTheRecordIdEncodingAsAnIdIndexValue) {
  Fixture f;
  WriteUnit unit = f.engine->BeginWrite();
  unit.PutIndexEntry(f.index, "id-key", EncodeRecordId(42));
  ASSERT_TRUE(unit.Commit().ok());
  std::string value;
  bool found = false;
  ASSERT_TRUE(f.engine->GetIndexEntry(f.index, "id-key", &value, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(DecodeRecordId(value), 42);
}

TEST(IndexStore, ShouldScanARangeBackwards) {
  Fixture f;
  Entries out;
  auto cursor = f.engine->ScanIndexReverse(f.index, "a", "c");
  while (cursor->Next()) out.emplace_back(cursor->key(), cursor->value());
  EXPECT_EQ(out, (Entries{{"b", "v-b"}, {"ab", "v-ab"}, {"a", "v-a"}}));
}

TEST(IndexStore, ShouldSeekForwardToTheFirstKeyAtOrAfterTheTarget) {
  Fixture f;
  auto cursor = f.engine->ScanIndex(f.index, "", "");
  cursor->Seek("aa");
  ASSERT_TRUE(cursor->Next());
  EXPECT_EQ(cursor->key(), "ab");
  ASSERT_TRUE(cursor->Next());
  EXPECT_EQ(cursor->key(), "b");
  cursor->Seek("d");
  ASSERT_TRUE(cursor->Next());
  EXPECT_EQ(cursor->key(), "d");
  cursor->Seek("e");
  ASSERT_TRUE(cursor->Next());  // the 0xFF 0xFF entry
  EXPECT_FALSE(cursor->Next());
}

TEST(IndexStore, ShouldSeekBackwardToTheLastKeyBeforeTheTarget) {
  Fixture f;
  auto cursor = f.engine->ScanIndexReverse(f.index, "", "");
  cursor->Seek("c");
  ASSERT_TRUE(cursor->Next());
  EXPECT_EQ(cursor->key(), "b");
  cursor->Seek("ab");
  ASSERT_TRUE(cursor->Next());
  EXPECT_EQ(cursor->key(), "a");
  cursor->Seek(std::string("\0", 1));
  EXPECT_FALSE(cursor->Next());  // nothing below the lowest entry within this index
}

}  // namespace
}  // namespace cairn::storage
