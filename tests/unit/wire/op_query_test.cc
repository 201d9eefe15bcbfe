// Specification of legacy OP_QUERY parsing and writing (wire/op_query.cc): field layout, the
// optional returnFieldsSelector, and rejection of every malformed or truncated frame.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "tests/unit/wire/wire_test_util.h"
#include "wire/message.h"

namespace cairn::wire {
namespace {

using testing::Bytes;
using testing::FirstKey;
using testing::RawMessage;

constexpr int32_t kOpQuery = static_cast<int32_t>(OpCode::kQuery);

BsonDoc Doc(std::string_view json) { return BsonDoc::FromJson(json); }

Result<OpQuery> Parse(const std::string& frame) { return ParseOpQuery(Bytes(frame), frame.size()); }

void ExpectError(const std::string& frame, ErrorCode code) {
  auto r = Parse(frame);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
}

TEST(OpQuery, ShouldParseEveryField) {
  BsonDoc hello = Doc(R"({"hello": 1, "helloOk": true})");
  const std::string frame = RawMessage(kOpQuery, 9)
                                .I32(4)  // SlaveOk
                                .CString("admin.$cmd")
                                .I32(3)
                                .I32(-1)
                                .Doc(hello.view())
                                .Finish();
  auto q = Parse(frame);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->flags, 4);
  EXPECT_EQ(q->full_collection_name, "admin.$cmd");
  EXPECT_EQ(q->number_to_skip, 3);
  EXPECT_EQ(q->number_to_return, -1);
  EXPECT_EQ(FirstKey(q->query), "hello");
  EXPECT_FALSE(q->has_return_fields_selector);
}

TEST(OpQuery, ShouldParseAReturnFieldsSelector) {
  BsonDoc query = Doc(R"({"isMaster": 1})");
  BsonDoc fields = Doc(R"({"ismaster": 1, "_id": 0})");
  const std::string frame = RawMessage(kOpQuery)
                                .I32(0)
                                .CString("admin.$cmd")
                                .I32(0)
                                .I32(1)
                                .Doc(query.view())
                                .Doc(fields.view())
                                .Finish();
  auto q = Parse(frame);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  ASSERT_TRUE(q->has_return_fields_selector);
  EXPECT_EQ(q->return_fields_selector.ToJson(), fields.ToJson());
}

TEST(OpQuery, ShouldRejectTrailingBytesAfterTheSelector) {
  BsonDoc query = Doc(R"({"isMaster": 1})");
  const std::string frame = RawMessage(kOpQuery)
                                .I32(0)
                                .CString("admin.$cmd")
                                .I32(0)
                                .I32(1)
                                .Doc(query.view())
                                .Doc(query.view())
                                .U8(0)
                                .Finish();
  ExpectError(frame, ErrorCode::kProtocolError);
}

TEST(OpQuery, ShouldRejectACollectionNameWithoutTerminator) {
  const std::string frame = RawMessage(kOpQuery).I32(0).Raw("admin.$cmd").Finish();
  ExpectError(frame, ErrorCode::kProtocolError);
}

TEST(OpQuery, ShouldRejectAMissingQueryDocument) {
  const std::string frame =
      RawMessage(kOpQuery).I32(0).CString("admin.$cmd").I32(0).I32(1).Finish();
  ExpectError(frame, ErrorCode::kProtocolError);
}

TEST(OpQuery, ShouldRejectInvalidBson) {
  BsonDoc query = Doc(R"({"isMaster": "yes"})");
  std::string bad(reinterpret_cast<const char*>(query.view().data()), query.view().size());
  bad[4] = 0x7A;  // not a BSON type
  const std::string frame =
      RawMessage(kOpQuery).I32(0).CString("admin.$cmd").I32(0).I32(1).Raw(bad).Finish();
  ExpectError(frame, ErrorCode::kInvalidBSON);
}

TEST(OpQuery, ShouldRejectAnotherOpcode) {
  BsonDoc query = Doc(R"({"isMaster": 1})");
  const std::string frame =
      RawMessage(2013).I32(0).CString("admin.$cmd").I32(0).I32(1).Doc(query.view()).Finish();
  ExpectError(frame, ErrorCode::kProtocolError);
}

TEST(OpQuery, ShouldFailCleanlyOnEveryTruncation) {
  BsonDoc query = Doc(R"({"isMaster": 1, "client": {"driver": {"name": "x"}}})");
  BsonDoc fields = Doc(R"({"a": 1})");
  const std::string frame = RawMessage(kOpQuery)
                                .I32(0)
                                .CString("admin.$cmd")
                                .I32(0)
                                .I32(-1)
                                .Doc(query.view())
                                .Doc(fields.view())
                                .Finish();
  const size_t without_selector = frame.size() - fields.view().size();
  for (size_t n = 0; n < frame.size(); ++n) {
    std::unique_ptr<uint8_t[]> block(new uint8_t[n == 0 ? 1 : n]);
    std::memcpy(block.get(), frame.data(), n);
    if (n >= 4) {
      for (int i = 0; i < 4; ++i) block[i] = static_cast<uint8_t>(n >> (8 * i));
    }
    auto r = ParseOpQuery(block.get(), n);
    // Cutting off exactly the optional selector leaves a valid query.
    EXPECT_EQ(r.ok(), n == without_selector) << n << ": " << r.status().ToString();
  }
}

TEST(OpQuery, AppendOpQueryShouldRoundTrip) {
  BsonDoc query = Doc(R"({"ismaster": 1})");
  BsonDoc fields = Doc(R"({"ok": 1})");
  for (bool with_selector : {false, true}) {
    OpQuery q;
    q.flags = 4;
    q.full_collection_name = "admin.$cmd";
    q.number_to_skip = 0;
    q.number_to_return = -1;
    q.query = query.view();
    q.has_return_fields_selector = with_selector;
    if (with_selector) q.return_fields_selector = fields.view();
    std::string frame;
    AppendOpQuery(frame, 77, 0, q);
    auto h = ParseHeader(Bytes(frame), frame.size());
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->op_code, kOpQuery);
    EXPECT_EQ(h->request_id, 77);
    EXPECT_EQ(static_cast<size_t>(h->message_length), frame.size());
    auto parsed = Parse(frame);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->flags, 4);
    EXPECT_EQ(parsed->full_collection_name, "admin.$cmd");
    EXPECT_EQ(parsed->number_to_return, -1);
    EXPECT_EQ(parsed->has_return_fields_selector, with_selector);
    std::string again;
    AppendOpQuery(again, 77, 0, *parsed);
    EXPECT_EQ(again, frame);
  }
}

}  // namespace
}  // namespace cairn::wire
