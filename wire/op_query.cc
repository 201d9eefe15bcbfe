// Legacy OP_QUERY (opCode 2004), which clients still use for their first hello/isMaster:
// parsing and re-encoding. Layout: header | int32 flags | cstring fullCollectionName |
// int32 numberToSkip | int32 numberToReturn | query doc | [returnFieldsSelector doc].
#include "wire/message.h"
#include "wire/wire_io.h"

namespace cairn::wire {

Result<OpQuery> ParseOpQuery(const uint8_t* frame, size_t size) {
  CAIRN_ASSIGN_OR_RETURN(MessageHeader header,
                         internal::ParseFrameHeader(frame, size, OpCode::kQuery, "OP_QUERY"));
  (void)header;
  internal::ByteReader r(frame + kHeaderSize, size - kHeaderSize);
  OpQuery q;
  if (!r.ReadI32(&q.flags)) {
    return Status(ErrorCode::kProtocolError, "truncated OP_QUERY: no room for flags");
  }
  if (!r.ReadCString(&q.full_collection_name)) {
    return Status(ErrorCode::kProtocolError,
                  "OP_QUERY fullCollectionName is not NUL-terminated within the message");
  }
  if (!r.ReadI32(&q.number_to_skip) || !r.ReadI32(&q.number_to_return)) {
    return Status(ErrorCode::kProtocolError,
                  "truncated OP_QUERY: no room for numberToSkip and numberToReturn");
  }
  CAIRN_ASSIGN_OR_RETURN(q.query, internal::ReadDocument(r, "OP_QUERY query"));
  if (!r.empty()) {
    CAIRN_ASSIGN_OR_RETURN(q.return_fields_selector,
                           internal::ReadDocument(r, "OP_QUERY returnFieldsSelector"));
    q.has_return_fields_selector = true;
    if (!r.empty()) {
      return Status(
          ErrorCode::kProtocolError,
          std::to_string(r.remaining()) + " trailing bytes after OP_QUERY's returnFieldsSelector");
    }
  }
  return q;
}

void AppendOpQuery(std::string& out, int32_t request_id, int32_t response_to, const OpQuery& q) {
  const size_t start = internal::AppendHeader(out, request_id, response_to, OpCode::kQuery);
  internal::PutI32LE(out, q.flags);
  out.append(q.full_collection_name);
  out.push_back('\0');
  internal::PutI32LE(out, q.number_to_skip);
  internal::PutI32LE(out, q.number_to_return);
  internal::PutBytes(out, q.query.data(), q.query.size());
  if (q.has_return_fields_selector) {
    internal::PutBytes(out, q.return_fields_selector.data(), q.return_fields_selector.size());
  }
  internal::FinishMessage(out, start);
}

}  // namespace cairn::wire
