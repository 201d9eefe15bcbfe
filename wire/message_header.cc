// The 16-byte standard message header: ParseHeader and its length rules, plus the frame-level
// header check and header writing the message parsers and writers share (wire_io.h).
#include "wire/message.h"
#include "wire/wire_io.h"

namespace cairn::wire {

Result<MessageHeader> ParseHeader(const uint8_t* data, size_t size) {
  if (size < kHeaderSize) {
    return Status(ErrorCode::kProtocolError,
                  "message header needs 16 bytes, got " + std::to_string(size));
  }
  MessageHeader h;
  h.message_length = internal::LoadI32LE(data);
  h.request_id = internal::LoadI32LE(data + 4);
  h.response_to = internal::LoadI32LE(data + 8);
  h.op_code = internal::LoadI32LE(data + 12);
  if (h.message_length < static_cast<int32_t>(kHeaderSize)) {
    return Status(ErrorCode::kProtocolError, "message length " + std::to_string(h.message_length) +
                                                 " is smaller than the 16-byte header");
  }
  if (h.message_length > kMaxMessageSizeBytes) {
    return Status(ErrorCode::kProtocolError, "message length " + std::to_string(h.message_length) +
                                                 " is larger than the maximum of " +
                                                 std::to_string(kMaxMessageSizeBytes));
  }
  return h;
}

namespace internal {

Result<MessageHeader> ParseFrameHeader(const uint8_t* frame, size_t size, OpCode expected,
                                       std::string_view what) {
  CAIRN_ASSIGN_OR_RETURN(MessageHeader h, ParseHeader(frame, size));
  if (static_cast<size_t>(h.message_length) != size) {
    return Status(ErrorCode::kProtocolError,
                  std::string(what) + " header says " + std::to_string(h.message_length) +
                      " bytes but the frame holds " + std::to_string(size));
  }
  if (h.op_code != static_cast<int32_t>(expected)) {
    return Status(ErrorCode::kProtocolError, "expected " + std::string(what) + " (opCode " +
                                                 std::to_string(static_cast<int32_t>(expected)) +
                                                 ") but got opCode " + std::to_string(h.op_code));
  }
  return h;
}

size_t AppendHeader(std::string& out, int32_t request_id, int32_t response_to, OpCode op) {
  const size_t start = out.size();
  PutI32LE(out, 0);  // messageLength, patched by FinishMessage
  PutI32LE(out, request_id);
  PutI32LE(out, response_to);
  PutI32LE(out, static_cast<int32_t>(op));
  return start;
}

void FinishMessage(std::string& out, size_t start) {
  PatchU32LE(out, start, static_cast<uint32_t>(out.size() - start));
}

}  // namespace internal
}  // namespace cairn::wire
