// Reading a spec file (tests/spec/README.md, "Values"): JSON whose values may be Extended JSON.
// Only a document that is exactly one of Extended JSON's value forms ({"$oid": ...},
// {"$numberLong": ...}, {"$date": ...}, {"$binary": {...}}, ...) becomes that value, as the first
// and only field of its document; every other document stays a document, so the query operators
// {"$type": ...} and {"$regex": ..., "$options": ...} are what they say (libbson's own reader
// takes both for legacy Extended JSON). A plain number is an int32 when it is an integer that
// fits, an int64 when it is a larger integer, and a double when written with '.' or an exponent.
// run.mjs reads the files by the same rules.
#pragma once

#include <string>
#include <string_view>

#include "common/bson_doc.h"

namespace cairn::spec {

// Parses `text`, one JSON object, into `out`. False with `error` ("line 3, column 7: ...") when
// it is not valid JSON, repeats a field name, or holds a malformed Extended JSON value.
bool ParseSpecJson(std::string_view text, BsonDoc* out, std::string* error);

}  // namespace cairn::spec
