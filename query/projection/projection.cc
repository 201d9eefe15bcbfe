// Projection: parsing of find's projection spec into an inclusion/exclusion tree and its
// application to documents (see projection.h). Mirrors MongoDB's projection_ast parser
// (projection_parser.cpp) for errors and the find() projection executor for output shape
// (projection_executor_builder.cpp, projection_executor_utils.cpp): the included fields are
// copied in document order, then the computed fields — expressions and $elemMatch, evaluated
// against the original document — are set in spec order by query/pipeline's ComputedFields (the
// same rules as $project and $addFields: in place when the field exists, appended otherwise);
// $slice is applied to the projected document, and the positional `.$` rewrites the projected
// document's first array on its path. Not here: $meta (no text search or metadata yet).
#include "query/projection/projection.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/field_path.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/matcher/text_expression.h"
#include "query/pipeline/computed_fields.h"

namespace cairn::query {

// A node of the parsed projection tree. A leaf carries include/exclude, or one of the find-only
// operators; an internal node has children keyed by one path component. The root also records
// the projection's type and the operators that act on the whole document.
struct Projection::Node {
  bool leaf = false;
  bool include = false;    // leaf only
  bool inclusion = false;  // root only: inclusion (true) or exclusion (false) projection
  std::map<std::string, std::unique_ptr<Node>, std::less<>> children;

  // $slice leaf (include is true: the field is kept, its array sliced).
  bool slice = false;
  std::optional<int> slice_skip;
  int slice_limit = 0;
  // A computed field's leaf (an expression or $elemMatch, evaluated by the root's
  // computed_fields): the walk over the document treats it as a field the projection does not
  // name.
  bool computed = false;
  // This node or one below it is computed: in an inclusion, a scalar met on the way is kept as a
  // placeholder that the computed fields replace with a document, in place (MongoDB's
  // applyExpressionsToValue).
  bool subtree_computed = false;

  // Root only: the computed fields in spec order (null: none), the variable slots their
  // expressions need, and the command context they were parsed with (kept alive with them).
  std::shared_ptr<const ComputedFields> computed_fields;
  size_t num_slots = 0;
  std::shared_ptr<const ExpressionContext> context;
  // Root only: the positional projection (its path without the `.$`, and the query that
  // supplies the element index).
  std::vector<std::string> positional_path;
  std::shared_ptr<const Matcher> query;

  const Node* Find(std::string_view name) const {
    auto it = children.find(name);
    return it == children.end() ? nullptr : it->second.get();
  }
};

namespace {

using Node = Projection::Node;

Status NotSupported(std::string what) {
  return Status(ErrorCode::kBadValue, std::move(what) + " is not supported yet");
}

// The field names FieldPath allows to start with '$' (DBRef's, and the metadata fields MongoDB
// projects itself).
bool IsAllowedDollarPrefixedField(std::string_view name) {
  return name == "$id" || name == "$ref" || name == "$db" || name == "$sortKey" ||
         name == "$recordId";
}

// MongoDB's FieldPath validation of a projection field name.
Status ValidateFieldPath(std::string_view path) {
  if (path.empty()) {
    return Status(ErrorCode::kLocation40352, "FieldPath cannot be constructed with empty string");
  }
  for (const std::string& part : SplitDottedPath(path)) {
    if (part.empty()) {
      return Status(ErrorCode::kLocation15998, "FieldPath field names may not be empty strings.");
    }
    if (part[0] == '$' && !IsAllowedDollarPrefixedField(part)) {
      return Status(ErrorCode::kLocation16410,
                    "FieldPath field names may not start with '$'. Consider using $getField or "
                    "$setField.");
    }
    if (part.find('\0') != std::string::npos) {
      return Status(ErrorCode::kBadValue, "FieldPath field names may not contain '\\0'.");
    }
  }
  return Status::OK();
}

// Where the first positional operator of a projection path is (findFirstPositionalOperator):
// [begin, end) of ".$." inside, ".$" at the end, or the whole path "$".
std::optional<std::pair<size_t, size_t>> FindFirstPositional(std::string_view path) {
  size_t inner = path.find(".$.");
  if (inner != std::string_view::npos) return std::make_pair(inner, inner + 3);
  if (path.size() >= 2 && path.substr(path.size() - 2) == ".$") {
    return std::make_pair(path.size() - 2, path.size());
  }
  if (path == "$") return std::make_pair(size_t{0}, path.size());
  return std::nullopt;
}

// hasPositionalOperatorMatch over the filter document: some predicate's path starts with
// `field` (through $and/$or/$nor; $expr, $where and the like have no path).
bool QueryHasPathStartingWith(BsonView filter, std::string_view field) {
  bson_iter_t it;
  if (!filter.Init(&it)) return false;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (!key.empty() && key[0] == '$') {
      if ((key == "$and" || key == "$or" || key == "$nor") && BSON_ITER_HOLDS_ARRAY(&it)) {
        bson_iter_t clause;
        bson_iter_recurse(&it, &clause);
        while (bson_iter_next(&clause)) {
          if (BSON_ITER_HOLDS_DOCUMENT(&clause) &&
              QueryHasPathStartingWith(IterDocument(&clause), field)) {
            return true;
          }
        }
      }
      continue;
    }
    if (key.substr(0, key.find('.')) == field) return true;
  }
  return false;
}

std::string JoinTail(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (i > 1) out += '.';
    out += parts[i];
  }
  return out;
}

