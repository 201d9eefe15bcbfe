// The aggregation expression language (MongoDB 7.0's Expression): parsing a BSON value into an
// immutable tree of Expression nodes, and evaluating that tree against a document. It serves $expr
// in filters, the pipeline stages ($project, $addFields, $group, $replaceRoot, ...) and
// pipeline-style updates.
//
// Parsing follows Expression::parseOperand / parseObject / parseExpression: a string "$a.b" is a
// field path, "$$v.a" a variable, a document whose first field starts with '$' an operator (one
// field only: 15983; unknown name: 168 InvalidPipelineOperator), any other document an object of
// expressions, an array an array of expressions, anything else a constant. Operators live one
// family per file under ops/ and are found through one sorted table (registry.cc). As MongoDB's
// optimize() does, an operator whose operands are all constants is evaluated once at parse time
// (so its errors surface at parse time too).
//
// Lifetimes: ExpressionContext is per command (shared, immutable). An Expression tree is
// immutable and thread-safe to evaluate; Variables is per-evaluation state (one per executor or
// per call), not thread-safe. Values an evaluation returns may view the input document and the
// tree's constants: they are valid while both are.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "common/string_comparator.h"
#include "query/expression/document_metadata.h"
#include "query/expression/value.h"

namespace cairn::query {

// What a command fixes for every expression it runs: $$NOW (one instant per command) and the
// variables of the command's `let` document, each evaluated once. Immutable; shared.
class ExpressionContext {
 public:
  // No `let` variables; $$NOW is the current time.
  static std::shared_ptr<const ExpressionContext> Make();
  // Evaluates a command's `let` document (Variables::seedVariablesWithLetParameters): each value
  // is an expression evaluated against no document (4890500 if it reads a field), later ones may
  // read earlier ones; names must be user-writable ("Invalid 'let' parameter :: caused by :: ...",
  // FailedToParse), system names are refused (4738901).
  static Result<std::shared_ptr<const ExpressionContext>> Make(BsonView let);
  // For tests: a fixed $$NOW.
  static Result<std::shared_ptr<const ExpressionContext>> MakeAt(int64_t now_millis, BsonView let);

  int64_t now_millis() const { return now_millis_; }
  // The value of command variable `name`, nullptr when there is none.
  const Value* FindVariable(std::string_view name) const;

  // The command's collation (query/collation/collator.h), for every string comparison its filter,
  // sort, grouping and expressions make: nullptr is binary ("simple"). Default: none.
  const StringComparator* collator() const { return collator_.get(); }
  const std::shared_ptr<const StringComparator>& shared_collator() const { return collator_; }
  // This context with `more` added as variables (shadowing same-named ones): $lookup's `let`
  // values, which its sub-pipeline reads as constants.
  std::shared_ptr<const ExpressionContext> WithVariables(
      std::vector<std::pair<std::string, Value>> more) const {
    auto copy = std::make_shared<ExpressionContext>(*this);
    for (auto& variable : more) copy->variables_.push_back(std::move(variable));
    return copy;
  }
  // This context with `collator` as its collation (a copy; this one is unchanged).
  std::shared_ptr<const ExpressionContext> WithCollator(
      std::shared_ptr<const StringComparator> collator) const {
    auto copy = std::make_shared<ExpressionContext>(*this);
    copy->collator_ = std::move(collator);
    return copy;
  }

 private:
  int64_t now_millis_ = 0;
  std::vector<std::pair<std::string, Value>> variables_;  // values own their bytes
  std::shared_ptr<const StringComparator> collator_;
};

// Per-evaluation state: $$ROOT (and $$CURRENT unless rebound) and the slots of the variables
// $let, $map, $filter and $reduce bind. Size it with the ParseContext's num_slots().
class Variables {
 public:
  explicit Variables(size_t num_slots = 0) : slots_(num_slots) {}

  // $$ROOT = $$CURRENT = doc, a view: `doc` must outlive the evaluation.
  void SetRoot(BsonView doc);
  void SetRoot(Value doc) { root_ = std::move(doc); }
  const Value& root() const { return root_; }

  const Value& Get(int slot) const { return slots_[static_cast<size_t>(slot)]; }
  void Set(int slot, Value v) { slots_[static_cast<size_t>(slot)] = std::move(v); }

