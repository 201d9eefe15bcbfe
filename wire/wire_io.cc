// The bounded, validated read of one BSON document out of a frame (wire_io.h's ReadDocument);
// shared by the OP_MSG and OP_QUERY parsers.
#include "wire/wire_io.h"

namespace cairn::wire::internal {

Result<BsonView> ReadDocument(ByteReader& r, std::string_view where) {
  if (r.remaining() < 4) {
    return Status(ErrorCode::kProtocolError,
                  "truncated " + std::string(where) + ": " + std::to_string(r.remaining()) +
                      " bytes left, too few for a BSON length");
  }
  const int32_t declared = LoadI32LE(r.position());
  if (declared < 5) {
    return Status(ErrorCode::kInvalidBSON, "invalid BSON length " + std::to_string(declared) +
                                               " in " + std::string(where));
  }
  if (declared > kMaxInternalBsonObjectSize) {
    return Status(ErrorCode::kBSONObjectTooLarge,
                  "BSONObj size: " + std::to_string(declared) +
                      " is invalid. Size must be between 0 and " +
                      std::to_string(kMaxInternalBsonObjectSize) + " in " + std::string(where));
  }
  ByteReader doc(nullptr, 0);
  if (!r.ReadSub(static_cast<size_t>(declared), &doc)) {
    return Status(ErrorCode::kProtocolError,
                  "BSON document of " + std::to_string(declared) + " bytes overruns the " +
                      std::string(where) + " (" + std::to_string(r.remaining()) + " bytes left)");
  }
  Status valid = ValidateBson(doc.position(), doc.remaining());
  if (!valid.ok()) return valid.WithContext(std::string(where));
  return BsonView(doc.position(), doc.remaining());
}

}  // namespace cairn::wire::internal
