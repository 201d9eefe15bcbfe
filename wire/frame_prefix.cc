// In-place reply prefixes: the header and section bytes written in front of a body that the
// server built directly in its output buffer (message.h WriteOpMsgPrefix / WriteOpReplyPrefix).
#include <cstring>

#include "wire/message.h"

namespace cairn::wire {

namespace {

void PutI32(uint8_t* at, int32_t value) {
  uint32_t le = BSON_UINT32_TO_LE(static_cast<uint32_t>(value));
  std::memcpy(at, &le, 4);
}

void PutHeader(uint8_t* frame, int32_t total_length, int32_t request_id, int32_t response_to,
               OpCode op_code) {
  PutI32(frame, total_length);
  PutI32(frame + 4, request_id);
  PutI32(frame + 8, response_to);
  PutI32(frame + 12, static_cast<int32_t>(op_code));
}

}  // namespace

void WriteOpMsgPrefix(uint8_t* frame, int32_t total_length, int32_t request_id, int32_t response_to,
                      uint32_t flags) {
  PutHeader(frame, total_length, request_id, response_to, OpCode::kMsg);
  PutI32(frame + kHeaderSize, static_cast<int32_t>(flags));
  frame[kHeaderSize + 4] = 0;  // section kind 0: the body
}

void WriteOpReplyPrefix(uint8_t* frame, int32_t total_length, int32_t request_id,
                        int32_t response_to, int32_t response_flags, int32_t number_returned) {
  PutHeader(frame, total_length, request_id, response_to, OpCode::kReply);
  PutI32(frame + kHeaderSize, response_flags);
  std::memset(frame + kHeaderSize + 4, 0, 8);  // cursorID: no cursors over OP_QUERY
  PutI32(frame + kHeaderSize + 12, 0);         // startingFrom
  PutI32(frame + kHeaderSize + 16, number_returned);
}

}  // namespace cairn::wire
