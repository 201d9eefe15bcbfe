// Real clients' first messages, captured from the Node driver 7.9.0, mongosh 2.12.0 and
// pymongo 3.11.0 against a loopback listener (testdata/*.hex, frozen once captured). Each must
// parse to the fields the client meant and re-encode byte for byte.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/wire/wire_test_util.h"
#include "wire/message.h"

namespace cairn::wire {
namespace {

using testing::Bytes;
using testing::FirstKey;
using testing::ReadFixture;
using testing::Utf8Field;

std::string DottedUtf8(BsonView doc, const char* path) {
  bson_iter_t it;
  bson_iter_t found;
  if (!doc.Init(&it) || !bson_iter_find_descendant(&it, path, &found) ||
      !BSON_ITER_HOLDS_UTF8(&found)) {
    return "<missing>";
  }
  return std::string(IterUtf8(&found));
}

struct HandshakeCase {
  const char* file;
  const char* command;      // the legacy hello every client opens with
  const char* driver_name;  // client.driver.name
  bool hello_ok;            // asks for "hello" from now on
};

// Every client's first message was a legacy OP_QUERY `ismaster` on admin.$cmd.
const HandshakeCase kHandshakes[] = {
    {"node_ismaster_op_query.hex", "ismaster", "nodejs", true},
    {"mongosh_ismaster_op_query.hex", "ismaster", "nodejs|mongosh", true},
    {"pymongo_ismaster_op_query.hex", "ismaster", "PyMongo", false},
};

TEST(DriverFixtures, HandshakesShouldParseAsOpQueryIsMaster) {
  for (const HandshakeCase& c : kHandshakes) {
    SCOPED_TRACE(c.file);
    const std::string frame = ReadFixture(c.file);
    auto h = ParseHeader(Bytes(frame), frame.size());
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    EXPECT_EQ(h->op_code, static_cast<int32_t>(OpCode::kQuery));
    EXPECT_EQ(static_cast<size_t>(h->message_length), frame.size());
    EXPECT_EQ(h->response_to, 0);

    auto q = ParseOpQuery(Bytes(frame), frame.size());
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    EXPECT_EQ(q->flags, 0);
    EXPECT_EQ(q->full_collection_name, "admin.$cmd");
    EXPECT_EQ(q->number_to_skip, 0);
    EXPECT_EQ(q->number_to_return, -1);
    EXPECT_FALSE(q->has_return_fields_selector);
    EXPECT_EQ(FirstKey(q->query), c.command);
    EXPECT_EQ(DottedUtf8(q->query, "client.driver.name"), c.driver_name);
    bson_iter_t it;
    EXPECT_EQ(q->query.Find("helloOk", &it), c.hello_ok);
  }
}

TEST(DriverFixtures, HandshakesShouldReencodeByteForByte) {
  for (const HandshakeCase& c : kHandshakes) {
    SCOPED_TRACE(c.file);
    const std::string frame = ReadFixture(c.file);
    auto h = ParseHeader(Bytes(frame), frame.size());
    auto q = ParseOpQuery(Bytes(frame), frame.size());
    ASSERT_TRUE(h.ok() && q.ok());
    std::string out;
    AppendOpQuery(out, h->request_id, h->response_to, *q);
    EXPECT_EQ(out, frame);
  }
}

TEST(DriverFixtures, NodeInsertManyShouldCarryADocumentsSequence) {
  const std::string frame = ReadFixture("node_insert_op_msg_kind1.hex");
  auto h = ParseHeader(Bytes(frame), frame.size());
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->op_code, static_cast<int32_t>(OpCode::kMsg));

  auto msg = ParseOpMsg(Bytes(frame), frame.size());
  ASSERT_TRUE(msg.ok()) << msg.status().ToString();
  EXPECT_EQ(msg->flags, 0u);
  EXPECT_EQ(FirstKey(msg->body), "insert");
  EXPECT_EQ(Utf8Field(msg->body, "insert"), "items");
  EXPECT_EQ(Utf8Field(msg->body, "$db"), "test");
  EXPECT_EQ(msg->body_position, 0u);  // the driver writes the body first
  ASSERT_EQ(msg->sequences.size(), 1u);
  EXPECT_EQ(msg->sequences[0].identifier, "documents");
  ASSERT_EQ(msg->sequences[0].documents.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    bson_iter_t it;
    ASSERT_TRUE(msg->sequences[0].documents[i].Find("a", &it));
    EXPECT_EQ(bson_iter_int32(&it), i + 1);
    ASSERT_TRUE(msg->sequences[0].documents[i].Find("_id", &it));
    EXPECT_TRUE(BSON_ITER_HOLDS_OID(&it));  // the driver generates _id client-side
  }

  std::string out;
  AppendOpMsgWithSequences(out, h->request_id, h->response_to, *msg);
  EXPECT_EQ(out, frame);
}

struct BodyOnlyCase {
  const char* file;
  const char* command;
  const char* db;
};

const BodyOnlyCase kBodyOnly[] = {
    {"pymongo_ping_op_msg.hex", "ping", "admin"},
    {"mongosh_buildinfo_op_msg.hex", "buildInfo", "admin"},
};

TEST(DriverFixtures, BodyOnlyCommandsShouldReencodeWithAppendOpMsg) {
  for (const BodyOnlyCase& c : kBodyOnly) {
    SCOPED_TRACE(c.file);
    const std::string frame = ReadFixture(c.file);
    auto h = ParseHeader(Bytes(frame), frame.size());
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    auto msg = ParseOpMsg(Bytes(frame), frame.size());
    ASSERT_TRUE(msg.ok()) << msg.status().ToString();
    EXPECT_EQ(FirstKey(msg->body), c.command);
    EXPECT_EQ(Utf8Field(msg->body, "$db"), c.db);
    EXPECT_TRUE(msg->sequences.empty());

    std::string out;
    AppendOpMsg(out, h->request_id, h->response_to, msg->flags, msg->body, msg->checksum_present());
    EXPECT_EQ(out, frame);
    std::string again;
    AppendOpMsgWithSequences(again, h->request_id, h->response_to, *msg);
    EXPECT_EQ(again, frame);
  }
}

}  // namespace
}  // namespace cairn::wire
