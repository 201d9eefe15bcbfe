// Expression parsing (expression.h): parseOperand / parseObject / parseExpression, the core nodes
// (constants, field paths and variables, objects and arrays of expressions), variable scopes and
// name rules, the command context, and the shared operator-parsing helpers of operator.h.
#include <algorithm>
#include <chrono>
#include <unordered_set>

#include "query/expression/expression.h"
#include "query/expression/operator.h"

namespace cairn::query {

namespace {

using ops::OperatorExpression;

// ---- Nodes ----

class ConstantExpression final : public Expression {
 public:
  explicit ConstantExpression(Value value) : value_(std::move(value)) {}
  // A view of the constant: no copy, no reference count; valid while the tree lives.
  Result<Value> Evaluate(Variables*) const override { return value_.Borrowed(); }
  const Value* constant() const override { return &value_; }
  bool Foldable() const override { return true; }

 private:
  Value value_;  // owns its bytes (or views something the node keeps alive)
};

// MongoDB's ExpressionFieldPath::evaluatePath / evaluatePathArray: a path through an array
// yields the array of what each element document yields (non-documents and missing results
// are skipped).
Result<Value> EvaluatePathArray(const Value& array, const std::vector<std::string>& path,
                                size_t index);

Result<Value> EvaluatePath(const Value& doc, const std::vector<std::string>& path, size_t index) {
  Value field = doc.Field(path[index]);
  if (index + 1 == path.size()) return field;
  if (field.is_document()) return EvaluatePath(field, path, index + 1);
  if (field.is_array()) return EvaluatePathArray(field, path, index + 1);
  return Value();
}

Result<Value> EvaluatePathArray(const Value& array, const std::vector<std::string>& path,
                                size_t index) {
  ArrayBuilder out;
  bson_iter_t it;
  if (array.Recurse(&it)) {
    while (bson_iter_next(&it)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) continue;
      CAIRN_ASSIGN_OR_RETURN(Value nested, EvaluatePath(array.Child(&it), path, index));
      if (!nested.missing()) out.Append(nested);
    }
  }
  return out.Finish();
}

// The value `path` yields from `base` (a variable's value or the document).
Result<Value> EvaluatePathFrom(const Value& base, const std::vector<std::string>& path) {
  if (path.empty()) return base;
  if (base.is_document()) return EvaluatePath(base, path, 0);
  if (base.is_array()) return EvaluatePathArray(base, path, 0);
  return Value();
}

// "$a.b" (from $$CURRENT) and "$$var.a.b".
class FieldPathExpression final : public Expression {
 public:
  FieldPathExpression(std::string text, ParseContext::Binding::Kind kind, int slot,
                      std::vector<std::string> path)
      : text_(std::move(text)), kind_(kind), slot_(slot), path_(std::move(path)) {}

  Result<Value> Evaluate(Variables* vars) const override {
    switch (kind_) {
      case ParseContext::Binding::Kind::kRoot:
        return EvaluatePathFrom(vars->root(), path_);
      case ParseContext::Binding::Kind::kSlot:
        return EvaluatePathFrom(vars->Get(slot_), path_);
      case ParseContext::Binding::Kind::kClusterTime:
        return Status(ErrorCode::kLocation51144,
                      "Buildin variable '$$CLUSTER_TIME' is not available");
      default:
        return Status(ErrorCode::kBadValue, "The variable " + text_ + " is not available");
    }
  }
  std::string_view path_text() const override { return text_; }

 private:
  std::string text_;
  ParseContext::Binding::Kind kind_;
  int slot_;
  std::vector<std::string> path_;
};

// {a: <expr>, b: <expr>}: a document of the operands' values; a missing value omits its field.
class ObjectExpression final : public Expression {
 public:
  explicit ObjectExpression(std::vector<std::pair<std::string, ExpressionPtr>> fields)
      : fields_(std::move(fields)) {}

  Result<Value> Evaluate(Variables* vars) const override {
    DocumentBuilder out;
    for (const auto& [name, expr] : fields_) {
      CAIRN_ASSIGN_OR_RETURN(Value v, expr->Evaluate(vars));
      out.Append(name, v);
    }
    return out.Finish();
  }
  bool Foldable() const override {
    return std::all_of(fields_.begin(), fields_.end(),
                       [](const auto& f) { return f.second->constant() != nullptr; });
  }

