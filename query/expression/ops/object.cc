// Object operators: $mergeObjects (later documents' fields overwrite earlier ones in place; null
// and missing operands are skipped; one array operand merges its elements), $objectToArray
// ([{k, v}, ...]), $arrayToObject ([[k, v], ...] or [{k, v}, ...]), $getField and
// $setField / $unsetField (a field named by a constant string, dots and dollars allowed), with
// MongoDB's error codes.
#include <unordered_map>

#include "query/expression/operator.h"

namespace cairn::query::ops {

namespace {

std::string TypeOf(const Value& v) { return TypeNameOf(v); }

// A document assembled field by field where setting an existing name replaces its value in
// place (MongoDB's MutableDocument::setField); a missing value removes the field.
class FieldList {
 public:
  void Set(std::string_view name, Value value) {
    auto found = index_.find(std::string(name));
    if (found != index_.end()) {
      fields_[found->second].second = std::move(value);
      return;
    }
    index_.emplace(std::string(name), fields_.size());
    fields_.emplace_back(std::string(name), std::move(value));
  }

  Result<Value> Finish() const {
    DocumentBuilder out;
    for (const auto& [name, value] : fields_) out.Append(name, value);  // missing: omitted
    return out.Finish();
  }

 private:
  std::vector<std::pair<std::string, Value>> fields_;
  std::unordered_map<std::string, size_t> index_;
};

Status MergeInto(FieldList* out, const Value& input) {
  if (input.nullish()) return Status::OK();
  if (!input.is_document()) {
    return Status(ErrorCode::kLocation40400, "$mergeObjects requires object inputs, but input " +
                                                 ValueToString(input) + " is of type " +
                                                 TypeOf(input));
  }
  bson_iter_t it;
  input.Recurse(&it);
  while (bson_iter_next(&it)) out->Set(IterKey(&it), input.Child(&it));
  return Status::OK();
}

// Operands: [field (constant string), input].
Result<Value> EvalGetField(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value field, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(1, vars));
  if (input.nullish()) return input.missing() ? Value() : Value::Null();
  if (!input.is_document()) return Value();
  return input.Field(field.string());
}

// Operands: [field (constant string), input, value].
Result<Value> EvalSetField(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value field, op.Eval(0, vars));
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(1, vars));
  if (input.nullish()) return Value::Null();
  if (!input.is_document()) {
    return Status(ErrorCode::kLocation4161105,
                  "$setField requires 'input' to evaluate to type Object");
  }
  CAIRN_ASSIGN_OR_RETURN(Value value, op.Eval(2, vars));
  FieldList out;
  bson_iter_t it;
  input.Recurse(&it);
  while (bson_iter_next(&it)) out.Set(IterKey(&it), input.Child(&it));
  out.Set(field.string(), std::move(value));
  return out.Finish();
}

// The checks $getField and $setField make on their 'field' operand.
Status CheckFieldOperand(const Expression& field, std::string_view name, bool get) {
  if (!field.path_text().empty()) {
    std::string path(field.path_text());
    return Status(get ? ErrorCode::kLocation5654600 : ErrorCode::kLocation4161108,
                  "'" + path +
                      "' is a field path reference which is not allowed in this context. Did you "
                      "mean {$literal: '" +
                      path + "'}?");
  }
  const Value* constant = field.constant();
  if (constant == nullptr) {
    return Status(get ? ErrorCode::kLocation5654601 : ErrorCode::kLocation4161106,
                  std::string(name) +
                      " requires 'field' to evaluate to a constant, but got a non-constant "
                      "argument");
  }
  if (!constant->is_string()) {
    return Status(get ? ErrorCode::kLocation5654602 : ErrorCode::kLocation4161107,
                  std::string(name) + " requires 'field' to evaluate to type String, but got " +
                      TypeOf(*constant));
  }
  return Status::OK();
}

Result<ExpressionPtr> ParseCurrent(ParseContext& ctx) {
  BsonDoc current = BsonDoc::FromJson(R"({"": "$$CURRENT"})");
  bson_iter_t it;
  current.view().Init(&it);
  bson_iter_next(&it);
  return ParseOperand(&it, ctx);
}

}  // namespace

