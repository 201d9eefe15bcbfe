// Specification of OP_MSG parsing and writing (wire/op_msg.cc): flag bits, the one kind-0
// body, kind-1 document sequences, the optional CRC-32C, every malformed-frame error with its
// MongoDB code, and that no truncated or corrupted frame is ever read past its end.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tests/unit/wire/wire_test_util.h"
#include "wire/message.h"

namespace cairn::wire {
namespace {

using testing::Bytes;
using testing::FirstKey;
using testing::RawMessage;
using testing::Sequence;
using testing::Utf8Field;

constexpr int32_t kOpMsg = static_cast<int32_t>(OpCode::kMsg);

BsonDoc Doc(std::string_view json) { return BsonDoc::FromJson(json); }

Result<OpMsg> Parse(const std::string& frame) { return ParseOpMsg(Bytes(frame), frame.size()); }

// Parses and expects failure with `code`; returns the reason for further checks.
std::string ExpectError(const std::string& frame, ErrorCode code) {
  auto r = Parse(frame);
  EXPECT_FALSE(r.ok()) << "parsed a frame that should fail with " << CodeName(code);
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
  return r.status().reason();
}

// The bytes of {s: "abc"} with the string's int32 length replaced by `lie`.
std::string LyingStringDoc(int32_t lie) {
  BsonDoc d = Doc(R"({"s": "abc"})");
  std::string bytes(reinterpret_cast<const char*>(d.view().data()), d.view().size());
  constexpr size_t kStringLengthOffset = 4 + 1 + 2;  // doc length, type byte, "s\0"
  for (int i = 0; i < 4; ++i) bytes[kStringLengthOffset + i] = static_cast<char>(lie >> (8 * i));
  return bytes;
}

struct Fixture {
  BsonDoc insert = Doc(R"({"insert": "items", "ordered": true, "$db": "test"})");
  BsonDoc a1 = Doc(R"({"_id": 1, "a": 1})");
  BsonDoc a2 = Doc(R"({"_id": 2, "a": "two"})");
  BsonDoc u1 = Doc(R"({"q": {}, "u": {"$set": {"x": 1}}})");
};

// ---------------------------------------------------------------- well-formed messages

TEST(OpMsg, ShouldParseABodyOnlyMessage) {
  Fixture f;
  const std::string frame = RawMessage(kOpMsg).U32(0).U8(0).Doc(f.insert.view()).Finish();
  auto msg = Parse(frame);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  EXPECT_EQ(msg->flags, 0u);
  EXPECT_EQ(FirstKey(msg->body), "insert");
  EXPECT_EQ(Utf8Field(msg->body, "$db"), "test");
  EXPECT_TRUE(msg->sequences.empty());
  // The body is a view into the frame, not a copy.
  EXPECT_EQ(msg->body.data(), Bytes(frame) + kHeaderSize + 5);
}

TEST(OpMsg, ShouldParseBodyAndDocumentSequencesInOrder) {
  Fixture f;
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .U8(0)
                                .Doc(f.insert.view())
                                .Raw(Sequence("documents", {f.a1.view(), f.a2.view()}))
                                .Raw(Sequence("updates", {f.u1.view()}))
                                .Finish();
  auto msg = Parse(frame);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  EXPECT_EQ(msg->body_position, 0u);
  ASSERT_EQ(msg->sequences.size(), 2u);
  EXPECT_EQ(msg->sequences[0].identifier, "documents");
  ASSERT_EQ(msg->sequences[0].documents.size(), 2u);
  EXPECT_EQ(msg->sequences[0].documents[1].ToJson(), f.a2.ToJson());
  EXPECT_EQ(msg->sequences[1].identifier, "updates");
  ASSERT_EQ(msg->sequences[1].documents.size(), 1u);
  EXPECT_EQ(FirstKey(msg->sequences[1].documents[0]), "q");
}

TEST(OpMsg, ShouldRecordWhereTheBodyStoodAmongTheSections) {
  Fixture f;
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .Raw(Sequence("documents", {f.a1.view()}))
                                .U8(0)
                                .Doc(f.insert.view())
                                .Finish();
  auto msg = Parse(frame);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  EXPECT_EQ(msg->body_position, 1u);
  EXPECT_EQ(FirstKey(msg->body), "insert");
}

TEST(OpMsg, ShouldAcceptAnEmptyDocumentSequence) {
  Fixture f;
  const std::string frame =
      RawMessage(kOpMsg).U32(0).U8(0).Doc(f.insert.view()).Raw(Sequence("documents", {})).Finish();
  auto msg = Parse(frame);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  ASSERT_EQ(msg->sequences.size(), 1u);
  EXPECT_TRUE(msg->sequences[0].documents.empty());
}

// ---------------------------------------------------------------- flags

struct FlagCase {
  uint32_t flags;
  bool more_to_come;
  bool exhaust_allowed;
};

TEST(OpMsg, ShouldDecodeMoreToComeAndExhaustAllowed) {
  Fixture f;
  const FlagCase cases[] = {
      {0, false, false},
      {kMoreToCome, true, false},
      {kExhaustAllowed, false, true},
      {kMoreToCome | kExhaustAllowed, true, true},
  };
  for (const FlagCase& c : cases) {
    const std::string frame = RawMessage(kOpMsg).U32(c.flags).U8(0).Doc(f.insert.view()).Finish();
    auto msg = Parse(frame);
    ASSERT_TRUE(msg.ok()) << c.flags << ": " << msg.status().ToString();
    EXPECT_EQ(msg->flags, c.flags);
    EXPECT_EQ(msg->more_to_come(), c.more_to_come) << c.flags;
    EXPECT_EQ(msg->exhaust_allowed(), c.exhaust_allowed) << c.flags;
    EXPECT_FALSE(msg->checksum_present());
  }
}

TEST(OpMsg, ShouldRejectEveryUnknownRequiredFlagBit) {
  Fixture f;
  for (int bit = 2; bit < 16; ++bit) {
    const std::string frame = RawMessage(kOpMsg).U32(1u << bit).U8(0).Doc(f.insert.view()).Finish();
    const std::string reason = ExpectError(frame, ErrorCode::kIllegalOpMsgFlag);
    EXPECT_NE(reason.find("illegal flags"), std::string::npos) << reason;
  }
}

TEST(OpMsg, ShouldRejectRequiredBitFiveEvenBesideKnownFlags) {
  Fixture f;
  const std::string frame = RawMessage(kOpMsg)
                                .U32(kMoreToCome | kExhaustAllowed | (1u << 5))
                                .U8(0)
                                .Doc(f.insert.view())
                                .Finish();
  ExpectError(frame, ErrorCode::kIllegalOpMsgFlag);
}

TEST(OpMsg, ShouldIgnoreUnknownOptionalFlagBits) {
  Fixture f;
  for (int bit = 17; bit < 32; ++bit) {
    const std::string frame = RawMessage(kOpMsg).U32(1u << bit).U8(0).Doc(f.insert.view()).Finish();
    auto msg = Parse(frame);
    ASSERT_TRUE(msg.ok()) << "bit " << bit << ": " << msg.status().ToString();
    EXPECT_EQ(msg->flags, 1u << bit);
  }
}

// ---------------------------------------------------------------- checksum

TEST(OpMsg, ShouldAcceptACorrectChecksum) {
  Fixture f;
  std::string frame;
  AppendOpMsg(frame, 3, 0, 0, f.insert.view(), /*with_checksum=*/true);
  auto msg = Parse(frame);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  EXPECT_TRUE(msg->checksum_present());
  EXPECT_EQ(FirstKey(msg->body), "insert");
}

TEST(OpMsg, ChecksumShouldCoverHeaderFlagsAndSectionsLittleEndian) {
  Fixture f;
  std::string frame;
  AppendOpMsg(frame, 3, 0, 0, f.insert.view(), /*with_checksum=*/true);
  const uint32_t crc = Crc32c(Bytes(frame), frame.size() - 4);
  const auto* tail = Bytes(frame) + frame.size() - 4;
  EXPECT_EQ(tail[0] | tail[1] << 8 | tail[2] << 16 | static_cast<uint32_t>(tail[3]) << 24, crc);
}

TEST(OpMsg, ShouldRejectAWrongChecksum) {
  Fixture f;
  std::string good;
  AppendOpMsg(good, 3, 0, 0, f.insert.view(), /*with_checksum=*/true);
  std::string bad_crc = good;
  bad_crc.back() ^= 0x01;
  EXPECT_EQ(ExpectError(bad_crc, ErrorCode::kChecksumMismatch),
            "OP_MSG checksum does not match contents");
  // A changed byte anywhere the checksum covers is caught, header included.
  for (size_t i : {size_t{4}, size_t{8}, kHeaderSize + 7, good.size() - 6}) {
    std::string corrupt = good;
    corrupt[i] ^= 0x20;
    ExpectError(corrupt, ErrorCode::kChecksumMismatch);
  }
}

TEST(OpMsg, ShouldRejectAChecksumFlagWithNoRoomForTheChecksum) {
  // flags + 4 bytes: either no sections or no checksum.
  const std::string frame = RawMessage(kOpMsg).U32(kChecksumPresent).U32(0).Finish();
  EXPECT_EQ(ExpectError(frame, ErrorCode::kLocation51251),
            "Invalid message size for an OpMsg containing a checksum");
}

// ---------------------------------------------------------------- section structure

TEST(OpMsg, ShouldRejectTwoBodySections) {
  Fixture f;
  const std::string frame =
      RawMessage(kOpMsg).U32(0).U8(0).Doc(f.insert.view()).U8(0).Doc(f.a1.view()).Finish();
  const std::string reason = ExpectError(frame, ErrorCode::kProtocolError);
  EXPECT_NE(reason.find("exactly one Kind::Body"), std::string::npos) << reason;
}

TEST(OpMsg, ShouldRejectAMessageWithoutABody) {
  Fixture f;
  const std::string no_sections = RawMessage(kOpMsg).U32(0).Finish();
  ExpectError(no_sections, ErrorCode::kProtocolError);
  const std::string only_sequence =
      RawMessage(kOpMsg).U32(0).Raw(Sequence("documents", {f.a1.view()})).Finish();
  const std::string reason = ExpectError(only_sequence, ErrorCode::kProtocolError);
  EXPECT_NE(reason.find("must have a body"), std::string::npos) << reason;
}

TEST(OpMsg, ShouldRejectUnknownSectionKinds) {
  Fixture f;
  for (uint8_t kind : {2, 3, 0x7F, 0xFF}) {
    const std::string frame =
        RawMessage(kOpMsg).U32(0).U8(0).Doc(f.insert.view()).U8(kind).Doc(f.a1.view()).Finish();
    const std::string reason = ExpectError(frame, ErrorCode::kProtocolError);
    EXPECT_EQ(reason, "Unknown section kind " + std::to_string(kind));
  }
}

TEST(OpMsg, ShouldRejectATruncatedBody) {
  Fixture f;
  std::string body(reinterpret_cast<const char*>(f.insert.view().data()), f.insert.view().size());
  body.resize(body.size() - 3);  // the length prefix now promises 3 bytes more than there are
  const std::string frame = RawMessage(kOpMsg).U32(0).U8(0).Raw(body).Finish();
  // mongod validates what is left of the section as the document: InvalidBSON.
  EXPECT_EQ(ExpectError(frame, ErrorCode::kInvalidBSON),
            "Incorrect BSON length in element with field name '?' in object with unknown _id");
}

TEST(OpMsg, ShouldRejectASectionKindWithNothingAfterIt) {
  Fixture f;
  for (uint8_t kind : {0, 1}) {
    const std::string frame =
        RawMessage(kOpMsg).U32(0).U8(0).Doc(f.insert.view()).U8(kind).Finish();
    auto r = Parse(frame);
    ASSERT_FALSE(r.ok()) << int{kind};
    EXPECT_EQ(r.status().code(), ErrorCode::kProtocolError) << r.status().ToString();
  }
}

TEST(OpMsg, ShouldRejectASequenceSizeOverrunningTheMessage) {
  Fixture f;
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .U8(0)
                                .Doc(f.insert.view())
                                .Raw(Sequence("documents", {f.a1.view()}, /*size_delta=*/+1))
                                .Finish();
  const std::string reason = ExpectError(frame, ErrorCode::kProtocolError);
  EXPECT_NE(reason.find("overruns the message"), std::string::npos) << reason;
}

TEST(OpMsg, ShouldRejectAHugeSequenceSize) {
  Fixture f;
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .U8(0)
                                .Doc(f.insert.view())
                                .U8(1)
                                .I32(0x7FFFFFFF)
                                .CString("documents")
                                .Doc(f.a1.view())
                                .Finish();
  ExpectError(frame, ErrorCode::kProtocolError);
}

TEST(OpMsg, ShouldRejectASequenceSizeSmallerThanItsSizeField) {
  Fixture f;
  for (int32_t size : {-1, 0, 3, INT32_MIN}) {
    const std::string frame = RawMessage(kOpMsg)
                                  .U32(0)
                                  .U8(0)
                                  .Doc(f.insert.view())
                                  .U8(1)
                                  .I32(size)
                                  .CString("documents")
                                  .Finish();
    ExpectError(frame, ErrorCode::kProtocolError);
  }
}

TEST(OpMsg, ShouldRejectADocumentOverrunningItsSequence) {
  Fixture f;
  // The section claims 2 bytes fewer than its documents take; the bytes that follow belong to
  // the body section, so the last document runs past the end of its section.
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .Raw(Sequence("documents", {f.a1.view(), f.a2.view()}, -2))
                                .U8(0)
                                .Doc(f.insert.view())
                                .Finish();
  EXPECT_EQ(ExpectError(frame, ErrorCode::kInvalidBSON),
            "Incorrect BSON length in element with field name '?' in object with unknown _id");
}

TEST(OpMsg, ShouldRejectASequenceIdentifierWithoutItsTerminator) {
  Fixture f;
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .U8(0)
                                .Doc(f.insert.view())
                                .U8(1)
                                .I32(4 + 9)
                                .Raw("documents")  // 9 bytes, no NUL inside the section
                                .Finish();
  ExpectError(frame, ErrorCode::kProtocolError);
}

TEST(OpMsg, ShouldRejectADuplicateSequenceIdentifier) {
  Fixture f;
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .U8(0)
                                .Doc(f.insert.view())
                                .Raw(Sequence("documents", {f.a1.view()}))
                                .Raw(Sequence("documents", {f.a2.view()}))
                                .Finish();
  EXPECT_EQ(ExpectError(frame, ErrorCode::kProtocolError),
            "Duplicate document sequence: documents");
}

TEST(OpMsg, ShouldRejectMoreThanTwoDocumentSequences) {
  Fixture f;
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .U8(0)
                                .Doc(f.insert.view())
                                .Raw(Sequence("a", {f.a1.view()}))
                                .Raw(Sequence("b", {f.a1.view()}))
                                .Raw(Sequence("c", {f.a1.view()}))
                                .Finish();
  ExpectError(frame, ErrorCode::kTooManyDocumentSequences);
}

TEST(OpMsg, ShouldRejectASequenceThatIsAlsoABodyField) {
  BsonDoc body = Doc(R"({"insert": "items", "documents": [], "$db": "test"})");
  BsonDoc a1 = Doc(R"({"a": 1})");
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .U8(0)
                                .Doc(body.view())
                                .Raw(Sequence("documents", {a1.view()}))
                                .Finish();
  EXPECT_EQ(ExpectError(frame, ErrorCode::kLocation40433),
            "Duplicate field between body and document sequence documents");
}

// ---------------------------------------------------------------- BSON validity

TEST(OpMsg, ShouldRejectABodyWhoseStringLengthLies) {
  for (int32_t lie : {100, 2, 0, -1}) {
    const std::string frame = RawMessage(kOpMsg).U32(0).U8(0).Raw(LyingStringDoc(lie)).Finish();
    ExpectError(frame, ErrorCode::kInvalidBSON);
  }
}

TEST(OpMsg, ShouldRejectInvalidBsonInsideASequence) {
  Fixture f;
  const std::string bad = LyingStringDoc(100);
  const BsonView bad_view(reinterpret_cast<const uint8_t*>(bad.data()), bad.size());
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .U8(0)
                                .Doc(f.insert.view())
                                .Raw(Sequence("documents", {f.a1.view(), bad_view}))
                                .Finish();
  ExpectError(frame, ErrorCode::kInvalidBSON);
}

TEST(OpMsg, ShouldRejectADocumentLengthBelowFive) {
  for (int32_t len : {0, 4, -7}) {
    const std::string frame = RawMessage(kOpMsg).U32(0).U8(0).I32(len).U8(0).Finish();
    ExpectError(frame, ErrorCode::kInvalidBSON);
  }
}

TEST(OpMsg, ShouldRejectADocumentLargerThanTheInternalBsonLimit) {
  const std::string frame =
      RawMessage(kOpMsg).U32(0).U8(0).I32(kMaxInternalBsonObjectSize + 1).U8(0).Finish();
  ExpectError(frame, ErrorCode::kBSONObjectTooLarge);
}

// ---------------------------------------------------------------- framing

TEST(OpMsg, ShouldRejectAFrameWhoseHeaderLengthIsNotItsSize) {
  Fixture f;
  const RawMessage m = RawMessage(kOpMsg).U32(0).U8(0).Doc(f.insert.view());
  ExpectError(m.Finish(m.size() + 1), ErrorCode::kProtocolError);
  ExpectError(m.Finish(m.size() - 1), ErrorCode::kProtocolError);
}

TEST(OpMsg, ShouldRejectAnotherOpcode) {
  Fixture f;
  ExpectError(RawMessage(2004).U32(0).U8(0).Doc(f.insert.view()).Finish(),
              ErrorCode::kProtocolError);
}

TEST(OpMsg, ShouldRejectAFrameTooShortForFlags) {
  for (int extra = 0; extra < 4; ++extra) {
    RawMessage m(kOpMsg);
    for (int i = 0; i < extra; ++i) m.U8(0);
    ExpectError(m.Finish(), ErrorCode::kProtocolError);
  }
}

// ---------------------------------------------------------------- robustness

// Parses `frame[0, n)` from a heap block of exactly n bytes, so AddressSanitizer reports any
// read past the end.
Result<OpMsg> ParseExact(const std::string& frame, size_t n, bool patch_length) {
  std::unique_ptr<uint8_t[]> block(new uint8_t[n == 0 ? 1 : n]);
  std::memcpy(block.get(), frame.data(), n);
  if (patch_length && n >= 4) {
    for (int i = 0; i < 4; ++i) block[i] = static_cast<uint8_t>(n >> (8 * i));
  }
  auto r = ParseOpMsg(block.get(), n);
  // Views must not outlive `block`; only the status is returned.
  if (r.ok()) return OpMsg{};
  return r.status();
}

std::string MultiSectionMessage(bool with_checksum) {
  static Fixture f;
  OpMsg msg;
  msg.flags = with_checksum ? kChecksumPresent : 0;
  msg.body = f.insert.view();
  msg.sequences.push_back({"documents", {f.a1.view(), f.a2.view()}});
  msg.sequences.push_back({"updates", {f.u1.view()}});
  msg.body_position = 2;  // body last: every strict prefix lacks a complete body
  std::string frame;
  AppendOpMsgWithSequences(frame, 11, 0, msg);
  return frame;
}

TEST(OpMsg, ShouldFailCleanlyOnEveryTruncation) {
  for (bool with_checksum : {false, true}) {
    const std::string frame = MultiSectionMessage(with_checksum);
    ASSERT_TRUE(Parse(frame).ok()) << Parse(frame).status().ToString();
    for (size_t n = 0; n < frame.size(); ++n) {
      for (bool patch : {true, false}) {
        auto r = ParseExact(frame, n, patch);
        ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes parsed (checksum " << with_checksum
                             << ", length patched " << patch << ")";
        const ErrorCode c = r.status().code();
        EXPECT_TRUE(c == ErrorCode::kProtocolError || c == ErrorCode::kChecksumMismatch ||
                    c == ErrorCode::kInvalidBSON || c == ErrorCode::kLocation51251)
            << n << ": " << r.status().ToString();
      }
    }
  }
}

TEST(OpMsg, ShouldOnlyAcceptTruncationsAtSectionBoundariesWhenTheBodyComesFirst) {
  Fixture f;
  const std::string body_section =
      std::string(1, '\0') +
      std::string(reinterpret_cast<const char*>(f.insert.view().data()), f.insert.view().size());
  const std::string seq1 = Sequence("documents", {f.a1.view(), f.a2.view()});
  const std::string frame = RawMessage(kOpMsg)
                                .U32(0)
                                .Raw(body_section)
                                .Raw(seq1)
                                .Raw(Sequence("updates", {f.u1.view()}))
                                .Finish();
  const size_t boundary1 = kHeaderSize + 4 + body_section.size();
  const size_t boundary2 = boundary1 + seq1.size();
  for (size_t n = 0; n < frame.size(); ++n) {
    auto r = ParseExact(frame, n, /*patch_length=*/true);
    EXPECT_EQ(r.ok(), n == boundary1 || n == boundary2) << n << ": " << r.status().ToString();
  }
}

TEST(OpMsg, ShouldNeverCrashOnASingleCorruptedByte) {
  for (bool with_checksum : {false, true}) {
    const std::string frame = MultiSectionMessage(with_checksum);
    for (size_t i = 0; i < frame.size(); ++i) {
      for (uint8_t mask : {0x01, 0x80, 0xFF}) {
        std::string corrupt = frame;
        corrupt[i] = static_cast<char>(corrupt[i] ^ mask);
        auto r = ParseExact(corrupt, corrupt.size(), /*patch_length=*/false);
        (void)r;  // any outcome but a crash or an out-of-bounds read
      }
    }
  }
}

// ---------------------------------------------------------------- writing

TEST(OpMsg, AppendOpMsgShouldRoundTrip) {
  Fixture f;
  for (bool with_checksum : {false, true}) {
    for (uint32_t flags : {0u, kMoreToCome}) {
      std::string out = "prefix";  // appends, leaving what was there
      AppendOpMsg(out, 42, 17, flags, f.insert.view(), with_checksum);
      ASSERT_EQ(out.substr(0, 6), "prefix");
      const std::string frame = out.substr(6);
      auto h = ParseHeader(Bytes(frame), frame.size());
      ASSERT_TRUE(h.ok());
      EXPECT_EQ(static_cast<size_t>(h->message_length), frame.size());
      EXPECT_EQ(h->request_id, 42);
      EXPECT_EQ(h->response_to, 17);
      EXPECT_EQ(h->op_code, kOpMsg);
      EXPECT_EQ(frame.size(),
                kHeaderSize + 4 + 1 + f.insert.view().size() + (with_checksum ? 4 : 0));
      auto msg = Parse(frame);
      ASSERT_TRUE(msg.ok()) << msg.status().ToString();
      EXPECT_EQ(msg->checksum_present(), with_checksum);
      EXPECT_EQ(msg->more_to_come(), flags == kMoreToCome);
      EXPECT_EQ(msg->body.ToJson(), f.insert.ToJson());
    }
  }
}

TEST(OpMsg, AppendOpMsgShouldNotSetTheChecksumFlagWithoutAChecksum) {
  Fixture f;
  std::string frame;
  AppendOpMsg(frame, 1, 0, kChecksumPresent | kMoreToCome, f.insert.view(), false);
  auto msg = Parse(frame);
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  EXPECT_EQ(msg->flags, kMoreToCome);
}

TEST(OpMsg, AppendOpMsgWithSequencesShouldReproduceAParsedMessage) {
  for (size_t body_position : {0, 1, 2}) {
    for (bool with_checksum : {false, true}) {
      Fixture f;
      OpMsg msg;
      msg.flags = kExhaustAllowed | (with_checksum ? kChecksumPresent : 0);
      msg.body = f.insert.view();
      msg.sequences.push_back({"documents", {f.a1.view(), f.a2.view()}});
      msg.sequences.push_back({"updates", {f.u1.view()}});
      msg.body_position = body_position;
      std::string frame;
      AppendOpMsgWithSequences(frame, 5, 6, msg);
      auto parsed = Parse(frame);
      ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
      EXPECT_EQ(parsed->flags, msg.flags);
      EXPECT_EQ(parsed->body_position, body_position);
      ASSERT_EQ(parsed->sequences.size(), 2u);
      EXPECT_EQ(parsed->sequences[0].documents.size(), 2u);
      std::string again;
      AppendOpMsgWithSequences(again, 5, 6, *parsed);
      EXPECT_EQ(again, frame);
    }
  }
}

}  // namespace
}  // namespace cairn::wire

namespace cairn::wire {
namespace {

// A reply built in place (body at kOpMsgBodyOffset, prefix written after) is byte-identical to
// one built by AppendOpMsg, with and without a checksum; likewise for OP_REPLY.
TEST(InPlaceReply, ShouldMatchTheAppendedFrameByteForByte) {
  BsonDoc body = BsonDoc::FromJson(R"({"ok": 1.0, "n": 3})");
  for (bool checksum : {false, true}) {
    std::string expected;
    AppendOpMsg(expected, 7, 42, 0, body.view(), checksum);
    std::string frame(kOpMsgBodyOffset, '\0');
    frame.append(reinterpret_cast<const char*>(body.view().data()), body.view().size());
    size_t total = frame.size() + (checksum ? 4 : 0);
    WriteOpMsgPrefix(reinterpret_cast<uint8_t*>(frame.data()), static_cast<int32_t>(total), 7, 42,
                     checksum ? kChecksumPresent : 0);
    if (checksum) {
      uint32_t crc =
          BSON_UINT32_TO_LE(Crc32c(reinterpret_cast<const uint8_t*>(frame.data()), frame.size()));
      frame.append(reinterpret_cast<const char*>(&crc), 4);
    }
    EXPECT_EQ(frame, expected) << "checksum " << checksum;
  }
  std::string expected_reply;
  AppendOpReply(expected_reply, 9, 11, kReplyAwaitCapable, {body.view()});
  std::string reply(kOpReplyDocumentsOffset, '\0');
  reply.append(reinterpret_cast<const char*>(body.view().data()), body.view().size());
  WriteOpReplyPrefix(reinterpret_cast<uint8_t*>(reply.data()), static_cast<int32_t>(reply.size()),
                     9, 11, kReplyAwaitCapable, 1);
  EXPECT_EQ(reply, expected_reply);
}

}  // namespace
}  // namespace cairn::wire