 private:
  std::vector<std::pair<std::string, ExpressionPtr>> fields_;
};

// [<expr>, ...]: missing elements become null.
class ArrayExpression final : public Expression {
 public:
  explicit ArrayExpression(std::vector<ExpressionPtr> elements) : elements_(std::move(elements)) {}

  Result<Value> Evaluate(Variables* vars) const override {
    ArrayBuilder out;
    for (const ExpressionPtr& e : elements_) {
      CAIRN_ASSIGN_OR_RETURN(Value v, e->Evaluate(vars));
      out.Append(v);
    }
    return out.Finish();
  }
  bool Foldable() const override {
    return std::all_of(elements_.begin(), elements_.end(),
                       [](const ExpressionPtr& e) { return e->constant() != nullptr; });
  }

 private:
  std::vector<ExpressionPtr> elements_;
};

// ---- Names ----

// The '$'-prefixed names FieldPath accepts (DBRef and metadata fields).
bool IsAllowedDollarField(std::string_view name) {
  static constexpr std::string_view kAllowed[] = {
      "$id", "$ref", "$db", "$sortKey", "$recordId", "$searchSortValues", "$searchScore"};
  return std::find(std::begin(kAllowed), std::end(kAllowed), name) != std::end(kAllowed);
}

// FieldPath::uassertValidFieldName.
Status ValidateFieldName(std::string_view name) {
  if (name.empty()) {
    return Status(ErrorCode::kLocation15998, "FieldPath field names may not be empty strings.");
  }
  if (name[0] == '$' && !IsAllowedDollarField(name)) {
    return Status(ErrorCode::kLocation16410,
                  "FieldPath field names may not start with '$'. Consider using $getField or "
                  "$setField.");
  }
  if (name.find('\0') != std::string_view::npos) {
    return Status(ErrorCode::kLocation16411,
                  "FieldPath field names may not contain '\\0'. Consider using $getField or "
                  "$setField.");
  }
  if (name.find('.') != std::string_view::npos) {
    return Status(ErrorCode::kLocation16412,
                  "FieldPath field names may not contain '.'. Consider using $getField or "
                  "$setField.");
  }
  return Status::OK();
}

}  // namespace

// The FieldPath constructor: a dotted path split into validated components.
Result<std::vector<std::string>> SplitFieldPath(std::string_view path) {
  if (path.empty()) {
    return Status(ErrorCode::kLocation40352, "FieldPath cannot be constructed with empty string");
  }
  if (path.back() == '.') {
    return Status(ErrorCode::kLocation40353, "FieldPath must not end with a '.'.");
  }
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string_view part =
        path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    CAIRN_RETURN_IF_ERROR(ValidateFieldName(part));
    parts.emplace_back(part);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() > 200) return Status(ErrorCode::kOverflow, "FieldPath is too long");
  return parts;
}

