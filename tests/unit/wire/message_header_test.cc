// Specification of ParseHeader (wire/message_header.cc): field order, little-endian decoding
// and the message length rules (16 ≤ messageLength ≤ 48,000,000).
#include <gtest/gtest.h>

#include "tests/unit/wire/wire_test_util.h"
#include "wire/message.h"

namespace cairn::wire {
namespace {

using testing::Bytes;
using testing::RawMessage;

TEST(MessageHeader, ShouldDecodeFieldsLittleEndian) {
  const std::string frame = RawMessage(2013, 0x01020304, -5).Finish(0x40);
  auto h = ParseHeader(Bytes(frame), frame.size());
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->message_length, 0x40);
  EXPECT_EQ(h->request_id, 0x01020304);
  EXPECT_EQ(h->response_to, -5);
  EXPECT_EQ(h->op_code, static_cast<int32_t>(OpCode::kMsg));
}

TEST(MessageHeader, ShouldRejectFewerThanSixteenBytes) {
  const std::string frame = RawMessage(2013).Finish();
  for (size_t n = 0; n < kHeaderSize; ++n) {
    auto h = ParseHeader(Bytes(frame), n);
    ASSERT_FALSE(h.ok()) << n;
    EXPECT_EQ(h.status().code(), ErrorCode::kProtocolError);
  }
}

struct LengthCase {
  int64_t length;
  bool ok;
};

TEST(MessageHeader, ShouldEnforceMessageLengthBounds) {
  const LengthCase cases[] = {
      {-1, false},        {0, false},          {15, false},         {16, true},         {17, true},
      {48'000'000, true}, {48'000'001, false}, {0x7FFFFFFF, false}, {INT32_MIN, false},
  };
  for (const LengthCase& c : cases) {
    const std::string frame = RawMessage(2013).Finish(c.length);
    auto h = ParseHeader(Bytes(frame), frame.size());
    EXPECT_EQ(h.ok(), c.ok) << "messageLength " << c.length;
    if (!c.ok) {
      EXPECT_EQ(h.status().code(), ErrorCode::kProtocolError) << c.length;
    }
  }
}

TEST(MessageHeader, ShouldNotInterpretTheOpCode) {
  // Unknown opcodes are the dispatcher's business: the header parses.
  const std::string frame = RawMessage(9999).Finish();
  auto h = ParseHeader(Bytes(frame), frame.size());
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->op_code, 9999);
}

}  // namespace
}  // namespace cairn::wire
