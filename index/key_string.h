// KeyString: the one order-preserving encoding of BSON values into index key bytes.
// Invariant: for values a and b, CompareValues(a, b) has the sign of memcmp(Encode(a), Encode(b))
// (bytewise, shorter prefix first) — MongoDB's canonical type order, and numbers by value across
// int32/int64/double/decimal128, so 1, NumberLong(1), 1.0 and NumberDecimal("1") are the same key
// bytes. Descending fields invert their bytes. Compound keys concatenate field encodings; each
// field's encoding is self-delimiting so concatenation preserves order field by field.
// The byte format is written down in index/README.md. Stateless; thread-safe.
#pragma once

#include <bson/bson.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::index {

// Appends the encoding of the value at `it` (ascending, or descending with all bytes inverted).
void AppendValue(std::string* out, const bson_iter_t* it, bool descending = false);

// Appends the encoding of null (what a missing field indexes as).
void AppendNull(std::string* out, bool descending = false);

// Appends the encoding of undefined (what an empty array indexes as, as in MongoDB).
void AppendUndefined(std::string* out, bool descending = false);

// Splits a key made of `descending.size()` concatenated fields into views of each field's bytes
// (descending fields stay inverted), without decoding: how an index scan checks one field of a
// compound key against its bounds. Reuses *fields. False on malformed or trailing bytes.
bool SplitKey(std::string_view key, const std::vector<bool>& descending,
              std::vector<std::string_view>* fields);

// Decodes one key made of `fields` concatenated values (ascending flags given per field) into a
// document {"": v1, "": v2, …}. Numbers decode to a value equal to the original (the type may
// differ: the encoding keeps value, not type). InvalidBSON/BadValue on malformed bytes.
Result<BsonDoc> DecodeKey(std::string_view bytes, const std::vector<bool>& descending);

}  // namespace cairn::index