  // The metadata of $$ROOT ({$meta: ...}): an executor points it once at its input, which
  // answers for the document being evaluated. Null: none (e.g. a find filter's $expr).
  void set_metadata(const DocumentMetadata* metadata) { metadata_ = metadata; }
  const DocumentMetadata* metadata() const { return metadata_; }

 private:
  Value root_;
  const DocumentMetadata* metadata_ = nullptr;
  std::vector<Value> slots_;
};

// One node of a parsed expression.
class Expression {
 public:
  virtual ~Expression() = default;

  virtual Result<Value> Evaluate(Variables* vars) const = 0;

  // The value when this node is a constant (a literal, $literal, or a folded subtree).
  virtual const Value* constant() const { return nullptr; }
  // True when parse-time folding may evaluate this node now: it reads no document or variable
  // (typically: all its operands are constants).
  virtual bool Foldable() const { return false; }
  // For field paths and variables: the text as written ("$a.b", "$$x"); empty otherwise.
  virtual std::string_view path_text() const { return {}; }
};

using ExpressionPtr = std::unique_ptr<const Expression>;

// Parse-time state: the command's context and the scopes of variables defined by enclosing
// $let/$map/$filter/$reduce (MongoDB's VariablesParseState). Not thread-safe; one per parse.
class ParseContext {
 public:
  explicit ParseContext(std::shared_ptr<const ExpressionContext> context = nullptr);

  const ExpressionContext& context() const { return *context_; }
  const std::shared_ptr<const ExpressionContext>& shared_context() const { return context_; }

  // Scopes: Define() adds a variable visible until the scope opened before it is closed.
  size_t OpenScope() const { return scope_.size(); }
  int Define(std::string_view name);
  void CloseScope(size_t mark) { scope_.resize(mark); }

  // How a variable name resolves (VariablesParseState::getVariable).
  struct Binding {
    enum class Kind { kSlot, kRoot, kRemove, kConstant, kClusterTime, kUnavailable };
    Kind kind = Kind::kRoot;
    int slot = -1;   // kSlot
    Value constant;  // kConstant ($$NOW, command `let` variables)
  };
  // 17276 "Use of undefined variable: x" when unknown; CURRENT not rebound is ROOT.
  Result<Binding> Lookup(std::string_view name) const;

  // Slots a Variables needs to evaluate what was parsed with this context.
  size_t num_slots() const { return static_cast<size_t>(next_slot_); }

  // True while parsing a command's `let` values (which may not read documents).
  bool parsing_command_let = false;
  // False to parse without evaluating constant subtrees: for telling a parse error from an
  // evaluation error, which MongoDB meets later, at optimize() (a find projection's $slice).
  bool fold_constants = true;

 private:
  std::shared_ptr<const ExpressionContext> context_;
  std::vector<std::pair<std::string, int>> scope_;
  int next_slot_ = 0;
};

// Expression::parseOperand: parses any expression operand (`value` positioned on it).
Result<ExpressionPtr> ParseOperand(const bson_iter_t* value, ParseContext& ctx);

// Expression::parseObject over a whole document: {} and {a: <expr>, ...} build documents,
// {$op: args} is an operator.
Result<ExpressionPtr> ParseObjectExpression(BsonView object, ParseContext& ctx);

// An expression that always yields `value` (which it keeps alive).
ExpressionPtr MakeConstant(Value value);

// MongoDB 7.0 expression operator names ($add, $concat, $year, ...), implemented by Cairn or not:
// tells a real operator from a misspelt one.
bool IsKnownExpressionOperator(std::string_view name);

// MongoDB's FieldPath: a dotted path split into components, each validated (40352 empty path,
// 40353 trailing '.', 15998 empty component, 16410 leading '$', 16411 NUL, 16412 '.').
Result<std::vector<std::string>> SplitFieldPath(std::string_view path);

// MongoDB's variable name rules (variable_validation.cpp), FailedToParse on violation:
// user-writable names ($let vars, `as`, command `let`) start with a lowercase letter or a
// non-ASCII byte; readable names also with an uppercase letter.
Status ValidateVariableNameForWrite(std::string_view name);
Status ValidateVariableNameForRead(std::string_view name);

}  // namespace cairn::query
