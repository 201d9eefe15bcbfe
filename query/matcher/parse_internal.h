// Private to query/matcher: the pieces of the filter parser shared between parse_filter.cc (the
// driver and the operator tables) and the operator families in ops/*.cc. Follows MongoDB's
// expression_parser.cpp: parse() for a filter document, parseSub() for an operator document
// ({$gt: 1, $lt: 5}) on one path, and one parser per operator.
// To add an operator: write its parser in ops/<family>.cc, declare it here, and move its row in
// parse_filter.cc's table from "known, not supported yet" to the parser.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"
#include "common/string_comparator.h"
#include "query/matcher/match_expression.h"

namespace cairn::query {
class ExpressionContext;  // query/expression/expression.h
}  // namespace cairn::query

namespace cairn::query::internal {

// Where the parser stands (MongoDB's DocumentParseLevel): $where, $text and $expr only apply to
// the top-level document.
enum class ParseLevel { kPredicateTopLevel, kUserDocumentTopLevel, kUserSubDocument };

// What the parser carries down the filter, passed by value to every parser: where it stands,
// and the command's ExpressionContext. The context travels as an argument rather than through
// per-thread state, so a parse sees exactly what its caller gave it.
struct FilterParseState {
  ParseLevel level;
  // The context Matcher::Parse was given (it outlives the parse): $expr's `let` variables and
  // $$NOW, and the collation. May hold null: no variables, strings compare binary.
  const std::shared_ptr<const ExpressionContext>& context;