// Walks to (creating) the internal node for parts[0..n-1) below `parent`; MongoDB's
// addNodeAtPathHelper collision rules (31249 through a leaf).
Result<Node*> WalkToParent(Node* parent, const std::vector<std::string>& parts,
                           std::string_view full) {
  Node* current = parent;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    auto it = current->children.find(parts[i]);
    if (it == current->children.end()) {
      auto child = std::make_unique<Node>();
      Node* raw = child.get();
      current->children.emplace(parts[i], std::move(child));
      current = raw;
      continue;
    }
    if (it->second->leaf) {
      return Status(ErrorCode::kLocation31249, "Path collision at " + std::string(full) +
                                                   " remaining portion " + JoinTail(parts));
    }
    current = it->second.get();
  }
  return current;
}

// Adds the leaf `leaf` at `path` below `parent` (31250 when the path is taken).
Status AddLeafNode(Node* parent, std::string_view path, std::unique_ptr<Node> leaf) {
  std::vector<std::string> parts = SplitDottedPath(path);
  CAIRN_ASSIGN_OR_RETURN(Node * owner, WalkToParent(parent, parts, path));
  if (owner->children.count(parts.back()) != 0) {
    return Status(ErrorCode::kLocation31250, "Path collision at " + std::string(path));
  }
  leaf->leaf = true;
  owner->children.emplace(parts.back(), std::move(leaf));
  return Status::OK();
}

Status AddLeaf(Node* parent, std::string_view path, bool include) {
  auto leaf = std::make_unique<Node>();
  leaf->include = include;
  return AddLeafNode(parent, path, std::move(leaf));
}

// Finds or creates the internal node for a sub-projection {path: {...}}.
Result<Node*> AddInternal(Node* parent, std::string_view path) {
  std::vector<std::string> parts = SplitDottedPath(path);
  CAIRN_ASSIGN_OR_RETURN(Node * owner, WalkToParent(parent, parts, path));
  auto it = owner->children.find(parts.back());
  if (it != owner->children.end()) {
    if (it->second->leaf) {
      return Status(ErrorCode::kLocation31250, "Path collision at " + std::string(path));
    }
    return it->second.get();
  }
  auto child = std::make_unique<Node>();
  Node* raw = child.get();
  owner->children.emplace(parts.back(), std::move(child));
  return raw;
}

enum class Type { kUnknown, kInclusion, kExclusion };

// The state of one projection parse (projection_parser.cpp's ParseContext).
struct ProjectionParse {
  Type type = Type::kUnknown;
  bool id_included_entirely = false;
  bool id_excluded_entirely = false;
  // find() only: the find-only operators are allowed, and the query positional `.$` needs.
  bool find = false;
  std::shared_ptr<const Matcher> query;
  // The command's context (`let`, $$NOW, collation; may be null) and the expression parse state
  // every computed field of the projection shares (its variable slots).
  std::shared_ptr<const ExpressionContext> context;
  ParseContext* expressions = nullptr;
  ComputedFields* computed = nullptr;
  Node* root = nullptr;
  bool has_positional = false;
  bool has_elem_match = false;
  bool has_find_slice = false;
};

bool IsInclusionOrExclusionType(bson_type_t type) {
  switch (type) {
    case BSON_TYPE_BOOL:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128:
      return true;
    default:
      return false;
  }
}

// The BSON truth value of a bool or number (nonzero / true; NaN is true).
bool TrueValue(const bson_iter_t* it) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_BOOL:
      return bson_iter_bool(it);
    case BSON_TYPE_INT32:
      return bson_iter_int32(it) != 0;
    case BSON_TYPE_INT64:
      return bson_iter_int64(it) != 0;
    case BSON_TYPE_DOUBLE:
      return bson_iter_double(it) != 0.0;  // NaN != 0 → true
    case BSON_TYPE_DECIMAL128: {
      double d = 0;
      IterAsDouble(it, &d);
      return d != 0.0;
    }
    default:
      return true;
  }
}

// A number as a 32-bit int the way find's $slice reads it: truncated, NaN as 0, out-of-range
// values clamped.
int SliceNumber(const bson_iter_t* it) {
  if (BSON_ITER_HOLDS_INT32(it)) return bson_iter_int32(it);
  double d = 0;
  IterAsDouble(it, &d);
  if (std::isnan(d)) return 0;
  if (d >= static_cast<double>(INT_MAX)) return INT_MAX;
  if (d <= static_cast<double>(INT_MIN)) return INT_MIN;
  return static_cast<int>(d);
}

