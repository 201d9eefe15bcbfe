// $expr: a filter clause that holds when an aggregation expression (query/expression/) evaluated
// against the document is truthy ({$expr: {$gt: ["$a", "$b"]}}). Top-level only (the table in
// parse_filter.cc says so). It reads the command's `let` variables and $$NOW through the
// ExpressionContext that Matcher::Parse was given, which the parser passes down in its
// FilterParseState. An evaluation error is the match's outcome: it travels up through
// MatchExpression::Matches's error argument to Matcher::Matches's Result, never as a non-match.
#include "query/expression/expression.h"
#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

namespace {

class ExprMatchExpression final : public MatchExpression {
 public:
  ExprMatchExpression(ExpressionPtr expr, size_t num_slots)
      : MatchExpression(MatchKind::kExpr), expr_(std::move(expr)), num_slots_(num_slots) {}

  bool Matches(BsonView doc, Status* error) const override {
    Variables vars(num_slots_);
    vars.SetRoot(doc);
    Result<Value> value = expr_->Evaluate(&vars);
    if (!value.ok()) {
      *error = value.status();
      return false;
    }
    return value->Truthy();
  }

  // $expr only applies to whole documents.
  bool MatchesSingleElement(const bson_iter_t*, Status*) const override { return false; }

 private:
  ExpressionPtr expr_;
  size_t num_slots_;
};

}  // namespace

namespace internal {

Result<MatchExpressionPtr> ParseExpr(const bson_iter_t* op, FilterParseState state) {
  ParseContext ctx(state.context);
  CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(op, ctx));
  return MatchExpressionPtr(
      std::make_unique<ExprMatchExpression>(std::move(expr), ctx.num_slots()));
}

}  // namespace internal

}  // namespace cairn::query
