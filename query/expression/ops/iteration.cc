// Operators that bind a variable per array element: $filter ({input, as, cond, limit}), $map
// ({input, as, in}) and $reduce ({input, initialValue, in} with $$this and $$value). The bound
// variable ("this" unless `as` names another) is visible only inside cond / in; input, limit and
// initialValue see the enclosing scope. Errors and null handling as MongoDB's.
#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

std::string TypeOf(const Value& v) { return TypeNameOf(v); }

class FilterExpression final : public Expression {
 public:
  FilterExpression(ExpressionPtr input, ExpressionPtr cond, ExpressionPtr limit, int slot)
      : input_(std::move(input)), cond_(std::move(cond)), limit_(std::move(limit)), slot_(slot) {}

  Result<Value> Evaluate(Variables* vars) const override {
    CAIRN_ASSIGN_OR_RETURN(Value input, input_->Evaluate(vars));
    if (input.nullish()) return Value::Null();
    if (!input.is_array()) {
      return Status(ErrorCode::kLocation28651,
                    "input to $filter must be an array not " + TypeOf(input));
    }
    if (input.Count() == 0) return input;
    int64_t remaining = -1;  // no limit
    if (limit_) {
      CAIRN_ASSIGN_OR_RETURN(Value limit, limit_->Evaluate(vars));
      if (!limit.nullish()) {
        if (!IsIntegral32(limit)) {
          return Status(ErrorCode::kLocation327391,
                        "$filter: limit must be represented as a 32-bit integral value: " +
                            ValueToString(limit));
        }
        CAIRN_ASSIGN_OR_RETURN(int32_t n, CoerceToInt(limit));
        if (n <= 0) {
          return Status(ErrorCode::kLocation327392,
                        "$filter: limit must be greater than 0: " + ValueToString(limit));
        }
        remaining = n;
      }
    }
    ArrayBuilder out;
    bson_iter_t it;
    input.Recurse(&it);
    while (bson_iter_next(&it)) {
      Value element = input.Child(&it);
      vars->Set(slot_, element);
      CAIRN_ASSIGN_OR_RETURN(Value keep, cond_->Evaluate(vars));
      if (!keep.Truthy()) continue;
      out.Append(element);
      if (remaining > 0 && --remaining == 0) break;
    }
    return out.Finish();
  }

 private:
  ExpressionPtr input_, cond_, limit_;
  int slot_;
};

class MapExpression final : public Expression {
 public:
  MapExpression(ExpressionPtr input, ExpressionPtr each, int slot)
      : input_(std::move(input)), each_(std::move(each)), slot_(slot) {}

  Result<Value> Evaluate(Variables* vars) const override {
    CAIRN_ASSIGN_OR_RETURN(Value input, input_->Evaluate(vars));
    if (input.nullish()) return Value::Null();
    if (!input.is_array()) {
      return Status(ErrorCode::kLocation16883,
                    "input to $map must be an array not " + TypeOf(input));
    }
    if (input.Count() == 0) return input;
    ArrayBuilder out;
    bson_iter_t it;
    input.Recurse(&it);
    while (bson_iter_next(&it)) {
      vars->Set(slot_, input.Child(&it));
      CAIRN_ASSIGN_OR_RETURN(Value mapped, each_->Evaluate(vars));
      out.Append(mapped);  // missing becomes null
    }
    return out.Finish();
  }

 private:
  ExpressionPtr input_, each_;
  int slot_;
};

class ReduceExpression final : public Expression {
 public:
  ReduceExpression(ExpressionPtr input, ExpressionPtr initial, ExpressionPtr in, int this_slot,
                   int value_slot)
      : input_(std::move(input)),
        initial_(std::move(initial)),
        in_(std::move(in)),
        this_slot_(this_slot),
        value_slot_(value_slot) {}

  Result<Value> Evaluate(Variables* vars) const override {
    CAIRN_ASSIGN_OR_RETURN(Value input, input_->Evaluate(vars));
    if (input.nullish()) return Value::Null();
    if (!input.is_array()) {
      return Status(ErrorCode::kLocation40080,
                    "$reduce requires that 'input' be an array, found: " + ValueToString(input));
    }
    CAIRN_ASSIGN_OR_RETURN(Value accumulated, initial_->Evaluate(vars));
    bson_iter_t it;
    input.Recurse(&it);
    while (bson_iter_next(&it)) {
      vars->Set(this_slot_, input.Child(&it));
      vars->Set(value_slot_, accumulated);
      CAIRN_ASSIGN_OR_RETURN(accumulated, in_->Evaluate(vars));
    }
    return accumulated;
  }

 private:
  ExpressionPtr input_, initial_, in_;
  int this_slot_, value_slot_;
};

// The `as` name of $filter / $map ("this" by default); a non-string `as` reads as "", which the
// name rules refuse.
Result<std::string> AsName(const bson_iter_t* as) {
  std::string name =
      as == nullptr ? "this" : (BSON_ITER_HOLDS_UTF8(as) ? std::string(IterUtf8(as)) : "");
  CAIRN_RETURN_IF_ERROR(ValidateVariableNameForWrite(name));
  return name;
}

}  // namespace

