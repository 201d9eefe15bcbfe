// Operand: the small subset of aggregation expressions this first pipeline evaluates — a
// constant (any literal, {$literal: v}, {}), or a field path "$a.b" with MongoDB's
// ExpressionFieldPath semantics (a path through an array yields the array of what each element
// document yields). Everything else is refused at parse time with a precise error: MongoDB's own
// codes for malformed input (16872 "'$' by itself…", FieldPath 15998/16410/40353, 15983, 168
// "Unrecognized expression"), BadValue "… is not supported by Cairn yet" for real expressions,
// variables and document/array expressions. query/expression/ replaces this when it lands.
// Immutable after Parse; Evaluate() is thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <bson/bson.h>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

class Operand {
 public:
  // Parses an expression operand (Expression::parseOperand).
  static Result<Operand> Parse(const bson_iter_t* value);

  bool is_constant() const { return constant_ != nullptr; }

  // Evaluates against `doc`: positions *value on the result and returns true, or returns false
  // when the result is missing. The result points into `doc`, into the Operand (constants), or
  // into *scratch (values built from arrays), so it is valid while those are unchanged.
  bool Evaluate(BsonView doc, BsonDoc* scratch, bson_iter_t* value) const;

 private:
  std::shared_ptr<const BsonDoc> constant_;  // {"": v} when constant
  std::vector<std::string> path_;            // field path components otherwise
};

// The MongoDB 7.0 expression operator names ($add, $concat, ...), to tell a real expression
// Cairn lacks from a misspelt one.
bool IsKnownExpressionOperator(std::string_view name);

}  // namespace cairn::query
