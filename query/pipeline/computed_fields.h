// ComputedFields: fields set to the values of expressions, with MongoDB's rules for where they
// land (the computed-field half of its InclusionNode, which $addFields/$set and the computed
// fields of $project share): an existing field is replaced in place, a new one is appended (in
// spec order); a dotted path descends into an embedded document, into every element of an array,
// and replaces a scalar or missing value on the way with a new document; a value that evaluates
// to missing ($$REMOVE) removes the field. Expressions read $$ROOT, the document the stage
// received. Used by the $addFields and $project stages and by pipeline-style updates.
// Immutable after parsing; Apply() is thread-safe given a Variables per caller.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/expression/expression.h"

namespace cairn::query {

class ComputedFields {
 public:
  // An $addFields / $set specification: {path: <expression>, ...}, where an object whose first
  // field is not an operator is a nested specification ({a: {b: 1}} sets a.b) and {} sets an
  // empty document. Field path errors (FieldPath's codes) and path collisions (31249, 31250).
  static Result<ComputedFields> Parse(BsonView spec, ParseContext& ctx);

  ComputedFields();

  // Adds `expr` as the value of the dotted `path` (already validated); 31249/31250 on a path
  // collision.
  Status Add(std::string_view path, ExpressionPtr expr);

  bool empty() const;

  // Appends to `out` (an empty, initialised bson_t) the document `target` with the computed
  // fields set; expressions are evaluated with `vars` (whose $$ROOT the caller has set).
  Status Apply(BsonView target, Variables* vars, bson_t* out) const;

  struct Node;  // the tree of paths (computed_fields.cc)

 private:
  std::shared_ptr<Node> root_;
};

}  // namespace cairn::query
