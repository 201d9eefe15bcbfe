// $changeStreamSplitLargeEvent's split (server/changes/split_large_event.h): fragments hold the
// event's fields smallest first, each fragment within the limit, with its own resume token.
#include "server/changes/split_large_event.h"

#include <gtest/gtest.h>

#include <string>

namespace cairn::server {
namespace {

// An event {_id: <token of point>, operationType, a: <a_bytes>, b: <b_bytes>, c: "small"}.
BsonDoc Event(const ResumePoint& point, size_t a_bytes, size_t b_bytes) {
  BsonDoc event;
  AppendResumeToken(event.get(), "_id", point);
  AppendUtf8(event.get(), "operationType", "update");
  AppendUtf8(event.get(), "a", std::string(a_bytes, 'a'));
  AppendUtf8(event.get(), "b", std::string(b_bytes, 'b'));
  AppendUtf8(event.get(), "c", "small");
  return event;
}

std::string Keys(const BsonDoc& doc) {
  std::string keys;
  bson_iter_t it;
  doc.view().Init(&it);
  while (bson_iter_next(&it)) keys.append(IterKey(&it)).append(" ");
  return keys;
}

int32_t SplitField(const BsonDoc& doc, const char* path) {
  bson_iter_t it;
  EXPECT_TRUE(bson_iter_init(&it, doc.get()) && bson_iter_find_descendant(&it, path, &it));
  return bson_iter_int32(&it);
}

TEST(SplitLargeEvent, SmallestFieldsFirstAsManyAsFit) {
  ResumePoint point;
  point.ts = Timestamp{42};
  const BsonDoc event = Event(point, 9 << 20, 8 << 20);
  EXPECT_GT(ChangeEventSize(event.view()), kMaxChangeEventSize);
  std::vector<BsonDoc> fragments;
  size_t total = 0;
  ASSERT_TRUE(SplitChangeEvent(event.view(), point, 0, &fragments, &total).ok());
  ASSERT_EQ(total, 2u);
  ASSERT_EQ(fragments.size(), 2u);
  EXPECT_EQ(Keys(fragments[0]), "_id splitEvent c operationType b ");
  EXPECT_EQ(Keys(fragments[1]), "_id splitEvent a ");
  EXPECT_EQ(SplitField(fragments[0], "splitEvent.fragment"), 1);
  EXPECT_EQ(SplitField(fragments[1], "splitEvent.fragment"), 2);
  EXPECT_EQ(SplitField(fragments[1], "splitEvent.of"), 2);
  for (const BsonDoc& fragment : fragments) {
    EXPECT_LE(ChangeEventSize(fragment.view()), kMaxChangeEventSize);
  }
  // Each fragment's token names its fragment and sorts after the event's, in order.
  bson_iter_t id0, id1;
  ASSERT_TRUE(fragments[0].view().Find("_id", &id0) && fragments[1].view().Find("_id", &id1));
  Result<ResumePoint> first = ParseResumeToken(&id0);
  Result<ResumePoint> second = ParseResumeToken(&id1);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->ts.value, 42u);
  EXPECT_EQ(first->fragment, 0u);
  EXPECT_EQ(second->fragment, 1u);
}

TEST(SplitLargeEvent, SkipsTheFragmentsAResumedStreamHad) {
  ResumePoint point;
  point.ts = Timestamp{7};
  const BsonDoc event = Event(point, 9 << 20, 8 << 20);
  std::vector<BsonDoc> fragments;
  size_t total = 0;
  ASSERT_TRUE(SplitChangeEvent(event.view(), point, 1, &fragments, &total).ok());
  EXPECT_EQ(total, 2u);
  ASSERT_EQ(fragments.size(), 1u);
  EXPECT_EQ(SplitField(fragments[0], "splitEvent.fragment"), 2);
}

TEST(SplitLargeEvent, OneFieldTooLargeFails) {
  ResumePoint point;
  const BsonDoc event = Event(point, 17 << 20, 1);
  std::vector<BsonDoc> fragments;
  size_t total = 0;
  Status status = SplitChangeEvent(event.view(), point, 0, &fragments, &total);
  EXPECT_EQ(CodeNumber(status.code()), 7182500);
}

}  // namespace
}  // namespace cairn::server
