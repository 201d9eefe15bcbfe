// Variable and literal operators: $let ({vars: {name: <expr>}, in: <expr>}: the vars are
// evaluated in the enclosing scope, then `in` sees them), $literal / $const (the argument as a
// constant, never parsed as an expression) and $rand (a new double in [0, 1) per evaluation,
// never folded).
#include <random>

#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

class LetExpression final : public Expression {
 public:
  LetExpression(std::vector<std::pair<int, ExpressionPtr>> vars, ExpressionPtr in)
      : vars_(std::move(vars)), in_(std::move(in)) {}

  Result<Value> Evaluate(Variables* vars) const override {
    for (const auto& [slot, expr] : vars_) {
      CAIRN_ASSIGN_OR_RETURN(Value v, expr->Evaluate(vars));
      vars->Set(slot, std::move(v));
    }
    return in_->Evaluate(vars);
  }

 private:
  std::vector<std::pair<int, ExpressionPtr>> vars_;
  ExpressionPtr in_;
};

class RandExpression final : public Expression {
 public:
  Result<Value> Evaluate(Variables*) const override {
    thread_local std::mt19937_64 generator{std::random_device{}()};
    return Value::Double(std::uniform_real_distribution<double>(0.0, 1.0)(generator));
  }
};

}  // namespace

Result<ExpressionPtr> ParseLet(const bson_iter_t* arg, std::string_view name, ParseContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) {
    return Status(ErrorCode::kLocation16874, "$let only supports an object as its argument");
  }
  NamedArguments args;
  std::string_view unknown;
  if (!args.Collect(arg, {"vars", "in"}, &unknown)) {
    return Status(ErrorCode::kLocation16875,
                  "Unrecognized parameter to $let: " + std::string(unknown));
  }
  bson_iter_t vars_it, in_it;
  if (!args.Get("vars", &vars_it)) {
    return Status(ErrorCode::kLocation16876, "Missing 'vars' parameter to $let");
  }
  if (!args.Get("in", &in_it)) {
    return Status(ErrorCode::kLocation16877, "Missing 'in' parameter to $let");
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(&vars_it)) {
    return Status(ErrorCode::kLocation10065, "invalid parameter: expected an object (vars)");
  }
  // The values first, in the enclosing scope; then the names, which `in` sees.
  std::vector<std::pair<int, ExpressionPtr>> vars;
  bson_iter_t var;
  bson_iter_recurse(&vars_it, &var);
  while (bson_iter_next(&var)) {
    CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&var, ctx));
    vars.emplace_back(-1, std::move(expr));
  }
  size_t mark = ctx.OpenScope();
  bson_iter_recurse(&vars_it, &var);
  for (size_t i = 0; bson_iter_next(&var); ++i) {
    Status valid = ValidateVariableNameForWrite(IterKey(&var));
    if (!valid.ok()) {
      ctx.CloseScope(mark);
      return valid;
    }
    vars[i].first = ctx.Define(IterKey(&var));
  }
  Result<ExpressionPtr> in = ParseOperand(&in_it, ctx);
  ctx.CloseScope(mark);
  if (!in.ok()) return in.status();
  return ExpressionPtr(std::make_unique<LetExpression>(std::move(vars), std::move(in).value()));
}

Result<ExpressionPtr> ParseLiteral(const bson_iter_t* arg, std::string_view name,
                                   ParseContext& ctx) {
  return MakeConstant(Value::Element(arg).Owned());
}

Result<ExpressionPtr> ParseRand(const bson_iter_t* arg, std::string_view name, ParseContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) {
    return Status(ErrorCode::kLocation10065, "invalid parameter: expected an object ($rand)");
  }
  if (!IterDocument(arg).empty()) {
    return Status(ErrorCode::kLocation3040501, "$rand does not currently accept arguments");
  }
  return ExpressionPtr(std::make_unique<RandExpression>());
}

}  // namespace cairn::query::ops