// The find() $slice syntax (attemptToParseFindSlice): a number, or [skip, limit] with a positive
// limit.
Status ParseFindSlice(const bson_iter_t* operand, Node* leaf) {
  if (IterIsNumber(operand)) {
    leaf->slice_limit = SliceNumber(operand);
    return Status::OK();
  }
  if (!BSON_ITER_HOLDS_ARRAY(operand)) {
    return Status(ErrorCode::kLocation31273,
                  "$slice only supports numbers and [skip, limit] arrays");
  }
  BsonView array = IterDocument(operand);
  if (array.CountKeys() != 2) {
    return Status(ErrorCode::kLocation31272,
                  "$slice array argument should be of form [skip, limit]");
  }
  bson_iter_t skip, limit;
  array.Init(&skip);
  bson_iter_next(&skip);
  limit = skip;
  bson_iter_next(&limit);
  if (!IterIsNumber(&skip)) {
    return Status(ErrorCode::kLocation31257,
                  "$slice expects the skip argument to be a number, got " +
                      std::string(BsonTypeName(bson_iter_type(&skip))));
  }
  if (!IterIsNumber(&limit)) {
    return Status(ErrorCode::kLocation31258,
                  "$slice expects the limit argument to be a number, got " +
                      std::string(BsonTypeName(bson_iter_type(&limit))));
  }
  if (SliceNumber(&limit) <= 0) {
    return Status(ErrorCode::kLocation31259,
                  "$slice limit must be positive, got " + std::to_string(SliceNumber(&limit)));
  }
  leaf->slice_skip = SliceNumber(&skip);
  leaf->slice_limit = SliceNumber(&limit);
  return Status::OK();
}

// find()'s {field: {$elemMatch: ...}} as a computed field (MongoDB's
// ExpressionInternalFindElemMatch): [the first element of the top-level array `field` that the
// query {field: {$elemMatch: ...}} matched in $$ROOT], or missing when it does not match.
class ElemMatchExpression final : public Expression {
 public:
  ElemMatchExpression(std::string field, std::shared_ptr<const Matcher> matcher)
      : field_(std::move(field)), matcher_(std::move(matcher)) {}

  Result<Value> Evaluate(Variables* vars) const override {
    BsonView doc = vars->root().document();
    MatchDetails details;
    CAIRN_ASSIGN_OR_RETURN(bool matched, matcher_->Matches(doc, &details));
    if (!matched || !details.elem_match_key) return Value();
    bson_iter_t array, element;
    if (!doc.Find(field_, &array) || !BSON_ITER_HOLDS_ARRAY(&array)) return Value();
    if (!IterDocument(&array).Find(*details.elem_match_key, &element)) return Value();
    ArrayBuilder out;
    out.AppendIter(&element);
    return out.Finish();
  }

 private:
  std::string field_;
  std::shared_ptr<const Matcher> matcher_;
};

// find()'s {field: {$meta: "textScore"}}: the score the query's $text search gives $$ROOT.
class TextScoreExpression final : public Expression {
 public:
  TextScoreExpression(const TextMatchExpression* text, std::shared_ptr<const Matcher> matcher)
      : text_(text), matcher_(std::move(matcher)) {}

  Result<Value> Evaluate(Variables* vars) const override {
    std::shared_ptr<const TextScorer> scorer = text_->scorer();
    if (scorer == nullptr) {
      return TextScoreNotAvailable();
    }
    return Value::Double(scorer->Score(vars->root().document()));
  }

 private:
  const TextMatchExpression* text_;  // in *matcher_
  std::shared_ptr<const Matcher> matcher_;
};

Status ParseElement(ProjectionParse* ctx, const bson_iter_t* elem, Node* parent, bool at_root,
                    const std::string& parent_path);

std::string JoinPath(const std::string& parent_path, std::string_view name) {
  return parent_path.empty() ? std::string(name) : parent_path + "." + std::string(name);
}

// Adds the computed field `expr` at `name` below `parent` (path collisions as for any leaf),
// evaluated by the root's ComputedFields in spec order.
Status AddComputed(ProjectionParse* ctx, Node* parent, const std::string& parent_path,
                   std::string_view name, ExpressionPtr expr) {
  auto leaf = std::make_unique<Node>();
  leaf->computed = true;
  CAIRN_RETURN_IF_ERROR(AddLeafNode(parent, name, std::move(leaf)));
  const std::string full = JoinPath(parent_path, name);
  Node* node = ctx->root;
  for (const std::string& part : SplitDottedPath(full)) {
    node->subtree_computed = true;
    node = node->children.find(part)->second.get();
  }
  node->subtree_computed = true;
  return ctx->computed->Add(full, std::move(expr));
}

