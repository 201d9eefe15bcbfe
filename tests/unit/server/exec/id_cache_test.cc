// IdCache: candidates by (collection prefix, _id key); colliding keys overwrite a slot; the
// caller verifies every candidate (exec/stream_builder.cc), so only these properties are promised.
#include "server/exec/id_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace cairn::server {
namespace {

TEST(IdCache, ShouldOfferTheRecordIdLastInsertedForAKey) {
  IdCache cache;
  cache.Insert(7, "k1", 100);
  storage::RecordId id = 0;
  EXPECT_TRUE(cache.Lookup(7, "k1", &id));
  EXPECT_EQ(id, 100);
  cache.Insert(7, "k1", 250);
  EXPECT_TRUE(cache.Lookup(7, "k1", &id));
  EXPECT_EQ(id, 250);
}

TEST(IdCache, ShouldTellCollectionsAndKeysApart) {
  IdCache cache;
  cache.Insert(7, "k1", 100);
  storage::RecordId id = 0;
  EXPECT_FALSE(cache.Lookup(8, "k1", &id)) << "another collection's prefix";
  EXPECT_FALSE(cache.Lookup(7, "k2", &id));
  EXPECT_FALSE(cache.Lookup(7, std::string("k1\0", 3), &id));
}

TEST(IdCache, ShouldLetALaterKeyTakeACollidingSlot) {
  IdCache cache(/*slots_log2=*/2);  // 4 slots: most of these keys collide
  for (int i = 0; i < 100; ++i) cache.Insert(1, "key" + std::to_string(i), i + 1);
  int offered = 0;
  storage::RecordId id;
  for (int i = 0; i < 100; ++i) {
    if (cache.Lookup(1, "key" + std::to_string(i), &id)) {
      ++offered;
      EXPECT_EQ(id, i + 1) << "a slot offers only its own key's RecordId";
    }
  }
  EXPECT_LE(offered, 4);
}

// The small-document table.

BsonDoc SmallDocument(int32_t id, int32_t value) {
  BsonDoc doc;
  BSON_APPEND_INT32(doc.get(), "_id", id);
  BSON_APPEND_INT32(doc.get(), "v", value);
  return doc;
}

std::string Bytes(const BsonDoc& doc) {
  return std::string(reinterpret_cast<const char*>(doc.view().data()), doc.view().size());
}

TEST(IdCacheDocuments, ShouldServeAFilledDocument) {
  IdCache cache;
  BsonDoc doc = SmallDocument(1, 10);
  std::string out;
  EXPECT_FALSE(cache.LookupDocument(3, 42, &out));
  uint64_t ticket = cache.DocumentTicket(3, 42);
  cache.FillDocument(3, 42, ticket, doc.view());
  ASSERT_TRUE(cache.LookupDocument(3, 42, &out));
  EXPECT_EQ(out, Bytes(doc));
  EXPECT_FALSE(cache.LookupDocument(4, 42, &out)) << "another collection";
  EXPECT_FALSE(cache.LookupDocument(3, 43, &out)) << "another record";
}

TEST(IdCacheDocuments, ShouldForgetAnInvalidatedDocument) {
  IdCache cache;
  cache.FillDocument(3, 42, cache.DocumentTicket(3, 42), SmallDocument(1, 10).view());
  cache.InvalidateDocument(3, 42);
  std::string out;
  EXPECT_FALSE(cache.LookupDocument(3, 42, &out));
}

TEST(IdCacheDocuments, ShouldRefuseAFillThatAWriteOvertook) {
  // A reader takes its ticket, reads version 1 from storage; a writer commits version 2 and
  // invalidates; the reader's late fill must not install version 1.
  IdCache cache;
  uint64_t ticket = cache.DocumentTicket(3, 42);
  cache.InvalidateDocument(3, 42);
  cache.FillDocument(3, 42, ticket, SmallDocument(1, 1).view());
  std::string out;
  EXPECT_FALSE(cache.LookupDocument(3, 42, &out));
  // A reader that started after the write may fill.
  cache.FillDocument(3, 42, cache.DocumentTicket(3, 42), SmallDocument(1, 2).view());
  ASSERT_TRUE(cache.LookupDocument(3, 42, &out));
  EXPECT_EQ(out, Bytes(SmallDocument(1, 2)));
}

TEST(IdCacheDocuments, ShouldNotCacheLargeDocuments) {
  IdCache cache;
  BsonDoc doc;
  BSON_APPEND_INT32(doc.get(), "_id", 1);
  std::string big(IdCache::kMaxCachedDocumentBytes, 'x');
  BSON_APPEND_UTF8(doc.get(), "s", big.c_str());
  cache.FillDocument(3, 42, cache.DocumentTicket(3, 42), doc.view());
  std::string out;
  EXPECT_FALSE(cache.LookupDocument(3, 42, &out));
}

TEST(IdCacheDocuments, ShouldServeADocumentFilledWriteThroughByAnInsert) {
  IdCache cache;
  BsonDoc doc = SmallDocument(1, 10);
  cache.FillNewDocument(3, 42, doc.view());
  std::string out;
  ASSERT_TRUE(cache.LookupDocument(3, 42, &out));
  EXPECT_EQ(out, Bytes(doc));
  cache.InvalidateDocument(3, 42);
  EXPECT_FALSE(cache.LookupDocument(3, 42, &out)) << "an update or removal still clears it";
}

TEST(IdCacheDocuments, ShouldRefuseAReadersFillOvertakenByAWriteThroughFill) {
  // The slot's previous occupant was being read when an insert took the slot: that read's fill
  // must not replace the inserted document.
  IdCache cache(/*slots_log2=*/4, /*document_slots_log2=*/4);
  uint64_t ticket = cache.DocumentTicket(3, 26);  // 26 and 42 share a slot among 16
  cache.FillNewDocument(3, 42, SmallDocument(2, 20).view());
  cache.FillDocument(3, 26, ticket, SmallDocument(1, 10).view());
  std::string out;
  EXPECT_FALSE(cache.LookupDocument(3, 26, &out));
  ASSERT_TRUE(cache.LookupDocument(3, 42, &out));
  EXPECT_EQ(out, Bytes(SmallDocument(2, 20)));
}

TEST(IdCacheDocuments, ShouldKeepAsManyConsecutiveRecordsAsItHasSlots) {
  // A collection's consecutive RecordIds take consecutive slots: the newest 16 records of a
  // 16-slot table are all held, and the 17th evicts only the oldest.
  IdCache cache(/*slots_log2=*/4, /*document_slots_log2=*/4);
  for (int id = 1; id <= 16; ++id) cache.FillNewDocument(5, id, SmallDocument(id, id).view());
  std::string out;
  for (int id = 1; id <= 16; ++id) {
    ASSERT_TRUE(cache.LookupDocument(5, id, &out)) << "record " << id;
    EXPECT_EQ(out, Bytes(SmallDocument(id, id)));
  }
  cache.FillNewDocument(5, 17, SmallDocument(17, 17).view());
  EXPECT_FALSE(cache.LookupDocument(5, 1, &out));
  for (int id = 2; id <= 17; ++id) EXPECT_TRUE(cache.LookupDocument(5, id, &out)) << id;
}

}  // namespace
}  // namespace cairn::server
