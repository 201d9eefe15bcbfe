// $eq $ne $gt $gte $lt $lte and implicit equality: parsing and ComparisonMatchExpression, after
// MongoDB's ComparisonMatchExpression::matchesSingleElement (expression_leaf.cpp). Strings compare
// under the query's collation (the parse state's, kept by each node).
#include <cmath>
#include <string>

#include "common/bson_compare.h"
#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

namespace {

bool IsNaN(const bson_iter_t* it) {
  bson_type_t type = bson_iter_type(it);
  if (type != BSON_TYPE_DOUBLE && type != BSON_TYPE_DECIMAL128) return false;
  double d = 0;
  IterAsDouble(it, &d);
  return std::isnan(d);
}

}  // namespace

bool ComparisonMatchExpression::MatchesSingleElement(const bson_iter_t* value, Status*) const {
  const MatchKind k = kind();
  const bson_iter_t rhs = rhs_.iter();
  const bson_type_t rhs_type = bson_iter_type(&rhs);
  const bson_type_t type = value ? bson_iter_type(value) : BSON_TYPE_EOD;
  if (type != rhs_type) {
    const int lhs_rank = CanonicalTypeRank(type), rhs_rank = CanonicalTypeRank(rhs_type);
    if (lhs_rank != rhs_rank) {
      // Different type brackets never compare, except: null is alike missing and undefined
      // (ranks 5 and 0), and a MinKey/MaxKey operand bounds every other value.
      if (lhs_rank + rhs_rank == 5) {
        return k == MatchKind::kEq || k == MatchKind::kLte || k == MatchKind::kGte;
      }
      if (rhs_type == BSON_TYPE_MAXKEY || rhs_type == BSON_TYPE_MINKEY) {
        switch (k) {
          case MatchKind::kLt:
          case MatchKind::kLte:
            return rhs_type == BSON_TYPE_MAXKEY;
          case MatchKind::kGt:
          case MatchKind::kGte:
            return rhs_type == BSON_TYPE_MINKEY;
          default:
            return false;
        }
      }
      return false;
    }
  }
  if (k != MatchKind::kEq) {
    // NaN equals NaN and is otherwise unordered.
    const bool lhs_nan = IsNaN(value), rhs_nan = IsNaN(&rhs);
    if (lhs_nan || rhs_nan) {
      return (k == MatchKind::kLte || k == MatchKind::kGte) && lhs_nan && rhs_nan;
    }
  }
  const int c = CompareValues(value, &rhs, collator_);
  switch (k) {
    case MatchKind::kEq:
      return c == 0;
    case MatchKind::kLt:
      return c < 0;
    case MatchKind::kLte:
      return c <= 0;
    case MatchKind::kGt:
      return c > 0;
    case MatchKind::kGte:
      return c >= 0;
    default:
      return false;
  }
}

namespace internal {

namespace {

Result<MatchExpressionPtr> MakeComparison(MatchKind kind, std::string_view path,
                                          const bson_iter_t* value, FilterParseState state) {
  if (kind != MatchKind::kEq && BSON_ITER_HOLDS_REGEX(value)) {
    return Status(ErrorCode::kBadValue,
                  "Can't have RegEx as arg to predicate over field '" + std::string(path) + "'.");
  }
  if (BSON_ITER_HOLDS_UNDEFINED(value)) {
    return Status(ErrorCode::kBadValue, "cannot compare to undefined");
  }
  return MatchExpressionPtr(
      std::make_unique<ComparisonMatchExpression>(kind, path, *value, state.collator()));
}

}  // namespace

Result<MatchExpressionPtr> MakeEquality(std::string_view path, const bson_iter_t* value,
                                        FilterParseState state) {
  return MakeComparison(MatchKind::kEq, path, value, state);
}

Result<MatchExpressionPtr> ParseEq(const OperatorArgs& args) {
  return MakeComparison(MatchKind::kEq, args.path, args.op, args.state);
}

Result<MatchExpressionPtr> ParseNe(const OperatorArgs& args) {
  if (BSON_ITER_HOLDS_REGEX(args.op)) {
    return Status(ErrorCode::kBadValue, "Can't have regex as arg to $ne.");
  }
  CAIRN_ASSIGN_OR_RETURN(MatchExpressionPtr eq,
                         MakeComparison(MatchKind::kEq, args.path, args.op, args.state));
  return MatchExpressionPtr(std::make_unique<NotMatchExpression>(std::move(eq)));
}

Result<MatchExpressionPtr> ParseLt(const OperatorArgs& args) {
  return MakeComparison(MatchKind::kLt, args.path, args.op, args.state);
}

Result<MatchExpressionPtr> ParseLte(const OperatorArgs& args) {
  return MakeComparison(MatchKind::kLte, args.path, args.op, args.state);
}

Result<MatchExpressionPtr> ParseGt(const OperatorArgs& args) {
  return MakeComparison(MatchKind::kGt, args.path, args.op, args.state);
}

Result<MatchExpressionPtr> ParseGte(const OperatorArgs& args) {
  return MakeComparison(MatchKind::kGte, args.path, args.op, args.state);
}

}  // namespace internal
}  // namespace cairn::query