// {name: {$op: ...}} where $op names an expression (attemptToParseGenericExpression): a computed
// field, which makes the projection an inclusion (31252 after an exclusion).
Status ParseExpressionField(ProjectionParse* ctx, std::string_view name, BsonView sub, Node* parent,
                            const std::string& parent_path) {
  bson_iter_t first;
  sub.Init(&first);
  bson_iter_next(&first);
  if (IterKey(&first) == "$meta") {
    // textScore in find: a computed field that leaves the projection's kind as the rest sets it.
    const TextMatchExpression* text = nullptr;
    if (ctx->find && ctx->query != nullptr && BSON_ITER_HOLDS_UTF8(&first) &&
        IterUtf8(&first) == "textScore" && sub.CountKeys() == 1) {
      Result<const TextMatchExpression*> found = FindTextClause(ctx->query->root());
      if (found.ok()) text = *found;
      if (text == nullptr) {
        return TextScoreNotAvailable();
      }
      return AddComputed(ctx, parent, parent_path, name,
                         std::make_unique<TextScoreExpression>(text, ctx->query));
    }
    return NotSupported("The $meta projection operator (field '" + std::string(name) + "')");
  }
  if (ctx->type == Type::kExclusion) {
    return Status(ErrorCode::kLocation31252,
                  "Cannot use expression other than $meta in exclusion projection");
  }
  ctx->type = Type::kInclusion;
  CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseObjectExpression(sub, *ctx->expressions));
  return AddComputed(ctx, parent, parent_path, name, std::move(expr));
}

// When the find() syntax does not fit, MongoDB parses {$slice: ...} as the aggregation $slice
// expression; when that fails to parse too, the error reports both. An expression that parses
// but fails when its constants are evaluated (28724 for a literal first argument that is not an
// array) fails later in MongoDB, at optimize(), without that context: Cairn folds constants
// while parsing, so the expression is first parsed without folding to tell the two apart.
Status ParseSliceExpression(ProjectionParse* ctx, std::string_view name, BsonView sub, Node* parent,
                            const std::string& parent_path, const Status& find_error) {
  ctx->expressions->fold_constants = false;
  Result<ExpressionPtr> unfolded = ParseObjectExpression(sub, *ctx->expressions);
  ctx->expressions->fold_constants = true;
  Status status = unfolded.status();
  if (status.ok()) {
    status = ParseExpressionField(ctx, name, sub, parent, parent_path);
    if (!status.ok() && status.code() != ErrorCode::kLocation31252 &&
        status.code() != ErrorCode::kLocation31249 && status.code() != ErrorCode::kLocation31250) {
      return status;  // an evaluation error
    }
  }
  if (status.ok()) return status;
  return status.WithContext("Invalid $slice syntax. The given syntax " + ToShellString(sub) +
                            " did not match the find() syntax because :: " + find_error.ToString() +
                            " :: The given syntax did not match the expression $slice syntax.");
}

// find()'s $slice and $elemMatch ({name: {$slice: ...}}, parseSubObjectAsExpression); false in
// *handled for anything else.
Status ParseFindOperator(ProjectionParse* ctx, std::string_view name, BsonView sub, Node* parent,
                         bool at_root, const std::string& parent_path, bool* handled) {
  bson_iter_t op;
  sub.Init(&op);
  bson_iter_next(&op);
  std::string_view op_name = IterKey(&op);
  *handled = false;
  if (op_name == "$slice") {
    *handled = true;
    auto leaf = std::make_unique<Node>();
    leaf->include = true;
    leaf->slice = true;
    Status find_syntax = ParseFindSlice(&op, leaf.get());
    if (!find_syntax.ok()) {
      return ParseSliceExpression(ctx, name, sub, parent, parent_path, find_syntax);
    }
    CAIRN_RETURN_IF_ERROR(AddLeafNode(parent, name, std::move(leaf)));
    ctx->has_find_slice = true;
    return Status::OK();
  }
  if (op_name == "$elemMatch") {
    *handled = true;
    if (!BSON_ITER_HOLDS_DOCUMENT(&op)) {
      return Status(ErrorCode::kLocation31274,
                    "elemMatch: Invalid argument, object required, but got " +
                        std::string(BsonTypeName(bson_iter_type(&op))));
    }
    if (ctx->has_positional) {
      return Status(ErrorCode::kLocation31255,
                    "Cannot specify positional operator and $elemMatch.");
    }
    if (!at_root || name.find('.') != std::string_view::npos) {
      return Status(ErrorCode::kLocation31275,
                    "Cannot use $elemMatch projection on a nested field.");
    }
    BsonDoc wrapped;  // {name: {$elemMatch: ...}}
    bson_t sub_doc = sub.AsBson();
    bson_append_document(wrapped.get(), name.data(), static_cast<int>(name.size()), &sub_doc);
    // Under the command's collation, as every comparison of the query is.
    CAIRN_ASSIGN_OR_RETURN(Matcher matcher, Matcher::Parse(wrapped.view(), ctx->context));
    auto expr = std::make_unique<ElemMatchExpression>(
        std::string(name), std::make_shared<const Matcher>(std::move(matcher)));
    CAIRN_RETURN_IF_ERROR(AddComputed(ctx, parent, parent_path, name, std::move(expr)));
    ctx->has_elem_match = true;
    return Status::OK();
  }
  return Status::OK();
}

