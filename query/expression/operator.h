// Private to query/expression: what the operator families (ops/<family>.cc) share with the parser
// and the operator table (registry.cc) — the node of an operator with positional operands,
// MongoDB's parseArguments and arity rules, and the declaration of every family's parse and
// evaluate functions (the table in registry.cc is the one place that maps names to them).
// To add an operator: write it in its family's file, declare it here, add one row to registry.cc
// (and drop its name from the "known, not supported yet" list there).
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_element.h"
#include "common/status.h"
#include "query/expression/expression.h"
#include "query/expression/number.h"
#include "query/expression/timezone.h"
#include "query/expression/value.h"

namespace cairn::query::ops {

// An operator whose operands are expressions in positional slots ({$add: [a, b]}, and named
// arguments mapped to slots); a null slot is an optional operand that was not given. Immutable;
// `evaluate` reads the operands it needs (lazily, so $and/$or/$cond can short-circuit).
class OperatorExpression : public Expression {
 public:
  using Evaluator = Result<Value> (*)(const OperatorExpression& op, Variables* vars);

  // `foldable`: whether parsing may evaluate the operator once its operands are all constants
  // (MongoDB's optimize() does for most operators, not for $zip, $sortArray, $getField, ...).
  OperatorExpression(std::string_view name, std::vector<ExpressionPtr> operands, Evaluator evaluate,
                     bool foldable = true)
      : name_(name), operands_(std::move(operands)), evaluate_(evaluate), foldable_(foldable) {}

  Result<Value> Evaluate(Variables* vars) const override { return evaluate_(*this, vars); }
  // Foldable and every given operand is a constant.
  bool Foldable() const override;

  std::string_view name() const { return name_; }  // the table's static name, e.g. "$add"
  size_t size() const { return operands_.size(); }
  bool has(size_t i) const { return i < operands_.size() && operands_[i] != nullptr; }
  const Expression& operand(size_t i) const { return *operands_[i]; }
  Result<Value> Eval(size_t i, Variables* vars) const { return operands_[i]->Evaluate(vars); }

  // The command's collation (ExpressionContext::collator()), for the operators that compare
  // strings ($eq, $cmp, ...); nullptr: binary. Set once, while parsing (ParsePositional).
  const StringComparator* collator() const { return collator_.get(); }
  void set_collator(std::shared_ptr<const StringComparator> collator) {
    collator_ = std::move(collator);
  }

 private:
  std::string_view name_;
  std::vector<ExpressionPtr> operands_;
  Evaluator evaluate_;
  bool foldable_;
  std::shared_ptr<const StringComparator> collator_;  // kept alive with the tree
};

// Parses an operator's argument (`arg` is positioned on the {$op: arg} element; `name` is the
// table's static copy of the operator name).
using OperatorParser = Result<ExpressionPtr> (*)(const bson_iter_t* arg, std::string_view name,
                                                 ParseContext& ctx);

// ExpressionNary::parseArguments: an array's elements are the operands, anything else is the
// one operand.
Result<std::vector<ExpressionPtr>> ParseArguments(const bson_iter_t* arg, ParseContext& ctx);
// 16020 "Expression $x takes exactly N arguments. M were passed in."
Status CheckExactArity(std::string_view name, size_t given, size_t expected);
// 28667 "Expression $x takes at least N arguments, and at most M, but K were passed in."
Status CheckArityRange(std::string_view name, size_t given, size_t min, size_t max);

// An operator with positional operands, parsed with parseArguments and checked for arity
// (min == max: exactly; max == kVariadic: any number), evaluated by `evaluate`.
inline constexpr int kVariadic = -1;
Result<ExpressionPtr> ParsePositional(const bson_iter_t* arg, std::string_view name,
                                      ParseContext& ctx, OperatorExpression::Evaluator evaluate,
                                      int min_args, int max_args);

// A named-argument operator's argument must be an object: `it` positioned before its first
// field; false when it is not one.
bool RecurseObjectArgument(const bson_iter_t* arg, bson_iter_t* it);

// The fields of a named-argument operator object ({input, as, cond}), gathered by name so they
// can be parsed in the order the operator needs (cond after as, in after vars), whatever their
// order in the object. For stack use while parsing.
class NamedArguments {
 public:
  // Gathers the fields of the object `arg`; false, with *unknown naming it, at the first field
  // not among `names`.
  bool Collect(const bson_iter_t* arg, std::initializer_list<std::string_view> names,
               std::string_view* unknown);
  // Positions *it on the argument `name`; false when it was not given.
  bool Get(std::string_view name, bson_iter_t* it) const;
  bool Has(std::string_view name) const;

