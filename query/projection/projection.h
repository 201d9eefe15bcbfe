// Projection: find's projection argument — inclusion or exclusion of top-level and dotted
// fields, the _id rules (included unless excluded), computed fields (aggregation expressions:
// {x: {$add: ["$a", 1]}}, {x: "$a.b"}, {x: "literal"}, nested expression objects), and MongoDB's
// errors on mixing them (31254 "Cannot do exclusion on field x in inclusion projection", 31253
// the reverse, 31252/31310 an expression in an exclusion). find and findAndModify (ParseFind)
// also take the find-only operators: $slice (n or [skip, limit], on any path; other forms are
// the aggregation $slice expression), $elemMatch (top-level fields: the first matching element)
// and the positional `field.$` (the element of the first array on the path that the query
// matched), with MongoDB's rules for combining them (projection_parser.cpp,
// projection_executor_builder.cpp, projection_executor_utils.cpp).
// Immutable after Parse (which copies the spec); Apply() is thread-safe.
#pragma once

#include <memory>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

class ExpressionContext;  // query/expression/expression.h
class Matcher;

class Projection {
 public:
  // Parses a projection spec ({} = return whole documents) as aggregation's $project does: the
  // find-only operators are refused (31324 for `field.$`, InvalidPipelineOperator 168 for
  // $elemMatch). Expressions are parsed and evaluated with `context` (the command's `let`
  // variables, $$NOW and collation; nullptr: none).
  static Result<Projection> Parse(BsonView spec,
                                  std::shared_ptr<const ExpressionContext> context = nullptr);
  // Parses a find or findAndModify projection. `query` is the command's filter: the positional
  // `field.$` requires a query predicate on field's top-level name (31277) and takes its element
  // from matching `query` against each document (Matcher::Matches with MatchDetails).
  // `context` as for Parse; $elemMatch also compares strings under its collation.
  static Result<Projection> ParseFind(BsonView spec, std::shared_ptr<const Matcher> query,
                                      std::shared_ptr<const ExpressionContext> context = nullptr);

  // True when Apply would return the document unchanged.
  bool IsIdentity() const;

  // Appends the projected fields of `doc` to `out` (an empty, initialised bson_t), preserving
  // the document's field order; computed fields ($elemMatch included) come after the included
  // fields in spec order, or replace a field of the document in place, as MongoDB's
  // ProjectionNode::applyExpressions does. Fails for an expression that fails to evaluate (its
  // error), and for a positional projection whose array element cannot be found: 51246
  // "positional operator '.$' couldn't find a matching element in the array", 51247 "positional
  // operator '.$' element mismatch".
  Status Apply(BsonView doc, bson_t* out) const;

  struct Node;  // the parsed tree (projection.cc)

 private:
  static Projection FromTree(std::shared_ptr<const Node> root);

  std::shared_ptr<const Node> root_;
  bool identity_ = true;
};

}  // namespace cairn::query
