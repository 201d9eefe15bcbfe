// OP_MSG (opCode 2013): parsing flags, the kind-0 body, kind-1 document sequences and the
// optional CRC-32C; writing replies (body only) and whole messages (body + sequences).
// Layout: header | uint32 flagBits | sections... | [uint32 crc32c over everything before it].
#include <bitset>
#include <string>

#include "wire/message.h"
#include "wire/wire_io.h"

namespace cairn::wire {
namespace {

using internal::ByteReader;

constexpr uint32_t kSupportedFlags = kChecksumPresent | kMoreToCome;
// Bits 0-15 are "required": a receiver must reject one it does not know. Bits 16-31 are
// optional and ignored when unknown (OP_MSG spec, mongo src/mongo/rpc/op_msg.cpp).
constexpr uint32_t kRequiredFlagMask = 0xFFFF;
constexpr size_t kFlagsSize = 4;
constexpr size_t kChecksumSize = 4;
// MongoDB accepts at most two document sequences per message (TooManyDocumentSequences).
constexpr size_t kMaxDocumentSequences = 2;

constexpr uint8_t kKindBody = 0;
constexpr uint8_t kKindDocumentSequence = 1;

Status ProtocolError(std::string reason) {
  return Status(ErrorCode::kProtocolError, std::move(reason));
}

// Reads the kind-1 section that follows its kind byte: int32 size (counting itself), cstring
// identifier, then documents filling exactly the rest of the size.
Result<DocumentSequence> ReadDocumentSequence(ByteReader& sections) {
  int32_t declared = 0;
  if (!sections.ReadI32(&declared)) {
    return ProtocolError("truncated document sequence: " + std::to_string(sections.remaining()) +
                         " bytes left, too few for its size");
  }
  if (declared < 4) {
    return ProtocolError("document sequence size " + std::to_string(declared) +
                         " is smaller than its own 4-byte size field");
  }
  ByteReader seq(nullptr, 0);
  if (!sections.ReadSub(static_cast<size_t>(declared) - 4, &seq)) {
    return ProtocolError("document sequence of " + std::to_string(declared) +
                         " bytes overruns the message (" +
                         std::to_string(sections.remaining() + 4) + " bytes left)");
  }
  DocumentSequence out;
  if (!seq.ReadCString(&out.identifier)) {
    return ProtocolError("document sequence identifier is not NUL-terminated within its section");
  }
  const std::string where = "document sequence '" + std::string(out.identifier) + "'";
  while (!seq.empty()) {
    CAIRN_ASSIGN_OR_RETURN(BsonView doc, internal::ReadDocument(seq, where));
    out.documents.push_back(doc);
  }
  return out;
}

}  // namespace

Result<OpMsg> ParseOpMsg(const uint8_t* frame, size_t size) {
  CAIRN_ASSIGN_OR_RETURN(MessageHeader header,
                         internal::ParseFrameHeader(frame, size, OpCode::kMsg, "OP_MSG"));
  (void)header;
  if (size < kHeaderSize + kFlagsSize) {
    return ProtocolError("OP_MSG of " + std::to_string(size) + " bytes is too short for flagBits");
  }
  OpMsg msg;
  msg.flags = internal::LoadU32LE(frame + kHeaderSize);
  if ((msg.flags & ~kSupportedFlags & kRequiredFlagMask) != 0) {
    return Status(ErrorCode::kIllegalOpMsgFlag, "Message contains illegal flags value: 0b" +
                                                    std::bitset<32>(msg.flags).to_string());
  }

  size_t sections_end = size;
  if (msg.checksum_present()) {
    // At least one section byte must sit between the flags and the checksum.
    if (size <= kHeaderSize + kFlagsSize + kChecksumSize) {
      return Status(ErrorCode::kLocation51251,
                    "Invalid message size for an OpMsg containing a checksum");
    }
    sections_end = size - kChecksumSize;
    // Checked before the sections are read: a corrupted frame reports corruption rather than
    // whatever parse error the damage happens to cause. (mongod checks it after parsing.)
    const uint32_t stored = internal::LoadU32LE(frame + sections_end);
    const uint32_t computed = Crc32c(frame, sections_end);
    if (stored != computed) {
      return Status(ErrorCode::kChecksumMismatch, "OP_MSG checksum does not match contents");
    }
  }

  ByteReader sections(frame + kHeaderSize + kFlagsSize, sections_end - kHeaderSize - kFlagsSize);
  bool have_body = false;
  size_t section_count = 0;
  while (!sections.empty()) {
    uint8_t kind = 0;
    (void)sections.ReadU8(&kind);  // cannot fail: not empty
    switch (kind) {
      case kKindBody: {
        if (have_body) {
          return ProtocolError(
              "OP_MSG requires exactly one Kind::Body section: multiple body sections in "
              "message");
        }
        have_body = true;
        msg.body_position = section_count;
        CAIRN_ASSIGN_OR_RETURN(msg.body, internal::ReadDocument(sections, "OP_MSG body"));
        break;
      }
      case kKindDocumentSequence: {
        if (msg.sequences.size() >= kMaxDocumentSequences) {
          return Status(ErrorCode::kTooManyDocumentSequences,
                        "Too many document sequences in OP_MSG");
        }
        CAIRN_ASSIGN_OR_RETURN(DocumentSequence seq, ReadDocumentSequence(sections));
        for (const DocumentSequence& earlier : msg.sequences) {
          if (earlier.identifier == seq.identifier) {
            return ProtocolError("Duplicate document sequence: " + std::string(seq.identifier));
          }
        }
        msg.sequences.push_back(std::move(seq));
        break;
      }
      default:
        return ProtocolError("Unknown section kind " + std::to_string(kind));
    }
    ++section_count;
  }
  if (!have_body) {
    return ProtocolError(
        "OP_MSG requires exactly one Kind::Body section: OP_MSG messages must "
        "have a body");
  }

  // A sequence may not also be a field of the body (mongod: "Duplicate field between body and
  // document sequence"); the identifier is a dotted path.
  for (const DocumentSequence& seq : msg.sequences) {
    bson_iter_t it;
    bson_iter_t found;
    const std::string path(seq.identifier);
    if (msg.body.Init(&it) && bson_iter_find_descendant(&it, path.c_str(), &found)) {
      return Status(ErrorCode::kLocation40433,
                    "Duplicate field between body and document sequence " + path);
    }
  }
  return msg;
}

void AppendOpMsg(std::string& out, int32_t request_id, int32_t response_to, uint32_t flags,
                 BsonView body, bool with_checksum) {
  OpMsg msg;
  msg.flags = with_checksum ? (flags | kChecksumPresent) : (flags & ~kChecksumPresent);
  msg.body = body;
  AppendOpMsgWithSequences(out, request_id, response_to, msg);
}

void AppendOpMsgWithSequences(std::string& out, int32_t request_id, int32_t response_to,
                              const OpMsg& msg) {
  const size_t start = internal::AppendHeader(out, request_id, response_to, OpCode::kMsg);
  internal::PutU32LE(out, msg.flags);
  auto append_body = [&] {
    out.push_back(static_cast<char>(kKindBody));
    internal::PutBytes(out, msg.body.data(), msg.body.size());
  };
  for (size_t i = 0; i < msg.sequences.size(); ++i) {
    if (i == msg.body_position) append_body();
    const DocumentSequence& seq = msg.sequences[i];
    out.push_back(static_cast<char>(kKindDocumentSequence));
    const size_t size_at = out.size();
    internal::PutU32LE(out, 0);  // size, patched below
    out.append(seq.identifier);
    out.push_back('\0');
    for (const BsonView& doc : seq.documents) internal::PutBytes(out, doc.data(), doc.size());
    internal::PatchU32LE(out, size_at, static_cast<uint32_t>(out.size() - size_at));
  }
  if (msg.body_position >= msg.sequences.size()) append_body();
  if (msg.checksum_present()) {
    internal::PatchU32LE(out, start, static_cast<uint32_t>(out.size() - start + kChecksumSize));
    const uint32_t crc =
        Crc32c(reinterpret_cast<const uint8_t*>(out.data()) + start, out.size() - start);
    internal::PutU32LE(out, crc);
  } else {
    internal::FinishMessage(out, start);
  }
}

}  // namespace cairn::wire
