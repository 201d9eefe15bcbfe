// Validation of untrusted BSON (every document a client sends, every record read back) and the
// nesting limits MongoDB puts on BSON: maxBSONDepth for anything the server parses, and the
// lower limit for stored documents. Iterative: no input depth can exhaust the stack.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn {

// maxBSONDepth (mongod's BSONDepth): the deepest nesting of objects and arrays in any BSON the
// server accepts. Default 200; settable only at startup (--setParameter maxBSONDepth=N), within
// [kMinBsonDepth, kMaxBsonDepthCeiling].
inline constexpr int32_t kDefaultMaxBsonDepth = 200;
inline constexpr int32_t kMinBsonDepth = 21;
inline constexpr int32_t kMaxBsonDepthCeiling = 1000;
// Stored documents may be this many levels shallower than maxBSONDepth (mongod's
// BSONDepth::kExtraSystemDepthLevels: room for the wrapping an oplog entry adds).
inline constexpr int32_t kExtraSystemDepthLevels = 20;

int32_t MaxBsonDepth();
// The depth limit for stored documents: MaxBsonDepth() - 20 (180 by default).
int32_t MaxStorageDepth();
// Called once at startup, before any connection (not thread-safe against readers).
Status SetMaxBsonDepth(int32_t depth);

// Validates untrusted bytes as one BSON document of exactly `size` bytes, with mongod's checks
// (src/mongo/bson/bson_validate.cpp): the document and every nested document's length, every
// terminator byte (a nested document whose last byte is not 0x00 is refused), element types,
// string lengths and their NUL, bool values 0/1, code-with-scope sizes, and nesting up to
// MaxBsonDepth() (Overflow 15 "BSONObj exceeds maximum nested object depth" beyond). Other
// failures are InvalidBSON 22 with mongod's reason and context ("... in element with field
// name 'a.b' in object with _id: 1"). UTF-8 is not checked, as mongod does not check it.
//
// Why not libbson's bson_validate: it misses a nested document's terminator byte (the crash
// this check exists for), recurses once per level with no limit, rejects invalid UTF-8 field
// names that mongod accepts, and costs ~1.15 us per 220-byte document (measured here), half an
// insert's whole server-side cost; this walk is one pass over the bytes.
Status ValidateBson(const uint8_t* data, size_t size);

// mongod's BSONObjectTooLarge 10334 for a document of `size` bytes (BSONObj::_assertInvalid):
// "BSONObj size: 16793601 (0x1004001) is invalid. Size must be between 0 and 16793600(16MB)
// First element: _id: 1". The first element is read from `data` (`available` bytes, which need
// not have been validated) and shown only when it is whole, valid and short.
Status ObjectTooLarge(size_t size, const uint8_t* data, size_t available);

// Whether a document may be stored: its nesting is at most MaxStorageDepth() levels (an empty
// object or array adds no level). Overflow otherwise, with mongod's message for inserts
// ("cannot insert document because it exceeds 180 levels of nesting") or for updates and
// replacements ("Document exceeds maximum nesting depth of 180").
enum class StorageDepthCheck { kInsert, kUpdate };
Status CheckStorageDepth(BsonView document, StorageDepthCheck kind);

// The nesting depth of valid BSON (the document itself is 1, each embedded document or array
// one more, empty ones too unless kNotCounted), counted without recursion; stops counting once
// past `stop_above`.
enum class EmptyLevels { kCounted, kNotCounted };
int NestingDepth(BsonView document, int stop_above, EmptyLevels empty = EmptyLevels::kCounted);

}  // namespace cairn
