// Index specs as createIndexes receives them: MongoDB's validation of a requested spec (the
// rules of index_key_validate.cpp's validateIndexSpec, createIndexes' _id/name/TTL rules and
// IndexCatalog::_isSpecOk), the allowed partialFilterExpression operators, the normal form a
// spec is stored and listed in, and how two specs compare for the "already exists" and conflict
// rules (identical, equivalent, different). Stateless; thread-safe.
#pragma once

#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::index {

// The spec without the fields an index spec may not have (createIndexes'
// ignoreUnknownIndexOptions).
BsonDoc RemoveUnknownIndexSpecFields(BsonView requested);

// Step 1 (every spec of the command, in order): field names, field types, the key pattern and
// the partial filter's syntax, required key and name, the reserved names "_id_" and "*", and the
// _id index's allowed fields. Errors carry MongoDB's codes and "Error in specification <spec> ::
// caused by :: ..." context. Returns the spec with `v: 2` appended when absent and `ns` removed.
Result<BsonDoc> ValidateIndexSpec(BsonView requested);

// Step 2 (every spec, after step 1 passed for all): TTL options as createIndexes checks them
// (expireAfterSeconds a non-negative 32-bit number; single-field indexes only), on the spec as
// requested.
Status ValidateIndexSpecTtl(BsonView requested);

// Step 3 (each spec when it is about to be built): the catalog's checks (non-empty name, sparse
// with partialFilterExpression, the operators a partial filter may use, kinds and options Cairn
// does not support yet), then the stored form: {v, unique: true?, hidden: true?, key, name, the
// remaining fields as given}, as MongoDB's _fixIndexSpec writes it.
Result<BsonDoc> FinalizeIndexSpec(BsonView validated);

// MongoDB 7.0's partial filter rules: $eq, $gt/$gte/$lt/$lte, $exists: true, $type, $in, $and and
// $or (nested at most 4 deep); anything else is CannotCreateIndex 67 "Expression not supported in
// partial index: <expression>". $where, $expr, $text and $jsonSchema are "not allowed in this
// context". Matcher parse errors are returned as the matcher gives them.
Status ValidatePartialFilter(BsonView filter);

enum class SpecMatch {
  kDifferent,   // another index (key pattern or a uniquely identifying option differs)
  kEquivalent,  // same key and identifying options (unique, sparse, partial filter), other
                // options differ: the two cannot coexist
  kIdentical,   // same in every option but the name and version
};

// Compares two stored-form specs (names are not compared).
SpecMatch CompareIndexSpecs(BsonView candidate, BsonView existing);

}  // namespace cairn::index