Result<Value> EvalMergeObjects(const OperatorExpression& op, Variables* vars) {
  FieldList out;
  if (op.size() == 1) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(0, vars));
    if (v.is_array()) {
      bson_iter_t it;
      v.Recurse(&it);
      while (bson_iter_next(&it)) CAIRN_RETURN_IF_ERROR(MergeInto(&out, v.Child(&it)));
    } else {
      CAIRN_RETURN_IF_ERROR(MergeInto(&out, v));
    }
    return out.Finish();
  }
  for (size_t i = 0; i < op.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Value v, op.Eval(i, vars));
    CAIRN_RETURN_IF_ERROR(MergeInto(&out, v));
  }
  return out.Finish();
}

Result<Value> EvalObjectToArray(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(0, vars));
  if (input.nullish()) return Value::Null();
  if (!input.is_document()) {
    return Status(ErrorCode::kLocation40390,
                  "$objectToArray requires a document input, found: " + TypeOf(input));
  }
  ArrayBuilder out;
  bson_iter_t it;
  input.Recurse(&it);
  while (bson_iter_next(&it)) {
    DocumentBuilder pair;
    pair.Append("k", Value::String(IterKey(&it)));
    pair.Append("v", input.Child(&it));
    CAIRN_ASSIGN_OR_RETURN(Value entry, pair.Finish());
    out.Append(entry);
  }
  return out.Finish();
}

Result<Value> EvalArrayToObject(const OperatorExpression& op, Variables* vars) {
  CAIRN_ASSIGN_OR_RETURN(Value input, op.Eval(0, vars));
  if (input.nullish()) return Value::Null();
  if (!input.is_array()) {
    return Status(ErrorCode::kLocation40386,
                  "$arrayToObject requires an array input, found: " + TypeOf(input));
  }
  FieldList out;
  bson_iter_t it;
  input.Recurse(&it);
  bool first = true, pairs_are_arrays = false;
  while (bson_iter_next(&it)) {
    Value element = input.Child(&it);
    if (first) {
      first = false;
      if (element.is_array()) {
        pairs_are_arrays = true;
      } else if (!element.is_document()) {
        return Status(ErrorCode::kLocation40398,
                      "Unrecognised input type format for $arrayToObject: " + TypeOf(element));
      }
    }
    if (pairs_are_arrays) {
      if (!element.is_array()) {
        return Status(ErrorCode::kLocation40396,
                      "$arrayToObject requires a consistent input format. Elements mustall be "
                      "arrays or all be objects. Array was detected, now found: " +
                          TypeOf(element));
      }
      uint32_t count = element.Count();
      if (count != 2) {
        return Status(ErrorCode::kLocation40397,
                      "$arrayToObject requires an array of size 2 arrays,found array of size: " +
                          std::to_string(count));
      }
      bson_iter_t pair;
      element.Recurse(&pair);
      bson_iter_next(&pair);
      Value key = element.Child(&pair);
      bson_iter_next(&pair);
      Value value = element.Child(&pair);
      if (!key.is_string()) {
        return Status(ErrorCode::kLocation40395,
                      "$arrayToObject requires an array of key-value pairs, where the key must be "
                      "of type string. Found key type: " +
                          TypeOf(key));
      }
      if (key.string().find('\0') != std::string_view::npos) {
        return Status(ErrorCode::kLocation4940400,
                      "Key field cannot contain an embedded null byte");
      }
      out.Set(key.string(), value);
      continue;
    }
    if (!element.is_document()) {
      return Status(ErrorCode::kLocation40391,
                    "$arrayToObject requires a consistent input format. Elements mustall be "
                    "arrays or all be objects. Object was detected, now found: " +
                        TypeOf(element));
    }
    uint32_t count = element.Count();
    if (count != 2) {
      return Status(ErrorCode::kLocation40392,
                    "$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect "
                    "number of keys:" +
                        std::to_string(count));
    }
    Value key = element.Field("k");
    Value value = element.Field("v");
    if (key.missing() || value.missing()) {
      return Status(ErrorCode::kLocation40393,
                    "$arrayToObject requires an object with keys 'k' and 'v'. Missing either or "
                    "both keys from: " +
                        ValueToString(element));
    }
    if (!key.is_string()) {
      return Status(ErrorCode::kLocation40394,
                    "$arrayToObject requires an object with keys 'k' and 'v', where the value of "
                    "'k' must be of type string. Found type: " +
                        TypeOf(key));
    }
    if (key.string().find('\0') != std::string_view::npos) {
      return Status(ErrorCode::kLocation4940401, "Key field cannot contain an embedded null byte");
    }
    out.Set(key.string(), value);
  }
  return out.Finish();
}