Result<ExpressionPtr> ParseFilter(const bson_iter_t* arg, std::string_view name,
                                  ParseContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) {
    return Status(ErrorCode::kLocation28646, "$filter only supports an object as its argument");
  }
  NamedArguments args;
  std::string_view unknown;
  if (!args.Collect(arg, {"input", "as", "cond", "limit"}, &unknown)) {
    return Status(ErrorCode::kLocation28647,
                  "Unrecognized parameter to $filter: " + std::string(unknown));
  }
  bson_iter_t input_it, as_it, cond_it, limit_it;
  if (!args.Get("input", &input_it)) {
    return Status(ErrorCode::kLocation28648, "Missing 'input' parameter to $filter");
  }
  if (!args.Get("cond", &cond_it)) {
    return Status(ErrorCode::kLocation28650, "Missing 'cond' parameter to $filter");
  }
  CAIRN_ASSIGN_OR_RETURN(ExpressionPtr input, ParseOperand(&input_it, ctx));
  CAIRN_ASSIGN_OR_RETURN(std::string var, AsName(args.Get("as", &as_it) ? &as_it : nullptr));
  size_t mark = ctx.OpenScope();
  int slot = ctx.Define(var);
  Result<ExpressionPtr> cond = ParseOperand(&cond_it, ctx);
  ctx.CloseScope(mark);
  if (!cond.ok()) return cond.status();
  ExpressionPtr limit;
  if (args.Get("limit", &limit_it)) {
    CAIRN_ASSIGN_OR_RETURN(limit, ParseOperand(&limit_it, ctx));
  }
  return ExpressionPtr(std::make_unique<FilterExpression>(std::move(input), std::move(cond).value(),
                                                          std::move(limit), slot));
}

Result<ExpressionPtr> ParseMap(const bson_iter_t* arg, std::string_view name, ParseContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(arg)) {
    return Status(ErrorCode::kLocation16878, "$map only supports an object as its argument");
  }
  NamedArguments args;
  std::string_view unknown;
  if (!args.Collect(arg, {"input", "as", "in"}, &unknown)) {
    return Status(ErrorCode::kLocation16879,
                  "Unrecognized parameter to $map: " + std::string(unknown));
  }
  bson_iter_t input_it, as_it, in_it;
  if (!args.Get("input", &input_it)) {
    return Status(ErrorCode::kLocation16880, "Missing 'input' parameter to $map");
  }
  if (!args.Get("in", &in_it)) {
    return Status(ErrorCode::kLocation16882, "Missing 'in' parameter to $map");
  }
  CAIRN_ASSIGN_OR_RETURN(ExpressionPtr input, ParseOperand(&input_it, ctx));
  CAIRN_ASSIGN_OR_RETURN(std::string var, AsName(args.Get("as", &as_it) ? &as_it : nullptr));
  size_t mark = ctx.OpenScope();
  int slot = ctx.Define(var);
  Result<ExpressionPtr> each = ParseOperand(&in_it, ctx);
  ctx.CloseScope(mark);
  if (!each.ok()) return each.status();
  return ExpressionPtr(
      std::make_unique<MapExpression>(std::move(input), std::move(each).value(), slot));
}

Result<ExpressionPtr> ParseReduce(const bson_iter_t* arg, std::string_view name,
                                  ParseContext& ctx) {
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) {
    return Status(ErrorCode::kLocation40075, "$reduce requires an object as an argument, found: " +
                                                 std::string(BsonTypeName(bson_iter_type(arg))));
  }
  ExpressionPtr input, initial, in;
  int this_slot = -1, value_slot = -1;
  while (bson_iter_next(&it)) {
    std::string_view field = IterKey(&it);
    if (field == "input") {
      CAIRN_ASSIGN_OR_RETURN(input, ParseOperand(&it, ctx));
    } else if (field == "initialValue") {
      CAIRN_ASSIGN_OR_RETURN(initial, ParseOperand(&it, ctx));
    } else if (field == "in") {
      size_t mark = ctx.OpenScope();
      this_slot = ctx.Define("this");
      value_slot = ctx.Define("value");
      Result<ExpressionPtr> parsed = ParseOperand(&it, ctx);
      ctx.CloseScope(mark);
      if (!parsed.ok()) return parsed.status();
      in = std::move(parsed).value();
    } else {
      return Status(ErrorCode::kLocation40076,
                    "$reduce found an unknown argument: " + std::string(field));
    }
  }
  if (!input) return Status(ErrorCode::kLocation40077, "$reduce requires 'input' to be specified");
  if (!initial) {
    return Status(ErrorCode::kLocation40078, "$reduce requires 'initialValue' to be specified");
  }
  if (!in) return Status(ErrorCode::kLocation40079, "$reduce requires 'in' to be specified");
  return ExpressionPtr(std::make_unique<ReduceExpression>(std::move(input), std::move(initial),
                                                          std::move(in), this_slot, value_slot));
}

}  // namespace cairn::query::ops