 private:
  static constexpr size_t kMaxArguments = 8;
  std::string_view names_[kMaxArguments];
  BsonElement values_[kMaxArguments];  // not bson_iter_t: see common/bson_element.h
  size_t count_ = 0;
};

inline std::string TypeNameOf(const Value& v) { return std::string(TypeName(v)); }

// The operator table (registry.cc): one row per operator Cairn implements, sorted by name. A
// row either names a parser (named arguments, variables, special rules) or the evaluator and
// arity of an operator with positional operands.
struct OperatorRow {
  std::string_view name;
  OperatorParser parse;                    // or nullptr
  OperatorExpression::Evaluator evaluate;  // when parse is nullptr
  int min_args;
  int max_args;  // kVariadic: no upper bound
};
const OperatorRow* FindOperator(std::string_view name);
// A MongoDB 7.0 operator Cairn does not implement yet ($year, $regexMatch, ...).
bool IsNotSupportedOperator(std::string_view name);
// Both tables strictly sorted and disjoint (checked by a unit test).
bool OperatorTablesAreSorted();

// ---- ops/arithmetic.cc ----
Result<Value> EvalAbs(const OperatorExpression& op, Variables* vars);
Result<Value> EvalAdd(const OperatorExpression& op, Variables* vars);
Result<Value> EvalCeil(const OperatorExpression& op, Variables* vars);
Result<Value> EvalDivide(const OperatorExpression& op, Variables* vars);
Result<Value> EvalExp(const OperatorExpression& op, Variables* vars);
Result<Value> EvalFloor(const OperatorExpression& op, Variables* vars);
Result<Value> EvalLn(const OperatorExpression& op, Variables* vars);
Result<Value> EvalLog(const OperatorExpression& op, Variables* vars);
Result<Value> EvalLog10(const OperatorExpression& op, Variables* vars);
Result<Value> EvalMod(const OperatorExpression& op, Variables* vars);
Result<Value> EvalMultiply(const OperatorExpression& op, Variables* vars);
Result<Value> EvalPow(const OperatorExpression& op, Variables* vars);
Result<Value> EvalRound(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSqrt(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSubtract(const OperatorExpression& op, Variables* vars);
Result<Value> EvalTrunc(const OperatorExpression& op, Variables* vars);

// ---- ops/comparison.cc ----
Result<Value> EvalCmp(const OperatorExpression& op, Variables* vars);
Result<Value> EvalEq(const OperatorExpression& op, Variables* vars);
Result<Value> EvalGt(const OperatorExpression& op, Variables* vars);
Result<Value> EvalGte(const OperatorExpression& op, Variables* vars);
Result<Value> EvalLt(const OperatorExpression& op, Variables* vars);
Result<Value> EvalLte(const OperatorExpression& op, Variables* vars);
Result<Value> EvalNe(const OperatorExpression& op, Variables* vars);

// ---- ops/boolean.cc ----
Result<Value> EvalAnd(const OperatorExpression& op, Variables* vars);
Result<Value> EvalNot(const OperatorExpression& op, Variables* vars);
Result<Value> EvalOr(const OperatorExpression& op, Variables* vars);

// ---- ops/conditional.cc ----
Result<ExpressionPtr> ParseCond(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);
Result<ExpressionPtr> ParseIfNull(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);
Result<ExpressionPtr> ParseSwitch(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);

// ---- ops/string.cc ----
Result<Value> EvalConcat(const OperatorExpression& op, Variables* vars);
Result<Value> EvalIndexOfBytes(const OperatorExpression& op, Variables* vars);
Result<Value> EvalIndexOfCP(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSplit(const OperatorExpression& op, Variables* vars);
Result<Value> EvalStrcasecmp(const OperatorExpression& op, Variables* vars);
Result<Value> EvalStrLenBytes(const OperatorExpression& op, Variables* vars);
Result<Value> EvalStrLenCP(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSubstrBytes(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSubstrCP(const OperatorExpression& op, Variables* vars);
Result<Value> EvalToLower(const OperatorExpression& op, Variables* vars);
Result<Value> EvalToUpper(const OperatorExpression& op, Variables* vars);
// $substr: $substrBytes under its old name (errors name $substrBytes, as MongoDB's do).
Result<ExpressionPtr> ParseSubstr(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);
Result<ExpressionPtr> ParseReplace(const bson_iter_t* arg, std::string_view name,
                                   ParseContext& ctx);
Result<ExpressionPtr> ParseTrim(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);
// Value::coerceToString (16007 for types without a string form).
Result<std::string> CoerceToString(const Value& v);
// UTF-8 code points (shared with ops/regex.cc): bytes of the one starting with `lead`
// (str::getCodePointLength; 5 for an invalid leading byte), and how many `s` holds.
inline bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
size_t CodePointLength(char lead);
size_t CodePointCount(std::string_view s);

// ---- ops/regex.cc ----
// $regexMatch, $regexFind, $regexFindAll.
Result<ExpressionPtr> ParseRegex(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);

// ---- ops/date.cc ----
// $year, $month, ... $isoWeekYear (the date parts), $dateToString, $dateToParts.
Result<ExpressionPtr> ParseDatePart(const bson_iter_t* arg, std::string_view name,
                                    ParseContext& ctx);
Result<ExpressionPtr> ParseDateToString(const bson_iter_t* arg, std::string_view name,
                                        ParseContext& ctx);
Result<ExpressionPtr> ParseDateToParts(const bson_iter_t* arg, std::string_view name,
                                       ParseContext& ctx);
// Value::coerceToDate: the instant of a Date, Timestamp or ObjectId value (16006 otherwise).
Result<int64_t> DateMillis(const Value& v);
// The zone of the optional timezone operand in `slot`: UTC when absent, nullopt when nullish
// (40517 not a string, 40485 unknown zone).
Result<std::optional<TimeZone>> EvalTimeZone(const OperatorExpression& op, size_t slot,
                                             Variables* vars);
// The format specifiers of $dateToString and $dateFromString (18535, 18536).
Status ValidateFormat(std::string_view format);
// The optional format operand in `slot`, evaluated and validated: missing when absent, nullish
// as given, else a string (`not_string` "<op> requires that 'format' be a string, found: ...").
Result<Value> EvalDateFormat(const OperatorExpression& op, size_t slot, ErrorCode not_string,
                             Variables* vars);

// ---- ops/date_arith.cc: $dateAdd $dateSubtract $dateDiff $dateTrunc ----
Result<ExpressionPtr> ParseDateAdd(const bson_iter_t* arg, std::string_view name,
                                   ParseContext& ctx);
Result<ExpressionPtr> ParseDateDiff(const bson_iter_t* arg, std::string_view name,
                                    ParseContext& ctx);
Result<ExpressionPtr> ParseDateTrunc(const bson_iter_t* arg, std::string_view name,
                                     ParseContext& ctx);

// ---- ops/date_from.cc: $dateFromParts $dateFromString ----
Result<ExpressionPtr> ParseDateFromParts(const bson_iter_t* arg, std::string_view name,
                                         ParseContext& ctx);
Result<ExpressionPtr> ParseDateFromString(const bson_iter_t* arg, std::string_view name,
                                          ParseContext& ctx);

// ---- ops/array.cc ----
Result<Value> EvalArrayElemAt(const OperatorExpression& op, Variables* vars);
Result<Value> EvalConcatArrays(const OperatorExpression& op, Variables* vars);
Result<Value> EvalFirst(const OperatorExpression& op, Variables* vars);
Result<Value> EvalIn(const OperatorExpression& op, Variables* vars);
Result<Value> EvalIndexOfArray(const OperatorExpression& op, Variables* vars);
Result<Value> EvalIsArray(const OperatorExpression& op, Variables* vars);
Result<Value> EvalLast(const OperatorExpression& op, Variables* vars);
Result<Value> EvalRange(const OperatorExpression& op, Variables* vars);
Result<Value> EvalReverseArray(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSize(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSlice(const OperatorExpression& op, Variables* vars);
Result<ExpressionPtr> ParseSortArray(const bson_iter_t* arg, std::string_view name,
                                     ParseContext& ctx);
Result<ExpressionPtr> ParseZip(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);
// The "starting/ending index" rule $indexOfArray, $indexOfBytes and $indexOfCP share
// (40096/40097).
Result<int32_t> NonNegativeIndex(const Value& v, std::string_view op, std::string_view what);

// ---- ops/iteration.cc: operators that bind a variable per element ----
Result<ExpressionPtr> ParseFilter(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);
Result<ExpressionPtr> ParseMap(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);
Result<ExpressionPtr> ParseReduce(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);

// ---- ops/set.cc ----
Result<Value> EvalAllElementsTrue(const OperatorExpression& op, Variables* vars);
Result<Value> EvalAnyElementTrue(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSetDifference(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSetIntersection(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSetIsSubset(const OperatorExpression& op, Variables* vars);
Result<Value> EvalSetUnion(const OperatorExpression& op, Variables* vars);
Result<ExpressionPtr> ParseSetEquals(const bson_iter_t* arg, std::string_view name,
                                     ParseContext& ctx);

// ---- ops/type.cc ----
Result<Value> EvalIsNumber(const OperatorExpression& op, Variables* vars);
Result<Value> EvalType(const OperatorExpression& op, Variables* vars);

// ---- ops/convert.cc ----
Result<ExpressionPtr> ParseConvert(const bson_iter_t* arg, std::string_view name,
                                   ParseContext& ctx);
// $toString, $toInt, ... (makeConversionAlias): one operand, 50723 otherwise.
Result<ExpressionPtr> ParseConversionAlias(const bson_iter_t* arg, std::string_view name,
                                           ParseContext& ctx);

// ---- ops/object.cc ----
Result<Value> EvalArrayToObject(const OperatorExpression& op, Variables* vars);
Result<Value> EvalMergeObjects(const OperatorExpression& op, Variables* vars);
Result<Value> EvalObjectToArray(const OperatorExpression& op, Variables* vars);
Result<ExpressionPtr> ParseGetField(const bson_iter_t* arg, std::string_view name,
                                    ParseContext& ctx);
Result<ExpressionPtr> ParseSetField(const bson_iter_t* arg, std::string_view name,
                                    ParseContext& ctx);

// ---- ops/accumulator.cc: $sum $avg $min $max (the $group accumulator of the same name) ----
Result<Value> EvalAccumulator(const OperatorExpression& op, Variables* vars);

// ---- ops/accumulator_n.cc: $firstN $lastN $maxN $minN over an array ----
Result<ExpressionPtr> ParseAccumulatorN(const bson_iter_t* arg, std::string_view name,
                                        ParseContext& ctx);

// ---- ops/meta.cc: $meta ----
Result<ExpressionPtr> ParseMeta(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);

// ---- ops/variables.cc: $let, $literal, $rand ----
Result<ExpressionPtr> ParseLet(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);
Result<ExpressionPtr> ParseLiteral(const bson_iter_t* arg, std::string_view name,
                                   ParseContext& ctx);
Result<ExpressionPtr> ParseRand(const bson_iter_t* arg, std::string_view name, ParseContext& ctx);

}  // namespace cairn::query::ops
