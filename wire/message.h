// The MongoDB wire protocol's message framing: the 16-byte header, opcodes, and the parsed
// forms of the messages Cairn reads (OP_MSG, legacy OP_QUERY) and writes (OP_MSG, OP_REPLY).
// Parsed messages hold views into the caller's frame buffer: no document is copied. Knows
// nothing of commands, queries or storage. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::wire {

inline constexpr size_t kHeaderSize = 16;

// Opcodes (mongodb/specifications source/message/OP_MSG.md; legacy opcodes in the manual's
// "Legacy Opcodes"). Cairn reads OP_MSG and OP_QUERY; the others are logged and the connection
// closed.
enum class OpCode : int32_t {
  kReply = 1,           // legacy reply to OP_QUERY: written, never read
  kUpdate = 2001,       // legacy, removed in MongoDB 6.0: unsupported
  kInsert = 2002,       // legacy, removed in MongoDB 6.0: unsupported
  kQuery = 2004,        // legacy: read for the hello/isMaster handshake only
  kGetMore = 2005,      // legacy, removed in MongoDB 6.0: unsupported
  kDelete = 2006,       // legacy, removed in MongoDB 6.0: unsupported
  kKillCursors = 2007,  // legacy, removed in MongoDB 6.0: unsupported
  kCompressed = 2012,   // not negotiated by Cairn (hello advertises no compressors)
  kMsg = 2013,          // the protocol
};

struct MessageHeader {
  int32_t message_length = 0;  // total, header included
  int32_t request_id = 0;
  int32_t response_to = 0;
  int32_t op_code = 0;
};

// Reads the header from the first 16 bytes. Checks that message_length is at least 16 and at
// most kMaxMessageSizeBytes (48,000,000); ProtocolError otherwise (the caller closes the
// connection, as mongod does for a bad length).
Result<MessageHeader> ParseHeader(const uint8_t* data, size_t size);

// OP_MSG flag bits.
inline constexpr uint32_t kChecksumPresent = 1u << 0;
inline constexpr uint32_t kMoreToCome = 1u << 1;
inline constexpr uint32_t kExhaustAllowed = 1u << 16;

// One kind-1 section: a named sequence of documents (e.g. "documents" for insert, "updates").
struct DocumentSequence {
  std::string_view identifier;
  std::vector<BsonView> documents;
};

// A parsed OP_MSG. Views point into the frame passed to ParseOpMsg.
struct OpMsg {
  uint32_t flags = 0;
  BsonView body;                            // the kind-0 section
  std::vector<DocumentSequence> sequences;  // kind-1 sections, in order
  // Where the kind-0 section stood among all sections (0: first, as drivers send it;
  // sequences.size(): last, as mongod writes it). Kept so a message re-encodes byte for byte.
  size_t body_position = 0;

  bool checksum_present() const { return flags & kChecksumPresent; }
  bool more_to_come() const { return flags & kMoreToCome; }
  bool exhaust_allowed() const { return flags & kExhaustAllowed; }
};

// Parses the OP_MSG in `frame` (the whole message, header included). Errors, with MongoDB's
// codes: unknown required flag bits (bits 0-15 other than 0 and 1) IllegalOpMsgFlag 223;
// checksum mismatch ChecksumMismatch 288; not exactly one kind-0 section, an unknown section
// kind, truncated sections or sequences, or a duplicate sequence identifier: ProtocolError 17
// (or FailedToParse where MongoDB uses it); any document that is not valid BSON: InvalidBSON 22.
// Also as mongod: more than two sequences TooManyDocumentSequences 233; a sequence identifier
// that is also a body field 40433; the checksum flag without room for a checksum 51251; a
// document running past its section InvalidBSON; a document length above
// kMaxInternalBsonObjectSize BSONObjectTooLarge 10334. The frame's header must give its exact size
// and opCode 2013. The checksum is verified before the sections are read. Every document is
// validated (ValidateBson) before a view of it is returned.
Result<OpMsg> ParseOpMsg(const uint8_t* frame, size_t size);

// A parsed legacy OP_QUERY. Views point into the frame.
struct OpQuery {
  int32_t flags = 0;
  std::string_view full_collection_name;  // e.g. "admin.$cmd"
  int32_t number_to_skip = 0;
  int32_t number_to_return = 0;
  BsonView query;
  bool has_return_fields_selector = false;
  BsonView return_fields_selector;
};

// Parses the OP_QUERY in `frame` (header included); validates every document.
Result<OpQuery> ParseOpQuery(const uint8_t* frame, size_t size);

// Appends a complete OP_MSG reply (header + flags + kind-0 body [+ CRC-32C]) to `out`.
// `flags` is typically 0, or kMoreToCome for exhaust replies; kChecksumPresent is added when
// `with_checksum` is true.
void AppendOpMsg(std::string& out, int32_t request_id, int32_t response_to, uint32_t flags,
                 BsonView body, bool with_checksum);

// Appends a complete OP_MSG with its body and every document sequence, in the section order
// `msg.body_position` gives (header + flags + sections [+ CRC-32C]). The CRC-32C is appended
// exactly when msg.flags has kChecksumPresent; other flag bits are written as given. Used to
// re-encode parsed messages (fixtures, tools) and for replies that carry sequences.
void AppendOpMsgWithSequences(std::string& out, int32_t request_id, int32_t response_to,
                              const OpMsg& msg);

// Appends a complete legacy OP_QUERY (header, flags, fullCollectionName, numberToSkip,
// numberToReturn, query [, returnFieldsSelector when has_return_fields_selector]) to `out`.
// Cairn never sends one; tests and tools use it to re-encode what clients sent.
void AppendOpQuery(std::string& out, int32_t request_id, int32_t response_to, const OpQuery& q);

// Appends a complete OP_REPLY (header, responseFlags, cursorID 0, startingFrom 0,
// numberReturned = documents.size(), documents) to `out`.
void AppendOpReply(std::string& out, int32_t request_id, int32_t response_to,
                   int32_t response_flags, const std::vector<BsonView>& documents);

// Replies built in place: the caller writes the body document at the body offset of its own
// buffer (no copy of the body), then fills the bytes before it with these. `total_length` is the
// whole frame (for OP_MSG with a checksum, the 4 trailing CRC bytes included).
inline constexpr size_t kOpMsgBodyOffset = kHeaderSize + 4 + 1;  // header, flagBits, kind 0
inline constexpr size_t kOpReplyDocumentsOffset = kHeaderSize + 4 + 8 + 4 + 4;
void WriteOpMsgPrefix(uint8_t* frame, int32_t total_length, int32_t request_id, int32_t response_to,
                      uint32_t flags);
void WriteOpReplyPrefix(uint8_t* frame, int32_t total_length, int32_t request_id,
                        int32_t response_to, int32_t response_flags, int32_t number_returned);

// OP_REPLY responseFlags bits.
inline constexpr int32_t kReplyQueryFailure = 1 << 1;
inline constexpr int32_t kReplyAwaitCapable = 1 << 3;

// CRC-32C (Castagnoli) as OP_MSG checksums use it. `crc` is the CRC of the bytes before `data`
// (0 for none), so a buffer can be checksummed in pieces. Uses SSE4.2 when the CPU has it.
uint32_t Crc32c(const uint8_t* data, size_t size, uint32_t crc = 0);

}  // namespace cairn::wire
