// Conditional operators: $cond (array form [if, then, else] or named {if, then, else}), $ifNull
// (n-ary: the first operand that is not null/missing/undefined, else the last one's value) and
// $switch ({branches: [{case, then}], default}), with MongoDB's parse errors. Only the chosen
// branch is evaluated.
#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

// Operands: [if, then, else].
Result<Value> EvalCond(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value condition, op.Eval(0, vars));
  return op.Eval(condition.Truthy() ? 1 : 2, vars);
}

Result<Value> EvalIfNull(const OperatorExpression& op, Variables* vars) {
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    if (!v.nullish() || i + 1 == op.size()) return v;
  }
  return Value();
}

// Operands: [case0, then0, case1, then1, ..., default (null slot when absent)].
Result<Value> EvalSwitch(const OperatorExpression& op, Variables* vars) {
  const size_t branches = (op.size() - 1) / 2;
  for (size_t b = 0; b < branches; ++b) {
    CAIRN_ASSIGN_OR_RETURN(Value matched, op.Eval(2 * b, vars));
    if (matched.Truthy()) return op.Eval(2 * b + 1, vars);
  }
  if (!op.has(op.size() - 1)) {
    return Status(ErrorCode::kLocation40066,
                  "$switch could not find a matching branch for an input, and no default was "
                  "specified.");
  }
  return op.Eval(op.size() - 1, vars);
}

}  // namespace

Result<ExpressionPtr> ParseCond(const bson_iter_t* arg, std::string_view name, ParseContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) return ParsePositional(arg, name, ctx, EvalCond, 3, 3);
  std::vector<ExpressionPtr> operands(3);
  bson_iter_t it;
  RecurseObjectArgument(arg, &it);
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    size_t slot = field == "if" ? 0 : field == "then" ? 1 : field == "else" ? 2 : 3;
    if (slot == 3) {
      return Status(ErrorCode::kLocation17083,
                    "Unrecognized parameter to $cond: " + std::string(field));
    }
    CAIRN_ASSIGN_OR_RETURN(operands[slot], ParseOperand(&it, ctx));
  }
  if (!operands[0]) return Status(ErrorCode::kLocation17080, "Missing 'if' parameter to $cond");
  if (!operands[1]) return Status(ErrorCode::kLocation17081, "Missing 'then' parameter to $cond");
  if (!operands[2]) return Status(ErrorCode::kLocation17082, "Missing 'else' parameter to $cond");
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(operands), EvalCond));
}

Result<ExpressionPtr> ParseIfNull(const bson_iter_t* arg, std::string_view name,
                                  ParseContext& ctx) {
  CAIRN_ASSIGN_OR_RETURN(std::vector<ExpressionPtr> operands, ParseArguments(arg, ctx));
  if (operands.size() < 2) {
    return Status(ErrorCode::kLocation1257300,
                  "$ifNull needs at least two arguments, had: " + std::to_string(operands.size()));
  }
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(operands), EvalIfNull));
}

Result<ExpressionPtr> ParseSwitch(const bson_iter_t* arg, std::string_view name,
                                  ParseContext& ctx) {
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) {
    return Status(ErrorCode::kLocation40060, "$switch requires an object as an argument, found: " +
                                                 std::string(BsonTypeName(bson_iter_type(arg))));
  }
  std::vector<ExpressionPtr> operands;
  ExpressionPtr default_expr;
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    if (field == "branches") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) {
        return Status(ErrorCode::kLocation40061,
                      "$switch expected an array for 'branches', found: " +
                          std::string(BsonTypeName(bson_iter_type(&it))));
      }
      bson_iter_t branch;
      bson_iter_recurse(&it, &branch);
      while (bson_iter_next(&branch)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&branch)) {
          return Status(ErrorCode::kLocation40062,
                        "$switch expected each branch to be an object, found: " +
                            std::string(BsonTypeName(bson_iter_type(&branch))));
        }
        ExpressionPtr case_expr, then_expr;
        bson_iter_t part;
        bson_iter_recurse(&branch, &part);
        while (bson_iter_next(&part)) {
          std::string_view key = IterKey(&part);
          if (key == "case") {
            CAIRN_ASSIGN_OR_RETURN(case_expr, ParseOperand(&part, ctx));
          } else if (key == "then") {
            CAIRN_ASSIGN_OR_RETURN(then_expr, ParseOperand(&part, ctx));
          } else {
            return Status(ErrorCode::kLocation40063,
                          "$switch found an unknown argument to a branch: " + std::string(key));
          }
        }
        if (!case_expr) {
          return Status(ErrorCode::kLocation40064,
                        "$switch requires each branch have a 'case' expression");
        }
        if (!then_expr) {
          return Status(ErrorCode::kLocation40065,
                        "$switch requires each branch have a 'then' expression.");
        }
        operands.push_back(std::move(case_expr));
        operands.push_back(std::move(then_expr));
      }
    } else if (field == "default") {
      CAIRN_ASSIGN_OR_RETURN(default_expr, ParseOperand(&it, ctx));
    } else {
      return Status(ErrorCode::kLocation40067,
                    "$switch found an unknown argument: " + std::string(field));
    }
  }
  if (operands.empty()) {
    return Status(ErrorCode::kLocation40068, "$switch requires at least one branch.");
  }
  // ExpressionSwitch::optimize: constant false cases drop out; none left and no default is an
  // error now.
  bool all_false = !default_expr;
  for (size_t i = 0; all_false && i < operands.size(); i += 2) {
    const Value* c = operands[i]->constant();
    all_false = c != nullptr && !c->Truthy();
  }
  if (all_false) {
    return Status(ErrorCode::kLocation40069,
                  "One cannot execute a switch statement where all the cases evaluate to false "
                  "without a default.");
  }
  operands.push_back(std::move(default_expr));
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(operands), EvalSwitch));
}

}  // namespace cairn::query::ops
