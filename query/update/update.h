// Update: a parsed update argument — an operator document ({$set: …, $inc: …}) or a
// replacement document — and its application to one document, with MongoDB's rules:
// ConflictingUpdateOperators 40 for overlapping paths, ImmutableField 66 when _id would change,
// TypeMismatch 14 for $inc on a non-number, PathNotViable 28 for a path through a non-document,
// missing paths created and arrays padded, field order preserved, no-op detection (nModified 0).
//
// Supported now: $set $setOnInsert $unset $inc $mul $min $max $rename $currentDate $push (with
// $each $position $sort $slice) $addToSet (with $each) $pop $pull (value or condition) $pullAll
// $bit, one modifier per file under update/mods/; in any of their paths the positional "$"
// (the array element the query matched), "$[]" (every element) and "$[<identifier>]" (the
// elements its arrayFilters entry matches), nested and combined. Also pipeline-style updates
// (ParsePipeline). Unknown modifiers answer FailedToParse
// "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified
// as an array"; an empty operand ({$set: {}}) is a no-op, as in MongoDB 5.0+. New fields are
// appended in MongoDB's order (lexicographic, numeric names numerically), modified fields stay
// in place.
//
// Immutable after Parse (which copies its input); Apply() is thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

class ExpressionContext;  // query/expression/expression.h
class Pipeline;           // query/pipeline/pipeline.h

class Update {
 public:
  // `update` is the u/update field: operator document or replacement document.
  static Result<Update> Parse(BsonView update);
  // With the statement's arrayFilters: a BSON array of filter documents (the array's bytes
  // viewed as a document; empty for none). Filter errors as MongoDB (see ParseArrayFilters in
  // update_internal.h); a filter no "$[<identifier>]" uses is FailedToParse 9 "The array
  // filter for identifier 'i' was not used in the update { ... }", an identifier without a
  // filter BadValue 2 "No array filter found for identifier 'i' in path 'a.$[i]'".
  // A replacement ignores the filters (they are still parsed).
  // `context` is the statement's (its `let` variables and collation; nullptr: none): the
  // arrayFilters and $pull conditions compare strings under its collation, as do $addToSet,
  // $pull, $pullAll, $min, $max and $push's $sort when they compare values (MongoDB's
  // UpdateNode::setCollator).
  static Result<Update> Parse(BsonView update, BsonView array_filters,
                              std::shared_ptr<const ExpressionContext> context = nullptr);
  // A pipeline-style update (pipeline_update.cc): `stages` is the bytes of the u/update array
  // of $addFields/$set, $project, $unset, $replaceRoot/$replaceWith stages (others: InvalidOptions
  // 72 "$group is not allowed to be used within an update"), run with the command's `context`
  // (`let` variables, $$NOW). Its result replaces the document as a replacement would, except
  // that top-level '$'-prefixed fields are allowed; an upsert runs it on the filter's seed.
  // `array_filters` must be empty (FailedToParse "arrayFilters may not be specified for
  // pipeline-syle updates", MongoDB's spelling).
  static Result<Update> ParsePipeline(BsonView stages, BsonView array_filters,
                                      std::shared_ptr<const ExpressionContext> context);

  bool is_replacement() const { return replacement_; }
  // True when a path uses the positional "$": Apply then needs ApplyOptions::positional_match,
  // the elemMatchKey of matching the query against the document (Matcher::Matches with
  // MatchDetails); without one it fails with BadValue "The positional operator did not find
  // the match needed from the query." (always so for an upsert's insert).
  bool uses_positional() const;

  struct ApplyOptions {
    bool is_upsert_insert = false;      // the document is being created by an upsert ($setOnInsert)
    std::string_view positional_match;  // the array index "$" stands for; empty: none
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
  // The replacement rules (ObjectReplaceExecutor): `replacement` becomes the document, its _id
  // (else doc's) first, _id unchanged (66), storable; a no-op when byte-identical.
  static Result<bool> ApplyReplacement(BsonView doc, BsonView replacement, bson_t* out,
                                       bool allow_dollar_prefixed_fields);
  Result<bool> ApplyPipeline(BsonView doc, bson_t* out) const;  // pipeline_update.cc
  Result<bool> ApplyOperators(BsonView doc, bson_t* out, const ApplyOptions& options) const;

  std::shared_ptr<const Pipeline> pipeline_;  // pipeline-style updates only
  std::shared_ptr<const BsonDoc> source_;
  std::shared_ptr<const Plan> plan_;
  bool replacement_ = false;
};

}  // namespace cairn::query