namespace {

// variable_validation.cpp: FailedToParse for every rule.
Status ValidateVariableName(std::string_view name, bool (*first_ok)(char)) {
  if (name.empty()) {
    return Status(ErrorCode::kFailedToParse, "empty variable names are not allowed");
  }
  if (!first_ok(name[0])) {
    return Status(
        ErrorCode::kFailedToParse,
        "'" + std::string(name) + "' starts with an invalid character for a user variable name");
  }
  for (size_t i = 1; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || (c & '\x80');
    if (!ok) {
      return Status(ErrorCode::kFailedToParse, "'" + std::string(name) +
                                                   "' contains an invalid character for a "
                                                   "variable name: '" +
                                                   std::string(1, c) + "'");
    }
  }
  return Status::OK();
}

// Built-in variables (Variables::kBuiltinVarNameToId).
constexpr std::string_view kBuiltinVariables[] = {
    "CLUSTER_TIME", "IS_MR", "JS_SCOPE", "NOW", "REMOVE", "ROOT", "SEARCH_META", "USER_ROLES"};

bool IsBuiltinVariable(std::string_view name) {
  return std::find(std::begin(kBuiltinVariables), std::end(kBuiltinVariables), name) !=
         std::end(kBuiltinVariables);
}

// ---- Parsing ----

Result<ExpressionPtr> ParseFieldPathOrVariable(std::string_view raw, ParseContext& ctx) {
  if (raw.size() < 2) {
    return Status(ErrorCode::kLocation16872, "'$' by itself is not a valid FieldPath");
  }
  if (raw[1] != '$') {
    CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> path, SplitFieldPath(raw.substr(1)));
    CAIRN_ASSIGN_OR_RETURN(ParseContext::Binding current, ctx.Lookup("CURRENT"));
    if (ctx.parsing_command_let && current.kind == ParseContext::Binding::Kind::kRoot) {
      return Status(ErrorCode::kLocation4890500,
                    "Command let Expression tried to access a field, but this is not allowed "
                    "becauseCommand let Expressions run before the query examines any "
                    "documents.");
    }
    return ExpressionPtr(std::make_unique<FieldPathExpression>(std::string(raw), current.kind,
                                                               current.slot, std::move(path)));
  }
  std::string_view rest = raw.substr(2);
  std::string_view name = rest.substr(0, rest.find('.'));
  CAIRN_RETURN_IF_ERROR(ValidateVariableNameForRead(name));
  CAIRN_ASSIGN_OR_RETURN(ParseContext::Binding binding, ctx.Lookup(name));
  CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> path, SplitFieldPath(rest));
  path.erase(path.begin());  // the variable's own name
  switch (binding.kind) {
    case ParseContext::Binding::Kind::kRemove:
      return MakeConstant(Value());
    case ParseContext::Binding::Kind::kConstant: {
      CAIRN_ASSIGN_OR_RETURN(Value constant, EvaluatePathFrom(binding.constant, path));
      return MakeConstant(constant.Owned());
    }
    case ParseContext::Binding::Kind::kRoot:
      if (ctx.parsing_command_let) {
        return Status(ErrorCode::kLocation4890500,
                      "Command let Expression tried to access a field, but this is not allowed "
                      "becauseCommand let Expressions run before the query examines any "
                      "documents.");
      }
      break;
    default:
      break;
  }
  return ExpressionPtr(std::make_unique<FieldPathExpression>(std::string(raw), binding.kind,
                                                             binding.slot, std::move(path)));
}

// Folds an operator whose operands are all constants into its value (ExpressionNary::optimize).
Result<ExpressionPtr> Fold(ExpressionPtr node, ParseContext& ctx) {
  if (!ctx.fold_constants || !node->Foldable() || node->constant() != nullptr) return node;
  Variables vars(ctx.num_slots());
  vars.SetRoot(BsonView());
  CAIRN_ASSIGN_OR_RETURN(Value value, node->Evaluate(&vars));
  return MakeConstant(value.Owned());
}

Result<ExpressionPtr> ParseOperator(BsonView object, ParseContext& ctx) {
  bson_iter_t it;
  object.Init(&it);
  bson_iter_next(&it);
  if (object.CountKeys() != 1) {
    return Status(ErrorCode::kLocation15983,
                  "An object representing an expression must have exactly one field: " +
                      ToShellString(object));
  }
  std::string_view name = IterKey(&it);
  const ops::OperatorRow* row = ops::FindOperator(name);
  if (row == nullptr) {
    if (ops::IsNotSupportedOperator(name)) {
      return Status(ErrorCode::kBadValue,
                    "The expression " + std::string(name) + " is not supported by Cairn yet");
    }
    return Status(ErrorCode::kInvalidPipelineOperator,
                  "Unrecognized expression '" + std::string(name) + "'");
  }
  Result<ExpressionPtr> node =
      row->parse != nullptr
          ? row->parse(&it, row->name, ctx)
          : ops::ParsePositional(&it, row->name, ctx, row->evaluate, row->min_args, row->max_args);
  if (!node.ok()) return node.status();
  return Fold(std::move(node).value(), ctx);
}

Result<ExpressionPtr> ParseArray(BsonView array, ParseContext& ctx) {
  std::vector<ExpressionPtr> elements;
  bson_iter_t it;
  array.Init(&it);
  while (bson_iter_next(&it)) {
    CAIRN_ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, ctx));
    elements.push_back(std::move(e));
  }
  return Fold(std::make_unique<ArrayExpression>(std::move(elements)), ctx);
}

}  // namespace

// ---- Public parsing entry points ----

ExpressionPtr MakeConstant(Value value) {
  return std::make_unique<ConstantExpression>(std::move(value));
}

