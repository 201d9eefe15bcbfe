// Fuzz target `wire`: the wire protocol's framing on arbitrary bytes — the 16-byte header
// (ParseHeader), OP_MSG (ParseOpMsg: flags, kind-0/kind-1 sections, CRC-32C) and legacy OP_QUERY
// (ParseOpQuery). The input is a whole frame, header included, as a client sends it. Besides
// "no crash", it checks that a parsed message re-encodes to exactly the frame it came from (the
// parsers keep what they need for that), and that CRC-32C can be computed in pieces.
//
// Each input is tried as given, and again with its header's messageLength set to the input's
// size and its opCode set to the parser's (and, for OP_MSG with the checksum flag, with the
// checksum recomputed), so mutations of the sections get past the header checks.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_support.h"
#include "wire/message.h"

namespace {

using cairn::BsonView;
using cairn::fuzz::Fail;
using cairn::fuzz::IsValidBson;

void PutI32(uint8_t* at, int32_t value) {
  uint32_t le = BSON_UINT32_TO_LE(static_cast<uint32_t>(value));
  std::memcpy(at, &le, 4);
}

std::string_view AsString(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// A frame a parser accepted must have a header ParseHeader accepts, and `encode` (the message
// re-encoded with that header's ids) must give back exactly the frame.
template <typename Encode>
void CheckReencodes(const uint8_t* frame, size_t size, const char* what, Encode encode) {
  auto header = cairn::wire::ParseHeader(frame, size);
  if (!header.ok()) Fail(std::string(what) + " accepted a frame whose header ParseHeader refuses");
  std::string again;
  encode(again, header->request_id, header->response_to);
  if (again != AsString(frame, size)) {
    Fail(std::string(what) + " accepted a frame its message does not re-encode to");
  }
}

void CheckOpMsg(const uint8_t* frame, size_t size) {
  auto parsed = cairn::wire::ParseOpMsg(frame, size);
  if (!parsed.ok()) return;
  const cairn::wire::OpMsg& msg = parsed.value();
  if (!IsValidBson(msg.body)) Fail("ParseOpMsg returned an invalid body");
  for (const auto& sequence : msg.sequences) {
    for (BsonView doc : sequence.documents) {
      if (!IsValidBson(doc)) Fail("ParseOpMsg returned an invalid sequence document");
    }
  }
  CheckReencodes(frame, size, "ParseOpMsg", [&](std::string& out, int32_t id, int32_t to) {
    cairn::wire::AppendOpMsgWithSequences(out, id, to, msg);
  });
}

void CheckOpQuery(const uint8_t* frame, size_t size) {
  auto parsed = cairn::wire::ParseOpQuery(frame, size);
  if (!parsed.ok()) return;
  const cairn::wire::OpQuery& query = parsed.value();
  if (!IsValidBson(query.query)) Fail("ParseOpQuery returned an invalid query");
  if (query.has_return_fields_selector && !IsValidBson(query.return_fields_selector)) {
    Fail("ParseOpQuery returned an invalid returnFieldsSelector");
  }
  CheckReencodes(frame, size, "ParseOpQuery", [&](std::string& out, int32_t id, int32_t to) {
    cairn::wire::AppendOpQuery(out, id, to, query);
  });
}

void CheckCrc(const uint8_t* data, size_t size) {
  uint32_t whole = cairn::wire::Crc32c(data, size);
  size_t half = size / 3;
  uint32_t pieces = cairn::wire::Crc32c(data + half, size - half, cairn::wire::Crc32c(data, half));
  if (whole != pieces) Fail("CRC-32C of the whole differs from CRC-32C computed in pieces");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // As given.
  (void)cairn::wire::ParseHeader(data, size);
  CheckOpMsg(data, size);
  CheckOpQuery(data, size);
  CheckCrc(data, size);
  if (size < cairn::wire::kHeaderSize || size > static_cast<size_t>(cairn::kMaxMessageSizeBytes)) {
    return 0;
  }

  // With a consistent header (and checksum).
  std::vector<uint8_t> frame(data, data + size);
  PutI32(frame.data(), static_cast<int32_t>(size));
  PutI32(frame.data() + 12, static_cast<int32_t>(cairn::wire::OpCode::kQuery));
  CheckOpQuery(frame.data(), size);
  PutI32(frame.data() + 12, static_cast<int32_t>(cairn::wire::OpCode::kMsg));
  if (size >= cairn::wire::kHeaderSize + 4 + 4) {
    uint32_t flags;
    std::memcpy(&flags, frame.data() + cairn::wire::kHeaderSize, 4);
    if (BSON_UINT32_FROM_LE(flags) & cairn::wire::kChecksumPresent) {
      uint32_t crc = BSON_UINT32_TO_LE(cairn::wire::Crc32c(frame.data(), size - 4));
      std::memcpy(frame.data() + size - 4, &crc, 4);
    }
  }
  CheckOpMsg(frame.data(), size);
  return 0;
}
