// IdCache: candidates by (collection prefix, _id key); colliding keys overwrite a slot; the
// caller verifies every candidate (query_exec.cc), so only these properties are promised.
#include "server/id_cache.h"

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

}  // namespace
}  // namespace cairn::server