Status ParseSubObject(ProjectionParse* ctx, std::string_view name, BsonView sub, Node* parent,
                      bool at_root, const std::string& parent_path) {
  CAIRN_RETURN_IF_ERROR(ValidateFieldPath(name));
  bson_iter_t it;
  if (sub.empty()) {
    return Status(ErrorCode::kLocation51270,
                  "An empty sub-projection is not a valid value. Found empty object at path");
  }
  if (sub.CountKeys() == 1 && sub.Init(&it) && bson_iter_next(&it) && IterKey(&it).size() > 0 &&
      IterKey(&it)[0] == '$') {
    std::string_view op = IterKey(&it);
    if (ctx->find) {
      bool handled = false;
      CAIRN_RETURN_IF_ERROR(
          ParseFindOperator(ctx, name, sub, parent, at_root, parent_path, &handled));
      if (handled) return Status::OK();
    } else if (op == "$elemMatch") {
      return Status(ErrorCode::kInvalidPipelineOperator, "Cannot use $elemMatch in this context");
    }
    if (IsKnownExpressionOperator(op)) {
      return ParseExpressionField(ctx, name, sub, parent, parent_path);
    }
    // Meant as an expression, unless the name is a field name FieldPath accepts.
    if (!IsAllowedDollarPrefixedField(op)) {
      return Status(ErrorCode::kLocation31325, "Unknown expression " + std::string(op));
    }
  }
  CAIRN_ASSIGN_OR_RETURN(Node * node, AddInternal(parent, name));
  std::string path = JoinPath(parent_path, name);
  if (!sub.Init(&it)) return Status(ErrorCode::kBadValue, "invalid projection sub-object");
  while (bson_iter_next(&it)) {
    CAIRN_RETURN_IF_ERROR(ParseElement(ctx, &it, node, /*at_root=*/false, path));
  }
  return Status::OK();
}

// The positional projection {"a.b.$": 1} (parseInclusion's positional branch): an inclusion of
// "a.b" whose first array takes the element the query matched.
Status ParsePositional(ProjectionParse* ctx, std::string_view name, Node* parent,
                       const std::string& parent_path, std::pair<size_t, size_t> positional) {
  if (ctx->has_positional) {
    return Status(ErrorCode::kLocation31276,
                  "Cannot specify more than one positional projection per query.");
  }
  if (ctx->has_elem_match) {
    return Status(ErrorCode::kLocation31256, "Cannot specify positional operator and $elemMatch.");
  }
  std::string_view match_field =
      parent_path.empty() ? name.substr(0, name.find('.'))
                          : std::string_view(parent_path).substr(0, parent_path.find('.'));
  if (ctx->query == nullptr) {
    return Status(ErrorCode::kLocation51050,
                  "Projections with a positional operator require a matcher");
  }
  if (!QueryHasPathStartingWith(ctx->query->filter(), match_field)) {
    return Status(ErrorCode::kLocation31277, "Positional projection '" + std::string(name) +
                                                 "' does not match the query document.");
  }
  if (name.size() >= 3 && name.substr(name.size() - 3) == ".$.") {
    return Status(ErrorCode::kLocation31270, "Path cannot end with '.$.'");
  }
  std::string_view rest = name.substr(positional.second);
  if (FindFirstPositional(rest) || rest == "$") {
    return Status(ErrorCode::kLocation31287,
                  "Cannot use positional operator twice: " + std::string(name));
  }
  std::string_view path = name.substr(0, positional.first);
  CAIRN_RETURN_IF_ERROR(ValidateFieldPath(path));
  CAIRN_RETURN_IF_ERROR(AddLeaf(parent, path, true));
  std::string full =
      parent_path.empty() ? std::string(path) : parent_path + "." + std::string(path);
  ctx->root->positional_path = SplitDottedPath(full);
  ctx->root->query = ctx->query;
  ctx->has_positional = true;
  return Status::OK();
}

// A value that is neither a number nor a bool nor an object ({a: "x"}, {a: "$b"}, {a: [...]},
// {a: null}: parseLiteral) is an expression: a computed field, which makes an inclusion (31310
// after an exclusion).
Status ParseLiteral(ProjectionParse* ctx, const bson_iter_t* elem, Node* parent,
                    const std::string& parent_path) {
  std::string_view name = IterKey(elem);
  CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(elem, *ctx->expressions));
  CAIRN_RETURN_IF_ERROR(ValidateFieldPath(name));
  CAIRN_RETURN_IF_ERROR(AddComputed(ctx, parent, parent_path, name, std::move(expr)));
  if (ctx->type == Type::kExclusion) {
    return Status(ErrorCode::kLocation31310, "Cannot use an expression " + std::string(name) +
                                                 ": " + ValueToShellString(elem) +
                                                 " in an exclusion projection");
  }
  ctx->type = Type::kInclusion;
  return Status::OK();
}

