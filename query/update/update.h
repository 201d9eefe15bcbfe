// Update: a parsed update argument — an operator document ({$set: …, $inc: …}) or a
// replacement document — and its application to one document, with MongoDB's rules:
// ConflictingUpdateOperators 40 for overlapping paths, ImmutableField 66 when _id would change,
// TypeMismatch 14 for $inc on a non-number, PathNotViable 28 for a path through a non-document,
// missing paths created and arrays padded, field order preserved, no-op detection (nModified 0).
//
// Supported now: $set $setOnInsert $unset $inc $mul $min $max $rename $currentDate $push (with
// $each $position $sort $slice) $addToSet (with $each) $pop $pull (value or condition) $pullAll,
// one modifier per file under update/mods/. Not yet (precise BadValue "... is not supported
// yet"): $bit, the positional $ and $[] paths, arrayFilters, pipeline updates, decimal128
// arithmetic. Unknown modifiers answer FailedToParse "Unknown modifier: $foo. Expected a valid
// update modifier or pipeline-style update specified as an array"; an empty operand ({$set: {}})
// is a no-op, as in MongoDB 5.0+. New fields are appended in MongoDB's order (lexicographic,
// numeric names numerically), modified fields stay in place.
//
// Immutable after Parse (which copies its input); Apply() is thread-safe.
#pragma once

#include <memory>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

class Update {
 public:
  // `update` is the u/update field: operator document or replacement document.
  static Result<Update> Parse(BsonView update);

  bool is_replacement() const { return replacement_; }

  struct ApplyOptions {
    bool is_upsert_insert = false;  // the document is being created by an upsert ($setOnInsert)
  };

  // Computes the updated form of `doc` into `out` (an empty, initialised bson_t). Returns true
  // when the result differs from `doc` (false: a no-op; `out` then holds a copy of `doc`).
  // For a replacement, `out` is the replacement with doc's _id kept first (ImmutableField 66 if
  // the replacement's _id differs); it is a no-op only when byte-identical to `doc`, as in
  // MongoDB. For operators, _id may not be modified (ImmutableField 66).
  // Upserts: pass the SeedFromFilter document with is_upsert_insert; $setOnInsert then applies,
  // _id is moved first and checked storable (InvalidIdField 53). For a replacement only the
  // seed's _id is kept (MongoDB extracts only _id from the filter for replacement upserts).
  Result<bool> Apply(BsonView doc, bson_t* out, const ApplyOptions& options) const;

  // The document an upsert starts from: the filter's top-level equality predicates ({a: 1},
  // {a: {$eq: 1}}, "b.c": 2 → {b: {c: 2}}, and those inside top-level $and), with operators,
  // $or and the like ignored. NotSingleValueField 54 / other MongoDB errors when the filter
  // sets the same path twice. A single-valued $in, the values of $all and a one-clause $or
  // seed too (MongoDB canonicalises them into equalities). Paths are set in sorted order.
  static Result<BsonDoc> SeedFromFilter(BsonView filter);

  struct Plan;  // the parsed modifiers (update.cc)

 private:
  std::shared_ptr<const BsonDoc> source_;
  std::shared_ptr<const Plan> plan_;
  bool replacement_ = false;
};

}  // namespace cairn::query
