// ComputedFields (computed_fields.h): the tree of computed paths and its application, following
// MongoDB's ProjectionNode::applyExpressions / applyExpressionsToValue.
#include "query/pipeline/computed_fields.h"

#include <vector>

#include "common/field_path.h"

namespace cairn::query {

// A path component: a computed value (expr set) or the parent of deeper computed paths.
struct ComputedFields::Node {
  ExpressionPtr expr;
  std::vector<std::pair<std::string, std::unique_ptr<Node>>> children;  // spec order

  Node* Find(std::string_view name) const {
    for (const auto& [child_name, child] : children) {
      if (child_name == name) return child.get();
    }
    return nullptr;
  }
};

namespace {

using Node = ComputedFields::Node;

std::string Tail(const std::vector<std::string>& parts, size_t from) {
  std::string out;
  for (size_t i = from; i < parts.size(); ++i) {
    if (i > from) out += '.';
    out += parts[i];
  }
  return out;
}

Status ApplyToDocument(const Node& node, BsonView doc, Variables* vars, bson_t* out);

// The value `node`'s computed fields make of `value` under `key`: inside a document, in every
// element of an array, or in a new document replacing anything else.
Status ApplyToValue(const Node& node, const bson_iter_t* value, Variables* vars, bson_t* out,
                    std::string_view key) {
  const int key_len = static_cast<int>(key.size());
  if (value != nullptr && BSON_ITER_HOLDS_ARRAY(value)) {
    bson_t array;
    bson_append_array_begin(out, key.data(), key_len, &array);
    bson_iter_t element;
    bson_iter_recurse(value, &element);
    uint32_t index = 0;
    while (bson_iter_next(&element)) {
      char buf[16];
      const char* element_key;
      size_t len = bson_uint32_to_string(index++, &element_key, buf, sizeof buf);
      CAIRN_RETURN_IF_ERROR(
          ApplyToValue(node, &element, vars, &array, std::string_view(element_key, len)));
    }
    bson_append_array_end(out, &array);
    return Status::OK();
  }
  bson_t child;
  bson_append_document_begin(out, key.data(), key_len, &child);
  BsonView doc =
      value != nullptr && BSON_ITER_HOLDS_DOCUMENT(value) ? IterDocument(value) : BsonView();
  Status status = ApplyToDocument(node, doc, vars, &child);
  bson_append_document_end(out, &child);
  return status;
}

// One child of `node` applied to the field's current value (nullptr: absent).
Status ApplyChild(const Node& child, std::string_view name, const bson_iter_t* value,
                  Variables* vars, bson_t* out) {
  if (child.expr) {
    CAIRN_ASSIGN_OR_RETURN(Value v, child.expr->Evaluate(vars));
    v.AppendTo(out, name);  // missing: the field is removed
    return Status::OK();
  }
  return ApplyToValue(child, value, vars, out, name);
}

Status ApplyToDocument(const Node& node, BsonView doc, Variables* vars, bson_t* out) {
  const size_t n = node.children.size();
  bool small[32] = {};
  std::vector<bool> large;
  if (n > 32) large.resize(n);
  auto mark = [&](size_t i) {
    if (n > 32) {
      large[i] = true;
    } else {
      small[i] = true;
    }
  };
  auto marked = [&](size_t i) { return n > 32 ? static_cast<bool>(large[i]) : small[i]; };

  bson_iter_t it;
  if (doc.Init(&it)) {
    while (bson_iter_next(&it)) {
      std::string_view name = IterKey(&it);
      size_t i = 0;
      while (i < n && node.children[i].first != name) ++i;
      if (i == n) {
        AppendIter(out, name, &it);
        continue;
      }
      mark(i);
      CAIRN_RETURN_IF_ERROR(ApplyChild(*node.children[i].second, name, &it, vars, out));
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (marked(i)) continue;
    CAIRN_RETURN_IF_ERROR(
        ApplyChild(*node.children[i].second, node.children[i].first, nullptr, vars, out));
  }
  return Status::OK();
}

Status ParseSpec(BsonView spec, const std::string& prefix, ParseContext& ctx,
                 ComputedFields* fields) {
  bson_iter_t it;
  spec.Init(&it);
  while (bson_iter_next(&it)) {
    std::string path =
        prefix.empty() ? std::string(IterKey(&it)) : prefix + "." + std::string(IterKey(&it));
    CAIRN_RETURN_IF_ERROR(SplitFieldPath(path).status());
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      BsonView sub = IterDocument(&it);
      bson_iter_t first;
      bool nested = sub.Init(&first) && bson_iter_next(&first) &&
                    (IterKey(&first).empty() || IterKey(&first)[0] != '$');
      if (nested) {
        CAIRN_RETURN_IF_ERROR(ParseSpec(sub, path, ctx, fields));
        continue;
      }
    }
    CAIRN_ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&it, ctx));
    CAIRN_RETURN_IF_ERROR(fields->Add(path, std::move(expr)));
  }
  return Status::OK();
}

}  // namespace

ComputedFields::ComputedFields() : root_(std::make_shared<Node>()) {}

Result<ComputedFields> ComputedFields::Parse(BsonView spec, ParseContext& ctx) {
  ComputedFields fields;
  CAIRN_RETURN_IF_ERROR(ParseSpec(spec, std::string(), ctx, &fields));
  return fields;
}

Status ComputedFields::Add(std::string_view path, ExpressionPtr expr) {
  std::vector<std::string> parts = SplitDottedPath(path);
  Node* current = root_.get();
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    Node* next = current->Find(parts[i]);
    if (next == nullptr) {
      current->children.emplace_back(parts[i], std::make_unique<Node>());
      next = current->children.back().second.get();
    } else if (next->expr) {
      return Status(ErrorCode::kLocation31249, "Path collision at " + std::string(path) +
                                                   " remaining portion " + Tail(parts, 1));
    }
    current = next;
  }
  if (current->Find(parts.back()) != nullptr) {
    return Status(ErrorCode::kLocation31250, "Path collision at " + std::string(path));
  }
  auto leaf = std::make_unique<Node>();
  leaf->expr = std::move(expr);
  current->children.emplace_back(parts.back(), std::move(leaf));
  return Status::OK();
}

bool ComputedFields::empty() const { return root_->children.empty(); }

Status ComputedFields::Apply(BsonView target, Variables* vars, bson_t* out) const {
  return ApplyToDocument(*root_, target, vars, out);
}

}  // namespace cairn::query
