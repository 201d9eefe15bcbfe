// Matcher: a parsed query filter and the test of whether a document matches it, with MongoDB's
// semantics for arrays (a predicate matches an array if any element or the whole array does),
// dotted paths through embedded documents and arrays of documents, missing versus null, and
// numbers compared by value across types.
//
// Supported now: implicit equality, $eq $ne $gt $gte $lt $lte $in $nin $and $or $nor $not
// $exists, plus $elemMatch/$size/$all/$type/$regex/$mod when they exist in the tree (the query
// issue completes the language; each operator family lives in its own file under matcher/ so it
// extends without a rewrite). Unknown operators answer BadValue "unknown operator: $foo"; a
// known operator not yet implemented answers BadValue naming it.
//
// A Matcher owns a copy of its filter, so it may outlive the request buffer (cursors keep it
// across getMore). Immutable after Parse; Matches() is thread-safe.
#pragma once

#include <memory>
#include <string>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

class MatchExpression;  // the parsed tree: matcher/match_expression.h

class Matcher {
 public:
  // Parses `filter` (copied). Errors with MongoDB's codes and wording.
  static Result<Matcher> Parse(BsonView filter);

  // True when `doc` satisfies the filter.
  bool Matches(BsonView doc) const;

  // True for the empty filter {} (every document matches).
  bool MatchesAll() const;

  // When the filter pins _id to one value with a top-level equality ({_id: v}, {_id: {$eq: v}},
  // or either inside a top-level $and) and v is a scalar, ObjectId, or a document without
  // $-operators (not a regex, not an array), positions *value on it (a view into the Matcher's
  // own copy) and returns true: the server then does a point lookup on the _id index.
  bool IdEquality(bson_iter_t* value) const;

  // The filter as given.
  BsonView filter() const;

 private:
  // The filter's bytes (a plain buffer: a BsonDoc would cost an over-aligned bson_t allocation
  // per parse, and only the bytes are needed).
  std::shared_ptr<const std::string> filter_;
  std::shared_ptr<const MatchExpression> root_;
};

}  // namespace cairn::query
