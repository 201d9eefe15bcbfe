// The bounded, validated read of one BSON document out of a frame (wire_io.h's ReadDocument);
// shared by the OP_MSG and OP_QUERY parsers.
#include "wire/wire_io.h"

#include "common/bson_validate.h"

namespace cairn::wire::internal {

Result<BsonView> ReadDocument(ByteReader& r, std::string_view where) {
  if (r.remaining() < 4) {
    return Status(ErrorCode::kProtocolError, "truncated " + std::string(where) + ": " +
                                                 std::to_string(r.remaining()) +
                                                 " bytes left, too few for a BSON length");
  }
  const int32_t declared = LoadI32LE(r.position());
  if (declared > kMaxInternalBsonObjectSize) {
    return ObjectTooLarge(static_cast<size_t>(declared), r.position(), r.remaining());
  }
  ByteReader doc(nullptr, 0);
  if (declared < 5 || !r.ReadSub(static_cast<size_t>(declared), &doc)) {
    // Shorter than a document, or longer than its section: mongod's validation of what is left
    // answers InvalidBSON ("BSON data has to be at least 5 bytes", "Incorrect BSON length").
    return ValidateBson(r.position(), r.remaining());
  }
  // mongod answers a validation failure as is, without saying which section held it.
  CAIRN_RETURN_IF_ERROR(ValidateBson(doc.position(), doc.remaining()));
  return BsonView(doc.position(), doc.remaining());
}

}  // namespace cairn::wire::internal
