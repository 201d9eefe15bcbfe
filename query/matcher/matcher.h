// Matcher: a parsed query filter and the test of whether a document matches it, with MongoDB's
// semantics for arrays (a predicate matches an array if any element or the whole array does),
// dotted paths through embedded documents and arrays of documents, missing versus null, and
// numbers compared by value across types.
//
// Supported: implicit equality, $eq $ne $gt $gte $lt $lte $in $nin $and $or $nor $not $exists
// $elemMatch $size $all $type $mod $regex (PCRE2) $bitsAllSet $bitsAllClear $bitsAnySet
// $bitsAnyClear $jsonSchema $comment, and $text (parsed here, answered by the server's text-index
// search: a TextMatchExpression, text_expression.h); $where is refused as a mongod without
// JavaScript refuses it. Each operator family lives in its own file under matcher/ops/
// ($jsonSchema in matcher/json_schema/). Unknown operators answer BadValue "unknown operator:
// $foo"; a known operator not implemented (geo, ...) answers BadValue naming it.
//
// A Matcher owns a copy of its filter, so it may outlive the request buffer (cursors keep it
// across getMore). Immutable after Parse; Matches() is thread-safe.
#pragma once

#include <memory>
#include <string>

#include "common/bson_doc.h"
#include "common/status.h"
#include "common/string_comparator.h"
#include "query/matcher/match_details.h"

namespace cairn::query {

class MatchExpression;    // the parsed tree: matcher/match_expression.h
class ExpressionContext;  // query/expression/expression.h

// Whether an equality on _id with `value` is answered exactly by a point lookup in the _id index:
// not a regex, an array or undefined, not a document with $-operators; and, under a collation
// (`collator` not null), nothing that holds strings (string, symbol, document), because the _id
// index compares binary and would miss equal-under-the-collation _ids. Serves Matcher::IdEquality,
// find's {_id: v} fast path and $lookup's probe of a foreign _id.
bool IsIdPointLookupValue(const bson_iter_t* value, const StringComparator* collator);

class Matcher {
 public:
  // Parses `filter` (copied). Errors with MongoDB's codes and wording.
  // `context` holds the command's `let` variables and $$NOW for $expr (none: no variables), and
  // its collation (context->collator()), under which the filter compares strings.
  static Result<Matcher> Parse(BsonView filter,
                               std::shared_ptr<const ExpressionContext> context = nullptr);

  // True when `doc` satisfies the filter; or the error a $expr clause met evaluating it, which
  // the caller answers with (MongoDB fails the operation: an error is never a non-match).
  Result<bool> Matches(BsonView doc) const;
  // The same, also recording where in an array the match was made (details->elem_match_key,
  // reset first) for the positional `$`. Slower than Matches(doc): call it only when needed.
  Result<bool> Matches(BsonView doc, MatchDetails* details) const;

  // True for the empty filter {} (every document matches).
  bool MatchesAll() const;

  // When the filter pins _id to one value with a top-level equality ({_id: v}, {_id: {$eq: v}},
  // or either inside a top-level $and) and v is a scalar, ObjectId, or a document without
  // $-operators (not a regex, not an array), positions *value on it (a view into the Matcher's
  // own copy) and returns true: the server then does a point lookup on the _id index. Under a
  // collation, a value that holds strings (string, symbol, document) is not one: the _id index
  // is binary, so equal-under-the-collation _ids would be missed.
  bool IdEquality(bson_iter_t* value) const;

  // The query's collation (nullptr: binary, "simple"). An index with binary keys may answer
  // string, symbol, document or array bounds only when this is nullptr (MongoDB uses an index
  // only when its collation matches the query's).
  const StringComparator* collator() const { return collator_.get(); }

  // The filter as given.
  BsonView filter() const;

  // The parsed tree (matcher/match_expression.h), for readers of the filter's shape (the index
  // planner, partial index rules). Valid while this Matcher lives.
  const MatchExpression* root() const { return root_.get(); }

 private:
  // The filter's bytes (a plain buffer: a BsonDoc would cost an over-aligned bson_t allocation
  // per parse, and only the bytes are needed).
  std::shared_ptr<const std::string> filter_;
  std::shared_ptr<const MatchExpression> root_;
  // Keeps alive the collator the tree's comparison nodes point to.
  std::shared_ptr<const StringComparator> collator_;
};

}  // namespace cairn::query