Result<ExpressionPtr> ParseGetField(const bson_iter_t* arg, std::string_view name,
                                    ParseContext& ctx) {
  ExpressionPtr field, input;
  if (BSON_ITER_HOLDS_DOCUMENT(arg)) {
    bson_iter_t it;
    bson_iter_recurse(arg, &it);
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (!field && !input && !key.empty() && key[0] == '$') {
        // {$getField: {$literal: "a.b"}}: the whole argument is the field expression.
        CAIRN_ASSIGN_OR_RETURN(field, ParseOperand(arg, ctx));
        CAIRN_ASSIGN_OR_RETURN(input, ParseCurrent(ctx));
        break;
      }
      if (key == "field") {
        CAIRN_ASSIGN_OR_RETURN(field, ParseOperand(&it, ctx));
      } else if (key == "input") {
        CAIRN_ASSIGN_OR_RETURN(input, ParseOperand(&it, ctx));
      } else {
        return Status(ErrorCode::kLocation3041701,
                      "$getField found an unknown argument: " + std::string(key));
      }
    }
  } else {
    CAIRN_ASSIGN_OR_RETURN(field, ParseOperand(arg, ctx));
    CAIRN_ASSIGN_OR_RETURN(input, ParseCurrent(ctx));
  }
  if (!field) {
    return Status(ErrorCode::kLocation3041702, "$getField requires 'field' to be specified");
  }
  if (!input) {
    return Status(ErrorCode::kLocation3041703, "$getField requires 'input' to be specified");
  }
  CAIRN_RETURN_IF_ERROR(CheckFieldOperand(*field, "$getField", /*get=*/true));
  std::vector<ExpressionPtr> operands;
  operands.push_back(std::move(field));
  operands.push_back(std::move(input));
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(operands), EvalGetField,
                                                            /*foldable=*/false));
}

Result<ExpressionPtr> ParseSetField(const bson_iter_t* arg, std::string_view name,
                                    ParseContext& ctx) {
  const bool unset = name == "$unsetField";
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) {
    return Status(ErrorCode::kLocation4161100,
                  std::string(name) + " only supports an object as its argument");
  }
  ExpressionPtr field, input, value;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "field") {
      CAIRN_ASSIGN_OR_RETURN(field, ParseOperand(&it, ctx));
    } else if (key == "input") {
      CAIRN_ASSIGN_OR_RETURN(input, ParseOperand(&it, ctx));
    } else if (!unset && key == "value") {
      CAIRN_ASSIGN_OR_RETURN(value, ParseOperand(&it, ctx));
    } else {
      return Status(ErrorCode::kLocation4161101,
                    std::string(name) + " found an unknown argument: " + std::string(key));
    }
  }
  if (unset) value = MakeConstant(Value());  // $$REMOVE
  if (!field) {
    return Status(ErrorCode::kLocation4161102,
                  std::string(name) + " requires 'field' to be specified");
  }
  if (!value) {
    return Status(ErrorCode::kLocation4161103,
                  std::string(name) + " requires 'value' to be specified");
  }
  if (!input) {
    return Status(ErrorCode::kLocation4161109,
                  std::string(name) + " requires 'input' to be specified");
  }
  CAIRN_RETURN_IF_ERROR(CheckFieldOperand(*field, name, /*get=*/false));
  std::vector<ExpressionPtr> operands;
  operands.push_back(std::move(field));
  operands.push_back(std::move(input));
  operands.push_back(std::move(value));
  return ExpressionPtr(std::make_unique<OperatorExpression>(name, std::move(operands), EvalSetField,
                                                            /*foldable=*/false));
}

}  // namespace cairn::query::ops