Status ParseElement(ProjectionParse* ctx, const bson_iter_t* elem, Node* parent, bool at_root,
                    const std::string& parent_path) {
  std::string_view name = IterKey(elem);
  std::optional<std::pair<size_t, size_t>> positional = FindFirstPositional(name);
  if (positional && !ctx->find) {
    return Status(ErrorCode::kLocation31324,
                  "Cannot use positional projection in aggregation projection");
  }
  bson_type_t type = bson_iter_type(elem);
  if (type == BSON_TYPE_DOCUMENT) {
    if (positional) {
      return Status(ErrorCode::kLocation31271,
                    "positional projection cannot be used with an expression or sub object");
    }
    return ParseSubObject(ctx, name, IterDocument(elem), parent, at_root, parent_path);
  }
  if (!IsInclusionOrExclusionType(type)) {
    if (positional) {
      return Status(ErrorCode::kLocation31308,
                    "positional projection cannot be used with a literal");
    }
    return ParseLiteral(ctx, elem, parent, parent_path);
  }
  const bool top_level_id = at_root && name == "_id";
  if (TrueValue(elem)) {
    if (positional) {
      CAIRN_RETURN_IF_ERROR(ParsePositional(ctx, name, parent, parent_path, *positional));
    } else {
      CAIRN_RETURN_IF_ERROR(ValidateFieldPath(name));
      CAIRN_RETURN_IF_ERROR(AddLeaf(parent, name, true));
    }
    if (top_level_id) {
      ctx->id_included_entirely = true;
    } else {
      if (ctx->type == Type::kExclusion) {
        return Status(
            ErrorCode::kLocation31253,
            "Cannot do inclusion on field " + std::string(name) + " in exclusion projection");
      }
      ctx->type = Type::kInclusion;
    }
  } else {
    CAIRN_RETURN_IF_ERROR(ValidateFieldPath(name));
    CAIRN_RETURN_IF_ERROR(AddLeaf(parent, name, false));
    if (top_level_id) {
      ctx->id_excluded_entirely = true;
    } else {
      if (ctx->type == Type::kInclusion) {
        return Status(
            ErrorCode::kLocation31254,
            "Cannot do exclusion on field " + std::string(name) + " in inclusion projection");
      }
      ctx->type = Type::kExclusion;
    }
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Applying a projection.

void AppendValue(bson_t* out, std::string_view key, const bson_iter_t* it) {
  AppendIter(out, key, it);
}

// find()'s $slice of an array (sliceArray): the first n, the last -n, or `limit` after `skip`
// (a negative skip counts from the end).
void AppendSlice(bson_t* out, std::string_view key, const bson_iter_t* array, const Node& leaf) {
  const int64_t length = IterDocument(array).CountKeys();
  int64_t start = 0, count = 0;
  const int64_t limit = leaf.slice_limit;
  if (!leaf.slice_skip) {
    if (limit < 0) {
      start = std::max<int64_t>(0, length + limit);
      count = length - start;
    } else {
      count = std::min(length, limit);
    }
  } else {
    const int64_t skip = *leaf.slice_skip;
    start = skip < 0 ? std::max<int64_t>(0, length + skip) : std::min(length, skip);
    count = std::min(length - start, limit);
  }
  bson_t sub;
  bson_append_array_begin(out, key.data(), static_cast<int>(key.size()), &sub);
  bson_iter_t it;
  bson_iter_recurse(array, &it);
  int64_t position = 0;
  uint32_t index = 0;
  while (bson_iter_next(&it) && position < start + count) {
    if (position++ < start) continue;
    const char* k;
    char buf[16];
    size_t len = bson_uint32_to_string(index++, &k, buf, sizeof buf);
    AppendValue(&sub, std::string_view(k, len), &it);
  }
  bson_append_array_end(out, &sub);
}

// One walker serves both kinds. What a field the projection does not name (and a scalar under
// a sub-projection, or a scalar array element) becomes is the only difference: an inclusion
// projection drops it, an exclusion projection keeps it. $slice applies where the path reaches
// an array through documents and arrays of documents, not inside arrays nested in arrays. A
// computed field counts as not named: the computed fields, applied afterwards, set it (and
// replace the scalars an inclusion kept for them as placeholders).
enum class Unlisted { kDrop, kKeep };

void ProjectArray(const Node& node, BsonView array, bson_t* out, Unlisted unlisted, bool slice_ok);

void ProjectDocument(const Node& node, BsonView doc, bson_t* out, Unlisted unlisted,
                     bool slice_ok) {
  bson_iter_t it;
  if (!doc.Init(&it)) return;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    const Node* child = node.Find(key);
    if (child != nullptr && child->computed) child = nullptr;
    if (child == nullptr || (child->leaf ? child->include : false)) {
      if (child != nullptr && child->slice && slice_ok && BSON_ITER_HOLDS_ARRAY(&it)) {
        AppendSlice(out, key, &it, *child);
      } else if (child != nullptr || unlisted == Unlisted::kKeep) {
        AppendValue(out, key, &it);
      }
      continue;
    }
    if (child->leaf) continue;  // excluded
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_t sub;
      bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &sub);
      ProjectDocument(*child, IterDocument(&it), &sub, unlisted, slice_ok);
      bson_append_document_end(out, &sub);
    } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_t sub;
      bson_append_array_begin(out, key.data(), static_cast<int>(key.size()), &sub);
      ProjectArray(*child, IterDocument(&it), &sub, unlisted, slice_ok);
      bson_append_array_end(out, &sub);
    } else if (unlisted == Unlisted::kKeep || child->subtree_computed) {
      AppendValue(out, key, &it);  // a scalar under a sub-projection
    }
  }
}