  // The same state at another level.
  FilterParseState At(ParseLevel next) const { return {next, context}; }
  // The collation strings compare under (nullptr: binary): comparison and $in nodes keep it.
  const StringComparator* collator() const;
};

// A filter document ({a: 1, $or: [...]}) → an $and of its parts, unwrapped when it has one.
Result<MatchExpressionPtr> ParseDocument(BsonView filter, FilterParseState state);

// An operator document on `path` ({$gt: 1, $lt: 5}); appends one node per operator to `root`.
Status ParseOperatorDocument(std::string_view path, BsonView operators, ListMatchExpression* root,
                             FilterParseState state);

// MongoDB's isExpressionDocument: a non-empty document whose first field starts with '$' and
// which is not a DBRef ({$ref, $id}, or with allow_incomplete_dbref any of $ref/$id/$db).
bool IsExpressionDocument(const bson_iter_t* value, bool allow_incomplete_dbref);

// True for the names of operators that stand where a field name does ("$and", "$comment", ...).
bool IsPathlessOperator(std::string_view name);
// True for the names of operators that apply to a path ("$gt", "$in", ...; not "$not").
bool IsPathOperator(std::string_view name);

// One operator of an operator document: {path: {<op>: <value>, ...}}.
struct OperatorArgs {
  std::string_view path;
  const bson_iter_t* op;  // positioned on the operator element
  BsonView context;       // the whole operator document
  FilterParseState state;
};

// A parser for one path operator; a null result adds nothing ($options beside $regex).
using OperatorParser = Result<MatchExpressionPtr> (*)(const OperatorArgs& args);

// A parser for one top-level operator ($and, $or, $nor, $alwaysTrue, ...).
using PathlessParser = Result<MatchExpressionPtr> (*)(const bson_iter_t* op,
                                                      FilterParseState state);

// Errors shared by the families.
Status NotSupportedYet(std::string_view op);  // BadValue "operator $x is not supported yet"
// The element rendered as MongoDB prints a BSONElement in messages: `key: value`.
std::string ElementToString(const bson_iter_t* element);
// A number as MongoDB's `<< elt.number()` prints it ("100", "1.5").
std::string NumberToString(const bson_iter_t* element);
// MongoDB's BSONElement::parseIntegerElementToLong (FailedToParse with MongoDB's reasons).
Result<int64_t> ParseIntegerElementToLong(const bson_iter_t* element);
// MongoDB's BSONElement::parseIntegerElementToNonNegativeInt: the error is FailedToParse with
// MongoDB's reason ("Expected a non-negative number in: $size: -1", ...).
Result<int> ParseNonNegativeInt(const bson_iter_t* element);
// MongoDB's BSONElement::parseIntegerElementToNonNegativeLong (FailedToParse, same reasons).
Result<int64_t> ParseNonNegativeLong(const bson_iter_t* element);
// The BSON truthiness MongoDB's trueValue() gives (numbers non-zero, true, non-null...).
bool TrueValue(const bson_iter_t* element);

// ---- ops/comparison.cc ----
Result<MatchExpressionPtr> ParseEq(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseNe(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseLt(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseLte(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseGt(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseGte(const OperatorArgs& args);
// Implicit equality {path: value} (also used by $all and DBRef fields), under the collation of
// `state`.
Result<MatchExpressionPtr> MakeEquality(std::string_view path, const bson_iter_t* value,
                                        FilterParseState state);

// ---- ops/in.cc ----
Result<MatchExpressionPtr> ParseIn(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseNin(const OperatorArgs& args);

// ---- ops/exists.cc ----
Result<MatchExpressionPtr> ParseExists(const OperatorArgs& args);

// ---- ops/logical.cc ----
Result<MatchExpressionPtr> ParseAnd(const bson_iter_t* op, FilterParseState state);
Result<MatchExpressionPtr> ParseOr(const bson_iter_t* op, FilterParseState state);
Result<MatchExpressionPtr> ParseNor(const bson_iter_t* op, FilterParseState state);
Result<MatchExpressionPtr> ParseAlwaysTrue(const bson_iter_t* op, FilterParseState state);
Result<MatchExpressionPtr> ParseAlwaysFalse(const bson_iter_t* op, FilterParseState state);
Result<MatchExpressionPtr> ParseNot(const OperatorArgs& args);

// ---- ops/text.cc ----
Result<MatchExpressionPtr> ParseText(const bson_iter_t* op, FilterParseState state);

// ---- ops/elem_match.cc, size.cc, all.cc, type.cc, mod.cc ----
Result<MatchExpressionPtr> ParseElemMatch(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseSize(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseAll(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseType(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseMod(const OperatorArgs& args);

// The type names of $type and $jsonSchema's bsonType ("string", "objectId", ...), or of
// $jsonSchema's type ("object", "boolean", ...); both take "number" for every numeric type.
enum class TypeAliases { kBson, kJsonSchema };
// Adds the type `alias` names to `set`: BadValue "Unknown type name alias: x" (with MongoDB's
// own wording for "missing") when it names none.
Status AddTypeAlias(std::string_view alias, TypeAliases aliases, MatcherTypeSet* set);

// ---- ops/regex.cc ----
// {$regex: ..., $options: ...} on a path (the whole operator document is the context).
Result<MatchExpressionPtr> ParseRegex(const OperatorArgs& args);
// $options: validated and parsed with its $regex, so it adds nothing itself.
Result<MatchExpressionPtr> ParseOptions(const OperatorArgs& args);
// A regex node from a BSON regex value ({a: /x/i}, $not: /x/, $in and $all members).
Result<std::unique_ptr<RegexMatchExpression>> MakeRegex(std::string_view path,
                                                        const bson_iter_t* regex_value);
// A regex node from a pattern and MongoDB option letters, with MongoDB's errors (51108,
// embedded null byte, 51091).
Result<std::unique_ptr<RegexMatchExpression>> MakeRegex(std::string_view path,
                                                        std::string_view pattern,
                                                        std::string_view flags);
// A filter's search of `subject` (the $regex test, $jsonSchema's patternProperties), with
// MatchesSingleElement's contract: true when found, and true with *error set to 51156 naming
// $regex when PCRE2 ends the search with an error.
bool FilterRegexSearch(const Regex& regex, std::string_view subject, Status* error);

// ---- ops/bits.cc ----
Result<MatchExpressionPtr> ParseBitsAllSet(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseBitsAllClear(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseBitsAnySet(const OperatorArgs& args);
Result<MatchExpressionPtr> ParseBitsAnyClear(const OperatorArgs& args);

// ---- ops/where.cc ----
Result<MatchExpressionPtr> ParseWhere(const bson_iter_t* op, FilterParseState state);

// ---- ops/expr.cc ----
Result<MatchExpressionPtr> ParseExpr(const bson_iter_t* op, FilterParseState state);

// ---- json_schema/ ----
Result<MatchExpressionPtr> ParseJsonSchema(const bson_iter_t* op, FilterParseState state);

}  // namespace cairn::query::internal