Result<ExpressionPtr> ParseOperand(const bson_iter_t* value, ParseContext& ctx) {
  switch (bson_iter_type(value)) {
    case BSON_TYPE_UTF8: {
      std::string_view s = IterUtf8(value);
      if (!s.empty() && s[0] == '$') return ParseFieldPathOrVariable(s, ctx);
      break;
    }
    case BSON_TYPE_DOCUMENT:
      return ParseObjectExpression(IterDocument(value), ctx);
    case BSON_TYPE_ARRAY:
      return ParseArray(IterDocument(value), ctx);
    default:
      break;
  }
  return MakeConstant(Value::Element(value).Owned());
}

Result<ExpressionPtr> ParseObjectExpression(BsonView object, ParseContext& ctx) {
  bson_iter_t it;
  if (object.Init(&it) && bson_iter_next(&it)) {
    std::string_view first = IterKey(&it);
    if (!first.empty() && first[0] == '$') return ParseOperator(object, ctx);
  }
  std::vector<std::pair<std::string, ExpressionPtr>> fields;
  std::unordered_set<std::string_view> seen;
  object.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    CAIRN_RETURN_IF_ERROR(ValidateFieldName(name));
    if (!seen.insert(name).second) {
      return Status(ErrorCode::kLocation16406,
                    "duplicate field name specified in object literal: " + ToShellString(object));
    }
    CAIRN_ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, ctx));
    fields.emplace_back(std::string(name), std::move(e));
  }
  return Fold(std::make_unique<ObjectExpression>(std::move(fields)), ctx);
}

Status ValidateVariableNameForWrite(std::string_view name) {
  if (name == "CURRENT") return Status::OK();  // the one system variable users may rebind
  return ValidateVariableName(name, [](char c) { return (c >= 'a' && c <= 'z') || (c & '\x80'); });
}

Status ValidateVariableNameForRead(std::string_view name) {
  return ValidateVariableName(name, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c & '\x80');
  });
}

// ---- Variables ----

void Variables::SetRoot(BsonView doc) { root_ = Value::DocumentView(doc); }

// ---- ParseContext ----

ParseContext::ParseContext(std::shared_ptr<const ExpressionContext> context)
    : context_(context != nullptr ? std::move(context) : ExpressionContext::Make()) {}

int ParseContext::Define(std::string_view name) {
  int slot = next_slot_++;
  scope_.emplace_back(std::string(name), slot);
  return slot;
}

Result<ParseContext::Binding> ParseContext::Lookup(std::string_view name) const {
  Binding binding;
  for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {
    if (it->first == name) {
      binding.kind = Binding::Kind::kSlot;
      binding.slot = it->second;
      return binding;
    }
  }
  if (name == "ROOT" || name == "CURRENT") return binding;  // CURRENT not rebound is ROOT
  if (name == "REMOVE") {
    binding.kind = Binding::Kind::kRemove;
    return binding;
  }
  if (name == "NOW") {
    binding.kind = Binding::Kind::kConstant;
    binding.constant = Value::Date(context_->now_millis());
    return binding;
  }
  if (name == "CLUSTER_TIME") {
    binding.kind = Binding::Kind::kClusterTime;  // a standalone server has no cluster time
    return binding;
  }
  if (IsBuiltinVariable(name)) {
    binding.kind = Binding::Kind::kUnavailable;
    return binding;
  }
  if (const Value* value = context_->FindVariable(name)) {
    binding.kind = Binding::Kind::kConstant;
    binding.constant = *value;
    return binding;
  }
  return Status(ErrorCode::kLocation17276, "Use of undefined variable: " + std::string(name));
}

// ---- ExpressionContext ----

namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::shared_ptr<const ExpressionContext> ExpressionContext::Make() {
  auto context = std::make_shared<ExpressionContext>();
  context->now_millis_ = NowMillis();
  return context;
}

Result<std::shared_ptr<const ExpressionContext>> ExpressionContext::Make(BsonView let) {
  return MakeAt(NowMillis(), let);
}

Result<std::shared_ptr<const ExpressionContext>> ExpressionContext::MakeAt(int64_t now_millis,
                                                                           BsonView let) {
  auto context = std::make_shared<ExpressionContext>();
  context->now_millis_ = now_millis;
  bson_iter_t it;
  if (!let.Init(&it)) return std::shared_ptr<const ExpressionContext>(context);
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    if (Status valid = ValidateVariableNameForWrite(name); !valid.ok() || name == "CURRENT") {
      if (IsBuiltinVariable(name) || name == "CURRENT") {
        return Status(ErrorCode::kLocation4738901,
                      "Attempt to set internal constant: " + std::string(name));
      }
      return valid.WithContext("Invalid 'let' parameter");
    }
    // Later values may read earlier ones: parse each against the context built so far.
    ParseContext ctx(context);
    ctx.parsing_command_let = true;
    CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&it, ctx));
    Variables vars(ctx.num_slots());
    vars.SetRoot(BsonView());
    CAIRN_ASSIGN_OR_RETURN(Value value, expr->Evaluate(&vars));
    context->variables_.emplace_back(std::string(name), value.Owned());
  }
  return std::shared_ptr<const ExpressionContext>(context);
}

