// Private to wire/: little-endian integer loads/stores, a bounds-checked cursor over a frame
// (ByteReader), and the one bounded read of a BSON document that every parser uses. Nothing
// here reads a byte without first checking it lies inside the buffer.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"
#include "wire/message.h"

namespace cairn::wire::internal {

inline uint32_t LoadU32LE(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
inline int32_t LoadI32LE(const uint8_t* p) { return static_cast<int32_t>(LoadU32LE(p)); }

inline void PutU32LE(std::string& out, uint32_t v) {
  const char b[4] = {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 24)};
  out.append(b, 4);
}
inline void PutI32LE(std::string& out, int32_t v) { PutU32LE(out, static_cast<uint32_t>(v)); }
inline void PutI64LE(std::string& out, int64_t v) {
  PutU32LE(out, static_cast<uint32_t>(static_cast<uint64_t>(v)));
  PutU32LE(out, static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32));
}
// Overwrites 4 bytes at `offset` (which the caller reserved earlier).
inline void PatchU32LE(std::string& out, size_t offset, uint32_t v) {
  out[offset] = static_cast<char>(v);
  out[offset + 1] = static_cast<char>(v >> 8);
  out[offset + 2] = static_cast<char>(v >> 16);
  out[offset + 3] = static_cast<char>(v >> 24);
}
inline void PutBytes(std::string& out, const uint8_t* data, size_t size) {
  out.append(reinterpret_cast<const char*>(data), size);
}

// A cursor over [data, data + size). Every Read* checks the remaining length first and returns
// false, consuming nothing, when the bytes are not there. Does not own the bytes.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : pos_(data), end_(data + size) {}

  size_t remaining() const { return static_cast<size_t>(end_ - pos_); }
  bool empty() const { return pos_ == end_; }
  const uint8_t* position() const { return pos_; }

  bool ReadU8(uint8_t* v) {
    if (remaining() < 1) return false;
    *v = *pos_++;
    return true;
  }
  bool ReadI32(int32_t* v) {
    if (remaining() < 4) return false;
    *v = LoadI32LE(pos_);
    pos_ += 4;
    return true;
  }
  // A NUL-terminated string; the view excludes the NUL. False when no NUL is in range.
  bool ReadCString(std::string_view* v) {
    const void* nul = std::memchr(pos_, 0, remaining());
    if (nul == nullptr) return false;
    const auto* n = static_cast<const uint8_t*>(nul);
    *v = std::string_view(reinterpret_cast<const char*>(pos_), static_cast<size_t>(n - pos_));
    pos_ = n + 1;
    return true;
  }
  // Takes the next `n` bytes as a sub-reader.
  bool ReadSub(size_t n, ByteReader* sub) {
    if (remaining() < n) return false;
    *sub = ByteReader(pos_, n);
    pos_ += n;
    return true;
  }

 private:
  const uint8_t* pos_;
  const uint8_t* end_;
};

// Parses the header of a whole frame and checks that its length is the frame's size and its
// opcode `expected`; ProtocolError otherwise. `what` names the message ("OP_MSG").
Result<MessageHeader> ParseFrameHeader(const uint8_t* frame, size_t size, OpCode expected,
                                       std::string_view what);

// Appends a header whose messageLength is a placeholder; returns the offset of the message's
// first byte, to pass to FinishMessage once the whole message is appended.
size_t AppendHeader(std::string& out, int32_t request_id, int32_t response_to, OpCode op);
// Patches messageLength of the message starting at `start` to span to the end of `out`.
void FinishMessage(std::string& out, size_t start);

// Reads one BSON document from `r` and validates it. `where` names the place for messages
// ("OP_MSG body", "document sequence 'documents'"). Errors, as mongod's: ProtocolError when
// fewer than 4 bytes are left; InvalidBSON for a length below 5, a document running past the
// reader's end, or bytes that are not valid BSON (common/bson_validate.h); BSONObjectTooLarge
// above kMaxInternalBsonObjectSize.
Result<BsonView> ReadDocument(ByteReader& r, std::string_view where);

}  // namespace cairn::wire::internal
