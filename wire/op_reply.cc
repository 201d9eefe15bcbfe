// Legacy OP_REPLY (opCode 1), written only to answer an OP_QUERY handshake. Layout: header |
// int32 responseFlags | int64 cursorID | int32 startingFrom | int32 numberReturned | documents.
#include "wire/message.h"
#include "wire/wire_io.h"

namespace cairn::wire {

void AppendOpReply(std::string& out, int32_t request_id, int32_t response_to,
                   int32_t response_flags, const std::vector<BsonView>& documents) {
  const size_t start = internal::AppendHeader(out, request_id, response_to, OpCode::kReply);
  internal::PutI32LE(out, response_flags);
  internal::PutI64LE(out, 0);  // cursorID: Cairn never opens a cursor over OP_QUERY
  internal::PutI32LE(out, 0);  // startingFrom
  internal::PutI32LE(out, static_cast<int32_t>(documents.size()));
  for (const BsonView& doc : documents) internal::PutBytes(out, doc.data(), doc.size());
  internal::FinishMessage(out, start);
}

}  // namespace cairn::wire
