// ReplyBuffer: a reply's body is built in place after the frame prefix; a restart discards a
// partial body; the memory is kept across replies up to the keep size.
#include "wire/reply_buffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "common/bson_doc.h"
#include "common/bson_validate.h"
#include "common/status.h"

namespace cairn::wire {
namespace {

BsonView BodyOf(ReplyBuffer& buffer, size_t prefix) {
  return BsonView(buffer.data() + prefix, buffer.size() - prefix);
}

TEST(ReplyBuffer, ShouldBuildTheBodyInPlaceAfterThePrefix) {
  ReplyBuffer buffer;
  bson_t* body = buffer.Begin(21);
  BSON_APPEND_INT32(body, "n", 3);
  BSON_APPEND_DOUBLE(body, "ok", 1.0);
  buffer.End();
  ASSERT_GT(buffer.size(), 21u);
  EXPECT_TRUE(ValidateBson(buffer.data() + 21, buffer.size() - 21).ok());
  EXPECT_EQ(BodyOf(buffer, 21).ToJson(), R"({ "n" : 3, "ok" : 1.0 })");
}

TEST(ReplyBuffer, ShouldDiscardAPartialBodyOnRestart) {
  ReplyBuffer buffer;
  bson_t* body = buffer.Begin(16);
  BSON_APPEND_UTF8(body, "half", "written");
  body = buffer.Restart();
  BSON_APPEND_DOUBLE(body, "ok", 0.0);
  buffer.End();
  EXPECT_EQ(BodyOf(buffer, 16).ToJson(), R"({ "ok" : 0.0 })");
}

TEST(ReplyBuffer, ShouldGrowForLargeBodiesAndAppendTrailingBytes) {
  ReplyBuffer buffer;
  bson_t* body = buffer.Begin(36);
  std::string big(1 << 20, 'x');
  AppendUtf8(body, "big", big);
  buffer.End();
  size_t body_size = buffer.size() - 36;
  uint32_t trailer = 0xdeadbeef;
  buffer.Append(&trailer, 4);
  EXPECT_EQ(buffer.size(), 36 + body_size + 4);
  EXPECT_TRUE(ValidateBson(buffer.data() + 36, body_size).ok());
  uint32_t read_back;
  std::memcpy(&read_back, buffer.data() + 36 + body_size, 4);
  EXPECT_EQ(read_back, trailer);
}

TEST(ReplyBuffer, ShouldBeReusableAfterReset) {
  ReplyBuffer buffer;
  for (int i = 0; i < 3; ++i) {
    bson_t* body = buffer.Begin(21);
    BSON_APPEND_INT32(body, "i", i);
    buffer.End();
    EXPECT_EQ(BodyOf(buffer, 21).ToJson(), "{ \"i\" : " + std::to_string(i) + " }");
    buffer.Reset(kKeepReplyBytes);
    EXPECT_TRUE(buffer.empty());
  }
  // A reset in the middle of a reply (a moreToCome request) leaves the buffer usable.
  BSON_APPEND_INT32(buffer.Begin(21), "x", 1);
  buffer.Reset(0);
  BSON_APPEND_INT32(buffer.Begin(21), "y", 2);
  buffer.End();
  EXPECT_EQ(BodyOf(buffer, 21).ToJson(), R"({ "y" : 2 })");
}

TEST(ReplyBuffer, ShouldAdoptAFinishedReplyInPlaceOfAnEmptyOpenBody) {
  ReplyBuffer prepared;
  BSON_APPEND_INT32(prepared.Begin(21), "prepared", 1);
  prepared.End();
  ReplyBuffer out;
  out.Begin(21);
  ASSERT_TRUE(out.Adopt(prepared));
  EXPECT_TRUE(out.complete());
  out.End();  // nothing to close: the adopted body is finished
  EXPECT_EQ(BodyOf(out, 21).ToJson(), R"({ "prepared" : 1 })");
  EXPECT_TRUE(prepared.empty());
  // The prepared buffer is reusable (it holds the other buffer's memory now).
  BSON_APPEND_INT32(prepared.Begin(21), "again", 2);
  prepared.End();
  EXPECT_EQ(BodyOf(prepared, 21).ToJson(), R"({ "again" : 2 })");
  out.Reset(kKeepReplyBytes);
  EXPECT_FALSE(out.complete());
}

TEST(ReplyBuffer, ShouldRefuseToAdoptAReplyBuiltForAnotherPrefix) {
  ReplyBuffer prepared;
  BSON_APPEND_INT32(prepared.Begin(21), "prepared", 1);
  prepared.End();
  ReplyBuffer out;
  bson_t* body = out.Begin(36);  // an OP_REPLY's prefix, not an OP_MSG's
  EXPECT_FALSE(out.Adopt(prepared));
  BSON_APPEND_INT32(body, "own", 1);
  out.End();
  EXPECT_EQ(BodyOf(out, 36).ToJson(), R"({ "own" : 1 })");
  EXPECT_EQ(BodyOf(prepared, 21).ToJson(), R"({ "prepared" : 1 })");
}

}  // namespace
}  // namespace cairn::wire
