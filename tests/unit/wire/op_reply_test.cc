// Specification of the legacy OP_REPLY writer (wire/op_reply.cc): the byte layout clients
// read (header, responseFlags@16, cursorID@20, startingFrom@28, numberReturned@32, docs@36).
#include <gtest/gtest.h>

#include "tests/unit/wire/wire_test_util.h"
#include "wire/message.h"

namespace cairn::wire {
namespace {

using testing::Bytes;

int32_t I32At(const std::string& s, size_t offset) {
  const auto* p = Bytes(s) + offset;
  return static_cast<int32_t>(p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24);
}

TEST(OpReply, ShouldLayOutEveryFieldAtItsOffset) {
  BsonDoc hello = BsonDoc::FromJson(
      R"({"ismaster": true, "maxWireVersion": 21, "minWireVersion": 0, "ok": 1})");
  BsonDoc second = BsonDoc::FromJson(R"({"x": 1})");
  std::string frame;
  AppendOpReply(frame, 100, 9, kReplyAwaitCapable, {hello.view(), second.view()});

  ASSERT_EQ(frame.size(), 36 + hello.view().size() + second.view().size());
  EXPECT_EQ(I32At(frame, 0), static_cast<int32_t>(frame.size()));  // messageLength
  EXPECT_EQ(I32At(frame, 4), 100);                                 // requestID
  EXPECT_EQ(I32At(frame, 8), 9);                                   // responseTo
  EXPECT_EQ(I32At(frame, 12), static_cast<int32_t>(OpCode::kReply));
  EXPECT_EQ(I32At(frame, 16), kReplyAwaitCapable);  // responseFlags
  EXPECT_EQ(I32At(frame, 20), 0);                   // cursorID, low half
  EXPECT_EQ(I32At(frame, 24), 0);                   // cursorID, high half
  EXPECT_EQ(I32At(frame, 28), 0);                   // startingFrom
  EXPECT_EQ(I32At(frame, 32), 2);                   // numberReturned
  EXPECT_EQ(frame.substr(36, hello.view().size()),
            std::string(reinterpret_cast<const char*>(hello.view().data()), hello.view().size()));
  EXPECT_EQ(frame.substr(36 + hello.view().size()),
            std::string(reinterpret_cast<const char*>(second.view().data()), second.view().size()));
}

TEST(OpReply, ShouldProduceAHeaderParseHeaderAccepts) {
  BsonDoc err = BsonDoc::FromJson(R"({"$err": "bad", "code": 2, "ok": 0})");
  std::string frame;
  AppendOpReply(frame, 1, 2, kReplyQueryFailure, {err.view()});
  auto h = ParseHeader(Bytes(frame), frame.size());
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(static_cast<size_t>(h->message_length), frame.size());
  EXPECT_EQ(h->op_code, 1);
  EXPECT_EQ(I32At(frame, 16), 2);  // QueryFailure is bit 1
  BsonView doc(Bytes(frame) + 36, frame.size() - 36);
  EXPECT_TRUE(ValidateBson(doc.data(), doc.size()).ok());
  EXPECT_EQ(doc.ToJson(), err.ToJson());
}

TEST(OpReply, ShouldAllowNoDocuments) {
  std::string frame;
  AppendOpReply(frame, 1, 2, 0, {});
  EXPECT_EQ(frame.size(), 36u);
  EXPECT_EQ(I32At(frame, 32), 0);
}

}  // namespace
}  // namespace cairn::wire