// Projects each element of an array: documents are projected, nested arrays recursed into
// (find() recurses nested arrays), scalars kept or dropped as unlisted fields are. Indexes are
// renumbered over the elements kept.
void ProjectArray(const Node& node, BsonView array, bson_t* out, Unlisted unlisted, bool slice_ok) {
  bson_iter_t it;
  if (!array.Init(&it)) return;
  uint32_t index = 0;
  while (bson_iter_next(&it)) {
    const char* key;
    char buf[16];
    size_t len = bson_uint32_to_string(index, &key, buf, sizeof buf);
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_t sub;
      bson_append_document_begin(out, key, static_cast<int>(len), &sub);
      ProjectDocument(node, IterDocument(&it), &sub, unlisted, slice_ok);
      bson_append_document_end(out, &sub);
    } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_t sub;
      bson_append_array_begin(out, key, static_cast<int>(len), &sub);
      ProjectArray(node, IterDocument(&it), &sub, unlisted, /*slice_ok=*/false);
      bson_append_array_end(out, &sub);
    } else if (unlisted == Unlisted::kKeep || node.subtree_computed) {
      AppendValue(out, std::string_view(key, len), &it);
    } else {
      continue;  // dropped: its index is not used
    }
    ++index;
  }
}

// Builds {parts[depth]: {... parts[last]: [element]}} under `out` (a path that is not there).
void AppendNestedSingleton(bson_t* out, const std::vector<std::string>& parts, size_t depth,
                           size_t last, const bson_iter_t* element) {
  const std::string& key = parts[depth];
  bson_t sub;
  if (depth == last) {
    bson_append_array_begin(out, key.data(), static_cast<int>(key.size()), &sub);
    AppendValue(&sub, "0", element);
    bson_append_array_end(out, &sub);
    return;
  }
  bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &sub);
  AppendNestedSingleton(&sub, parts, depth + 1, last, element);
  bson_append_document_end(out, &sub);
}

// Copies `doc` with the field at parts[depth..last] set to [element] (setNestedField: a value
// in the way that is not a document is replaced, a missing one appended).
void CopyWithSingleton(BsonView doc, const std::vector<std::string>& parts, size_t depth,
                       size_t last, const bson_iter_t* element, bson_t* out) {
  bool found = false;
  bson_iter_t it;
  if (doc.Init(&it)) {
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (found || key != parts[depth]) {
        AppendValue(out, key, &it);
        continue;
      }
      found = true;
      if (depth != last && BSON_ITER_HOLDS_DOCUMENT(&it)) {
        bson_t sub;
        bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &sub);
        CopyWithSingleton(IterDocument(&it), parts, depth + 1, last, element, &sub);
        bson_append_document_end(out, &sub);
      } else {
        AppendNestedSingleton(out, parts, depth, last, element);
      }
    }
  }
  if (!found) AppendNestedSingleton(out, parts, depth, last, element);
}

// applyFindPositionalProjection: in the projected document, the first array on the positional
// path becomes [its element at the index the query matched in `original`]. A path that meets
// no array leaves the document as it is.
Status ApplyPositional(const Node& root, BsonView original, BsonView projected, bson_t* out) {
  MatchDetails details;
  CAIRN_RETURN_IF_ERROR(root.query->Matches(original, &details).status());
  const std::vector<std::string>& path = root.positional_path;
  BsonView current = projected;
  for (size_t depth = 0; depth < path.size(); ++depth) {
    bson_iter_t value;
    if (!current.Find(path[depth], &value)) continue;
    if (BSON_ITER_HOLDS_DOCUMENT(&value)) {
      current = IterDocument(&value);
      continue;
    }
    if (!BSON_ITER_HOLDS_ARRAY(&value)) continue;
    if (!details.elem_match_key) {
      return Status(ErrorCode::kLocation51246,
                    "positional operator '.$' couldn't find a matching element in the array");
    }
    bson_iter_t element;
    if (!IterDocument(&value).Find(*details.elem_match_key, &element)) {
      return Status(ErrorCode::kLocation51247, "positional operator '.$' element mismatch");
    }
    CopyWithSingleton(projected, path, 0, depth, &element, out);
    return Status::OK();
  }
  bson_iter_t it;
  if (projected.Init(&it)) {
    while (bson_iter_next(&it)) AppendValue(out, IterKey(&it), &it);
  }
  return Status::OK();
}

