// Matching a command's reply against a spec file's expectation (tests/spec/README.md, "Matching"):
// the unified test format's rules, as tests/spec/run.mjs applies them too.
//   - The root document may hold fields the expectation does not name; nested documents (and the
//     documents inside arrays) must hold exactly the expected fields, in any order. `$$matchAsRoot`
//     lets a nested document have extra fields.
//   - int32, int64 and double compare by value; Decimal128 only equals a Decimal128 with the same
//     string form; every other type must be the same type with the same value.
//   - Special operators: {$$exists: bool} (as a field's value), {$$type: name | [names]},
//     {$$unsetOrMatches: value}, {$$matchAsRoot: document}.
#pragma once

#include <bson/bson.h>

#include <string>

#include "common/bson_doc.h"

namespace cairn::spec {

// "" when `actual` matches `expected` with `expected` as the root document; otherwise what
// differs first, with its path ("cursor.firstBatch.0.a: expected 1, got \"x\"").
std::string MatchRoot(BsonView expected, BsonView actual);

// The same for one value; `actual` is null when the field is absent. `root` allows extra fields
// in a document at this level.
std::string MatchValue(const bson_iter_t* expected, const bson_iter_t* actual, bool root,
                       const std::string& path);

// The value at `it` as relaxed Extended JSON (for messages).
std::string ValueJson(const bson_iter_t* it);

}  // namespace cairn::spec