const Value* ExpressionContext::FindVariable(std::string_view name) const {
  for (auto it = variables_.rbegin(); it != variables_.rend(); ++it) {
    if (it->first == name) return &it->second;
  }
  return nullptr;
}

// ---- Operator parsing helpers (operator.h) ----

namespace ops {

bool OperatorExpression::Foldable() const {
  if (!foldable_) return false;
  for (const ExpressionPtr& operand : operands_) {
    if (operand != nullptr && operand->constant() == nullptr) return false;
  }
  return true;
}

Result<std::vector<ExpressionPtr>> ParseArguments(const bson_iter_t* arg, ParseContext& ctx) {
  std::vector<ExpressionPtr> operands;
  if (BSON_ITER_HOLDS_ARRAY(arg)) {
    bson_iter_t it;
    IterDocument(arg).Init(&it);
    while (bson_iter_next(&it)) {
      CAIRN_ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, ctx));
      operands.push_back(std::move(e));
    }
  } else {
    CAIRN_ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(arg, ctx));
    operands.push_back(std::move(e));
  }
  return operands;
}

Status CheckExactArity(std::string_view name, size_t given, size_t expected) {
  if (given == expected) return Status::OK();
  return Status(ErrorCode::kLocation16020, "Expression " + std::string(name) + " takes exactly " +
                                               std::to_string(expected) + " arguments. " +
                                               std::to_string(given) + " were passed in.");
}

Status CheckArityRange(std::string_view name, size_t given, size_t min, size_t max) {
  if (given >= min && given <= max) return Status::OK();
  return Status(ErrorCode::kLocation28667, "Expression " + std::string(name) + " takes at least " +
                                               std::to_string(min) + " arguments, and at most " +
                                               std::to_string(max) + ", but " +
                                               std::to_string(given) + " were passed in.");
}

Result<ExpressionPtr> ParsePositional(const bson_iter_t* arg, std::string_view name,
                                      ParseContext& ctx, OperatorExpression::Evaluator evaluate,
                                      int min_args, int max_args) {
  CAIRN_ASSIGN_OR_RETURN(std::vector<ExpressionPtr> operands, ParseArguments(arg, ctx));
  if (max_args != kVariadic) {
    if (min_args == max_args) {
      CAIRN_RETURN_IF_ERROR(CheckExactArity(name, operands.size(), max_args));
    } else {
      CAIRN_RETURN_IF_ERROR(CheckArityRange(name, operands.size(), min_args, max_args));
    }
  }
  auto op = std::make_unique<OperatorExpression>(name, std::move(operands), evaluate);
  op->set_collator(ctx.context().shared_collator());
  return ExpressionPtr(std::move(op));
}

bool RecurseObjectArgument(const bson_iter_t* arg, bson_iter_t* it) {
  return BSON_ITER_HOLDS_DOCUMENT(arg) && bson_iter_recurse(arg, it);
}

bool NamedArguments::Collect(const bson_iter_t* arg, std::initializer_list<std::string_view> names,
                             std::string_view* unknown) {
  bson_iter_t it;
  if (!RecurseObjectArgument(arg, &it)) return true;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      *unknown = key;
      return false;
    }
    size_t i = 0;
    while (i < count_ && names_[i] != key) ++i;  // a repeated name: the last one counts
    if (i == count_) {
      if (count_ == kMaxArguments) continue;
      ++count_;
    }
    names_[i] = key;
    values_[i] = BsonElement(&it);
  }
  return true;
}

bool NamedArguments::Get(std::string_view name, bson_iter_t* it) const {
  for (size_t i = 0; i < count_; ++i) {
    if (names_[i] == name) {
      *it = values_[i].iter();
      return true;
    }
  }
  return false;
}

bool NamedArguments::Has(std::string_view name) const {
  bson_iter_t it;
  return Get(name, &it);
}

}  // namespace ops

}  // namespace cairn::query