Result<std::shared_ptr<Node>> ParseTree(BsonView spec, ProjectionParse ctx) {
  auto root = std::make_shared<Node>();
  ctx.root = root.get();
  ParseContext expressions(ctx.context);
  auto computed = std::make_shared<ComputedFields>();
  ctx.expressions = &expressions;
  ctx.computed = computed.get();
  bool id_specified = false;
  bson_iter_t it;
  if (!spec.Init(&it)) return Status(ErrorCode::kBadValue, "invalid projection document");
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    if (name == "_id" || name.substr(0, 4) == "_id.") id_specified = true;
    CAIRN_RETURN_IF_ERROR(ParseElement(&ctx, &it, root.get(), /*at_root=*/true, std::string()));
  }
  if (ctx.type == Type::kUnknown) {
    // computeProjectionType: a $slice makes an exclusion unless _id is included; an $elemMatch
    // an inclusion; otherwise only _id (or nothing) was given: {_id: 1} is an inclusion, {_id:
    // 0} and {} exclusions.
    if (ctx.has_find_slice) {
      ctx.type = ctx.id_included_entirely ? Type::kInclusion : Type::kExclusion;
    } else if (ctx.has_elem_match) {
      ctx.type = Type::kInclusion;
    } else {
      ctx.type = ctx.id_included_entirely ? Type::kInclusion : Type::kExclusion;
    }
  }
  root->inclusion = ctx.type == Type::kInclusion;
  if (root->inclusion && !id_specified) {
    auto leaf = std::make_unique<Node>();
    leaf->leaf = true;
    leaf->include = true;
    root->children.emplace("_id", std::move(leaf));
  }
  if (!root->inclusion && ctx.id_included_entirely) {
    // {_id: 1, a: 0}: legal, and _id is kept anyway by an exclusion.
    root->children.erase("_id");
  }
  if (!computed->empty()) {
    root->computed_fields = std::move(computed);
    root->num_slots = expressions.num_slots();
    root->context = expressions.shared_context();
  }
  return root;
}

}  // namespace

Projection Projection::FromTree(std::shared_ptr<const Node> root) {
  Projection projection;
  projection.identity_ = !root->inclusion && root->children.empty();
  projection.root_ = std::move(root);
  return projection;
}

Result<Projection> Projection::Parse(BsonView spec,
                                     std::shared_ptr<const ExpressionContext> context) {
  ProjectionParse ctx;
  ctx.context = std::move(context);
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<Node> root, ParseTree(spec, std::move(ctx)));
  return FromTree(std::move(root));
}

Result<Projection> Projection::ParseFind(BsonView spec, std::shared_ptr<const Matcher> query,
                                         std::shared_ptr<const ExpressionContext> context) {
  ProjectionParse ctx;
  ctx.find = true;
  ctx.query = std::move(query);
  ctx.context = std::move(context);
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<Node> root, ParseTree(spec, std::move(ctx)));
  return FromTree(std::move(root));
}

bool Projection::IsIdentity() const { return identity_; }

Status Projection::Apply(BsonView doc, bson_t* out) const {
  if (identity_ || root_ == nullptr) {
    bson_iter_t it;
    if (!doc.Init(&it)) return Status::OK();
    while (bson_iter_next(&it)) AppendIter(out, IterKey(&it), &it);
    return Status::OK();
  }
  const Node& root = *root_;
  const Unlisted unlisted = root.inclusion ? Unlisted::kDrop : Unlisted::kKeep;
  const bool positional = !root.positional_path.empty();
  if (root.computed_fields == nullptr && !positional) {
    ProjectDocument(root, doc, out, unlisted, /*slice_ok=*/true);
    return Status::OK();
  }
  BsonDoc projected;
  ProjectDocument(root, doc, projected.get(), unlisted, /*slice_ok=*/true);
  if (root.computed_fields != nullptr) {
    // The expressions read the document as it was ($$ROOT), not the projected one.
    Variables vars(root.num_slots);
    vars.SetRoot(doc);
    // Computed fields can make a document larger or deeper than any stored one: the result
    // must still be one MongoDB could serialize (10334, Overflow).
    if (!positional) {
      CAIRN_RETURN_IF_ERROR(root.computed_fields->Apply(projected.view(), &vars, out));
      return CheckOutputDocument(BsonView(out));
    }
    BsonDoc with_computed;
    CAIRN_RETURN_IF_ERROR(
        root.computed_fields->Apply(projected.view(), &vars, with_computed.get()));
    CAIRN_RETURN_IF_ERROR(CheckOutputDocument(with_computed.view()));
    return ApplyPositional(root, doc, with_computed.view(), out);
  }
  return ApplyPositional(root, doc, projected.view(), out);
}

}  // namespace cairn::query
