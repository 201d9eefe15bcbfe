// Projection: parsing of find's projection spec into an inclusion/exclusion tree and its
// application to documents (see projection.h). Mirrors MongoDB's projection_ast parser
// (projection_parser.cpp) for errors and the find() projection executor for output shape.
// Not here: $slice, $elemMatch, positional and expression projections (refused at Parse).
#include "query/projection/projection.h"

#include "common/field_path.h"

#include <map>
#include <string>
#include <vector>

namespace cairn::query {

// A node of the parsed projection tree. A leaf carries include/exclude; an internal node has
// children keyed by one path component. The root also records the projection's type.
struct Projection::Node {
  bool leaf = false;
  bool include = false;   // leaf only
  bool inclusion = false;  // root only: inclusion (true) or exclusion (false) projection
  std::map<std::string, std::unique_ptr<Node>, std::less<>> children;

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

// MongoDB's FieldPath validation of a projection field name.
Status ValidateFieldPath(std::string_view path) {
  if (path.empty()) {
    return Status(ErrorCode::kLocation40352, "FieldPath cannot be constructed with empty string");
  }
  for (const std::string& part : SplitDottedPath(path)) {
    if (part.empty()) {
      return Status(ErrorCode::kLocation15998, "FieldPath field names may not be empty strings.");
    }
    if (part[0] == '$') {
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

// The positional projection `a.$` / `a.$.b` (findFirstPositionalOperator).
bool HasPositional(std::string_view path) {
  if (path == "$") return true;
  if (path.find(".$.") != std::string_view::npos) return true;
  return path.size() >= 2 && path.substr(path.size() - 2) == ".$";
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

Status AddLeaf(Node* parent, std::string_view path, bool include) {
  std::vector<std::string> parts = SplitDottedPath(path);
  CAIRN_ASSIGN_OR_RETURN(Node * owner, WalkToParent(parent, parts, path));
  if (owner->children.count(parts.back()) != 0) {
    return Status(ErrorCode::kLocation31250, "Path collision at " + std::string(path));
  }
  auto leaf = std::make_unique<Node>();
  leaf->leaf = true;
  leaf->include = include;
  owner->children.emplace(parts.back(), std::move(leaf));
  return Status::OK();
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

struct ParseContext {
  Type type = Type::kUnknown;
  bool id_included_entirely = false;
  bool id_excluded_entirely = false;
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
    case BSON_TYPE_BOOL: return bson_iter_bool(it);
    case BSON_TYPE_INT32: return bson_iter_int32(it) != 0;
    case BSON_TYPE_INT64: return bson_iter_int64(it) != 0;
    case BSON_TYPE_DOUBLE: return bson_iter_double(it) != 0.0;  // NaN != 0 → true
    case BSON_TYPE_DECIMAL128: {
      double d = 0;
      IterAsDouble(it, &d);
      return d != 0.0;
    }
    default: return true;
  }
}

Status ParseElement(ParseContext* ctx, const bson_iter_t* elem, Node* parent, bool at_root);

Status ParseSubObject(ParseContext* ctx, std::string_view name, BsonView sub, Node* parent) {
  CAIRN_RETURN_IF_ERROR(ValidateFieldPath(name));
  bson_iter_t it;
  if (sub.empty()) {
    return Status(ErrorCode::kLocation51270,
                  "An empty sub-projection is not a valid value. Found empty object at path");
  }
  if (sub.CountKeys() == 1 && sub.Init(&it) && bson_iter_next(&it) && IterKey(&it).size() > 0 &&
      IterKey(&it)[0] == '$') {
    std::string_view op = IterKey(&it);
    if (op == "$slice" || op == "$elemMatch" || op == "$meta") {
      return NotSupported("The " + std::string(op) + " projection operator (field '" +
                          std::string(name) + "')");
    }
    return NotSupported("Projection expression " + std::string(op) + " (field '" +
                        std::string(name) + "')");
  }
  CAIRN_ASSIGN_OR_RETURN(Node * node, AddInternal(parent, name));
  if (!sub.Init(&it)) return Status(ErrorCode::kBadValue, "invalid projection sub-object");
  while (bson_iter_next(&it)) {
    CAIRN_RETURN_IF_ERROR(ParseElement(ctx, &it, node, /*at_root=*/false));
  }
  return Status::OK();
}

Status ParseElement(ParseContext* ctx, const bson_iter_t* elem, Node* parent, bool at_root) {
  std::string_view name = IterKey(elem);
  if (HasPositional(name)) {
    return NotSupported("The positional projection '" + std::string(name) + "'");
  }
  bson_type_t type = bson_iter_type(elem);
  if (type == BSON_TYPE_DOCUMENT) {
    return ParseSubObject(ctx, name, IterDocument(elem), parent);
  }
  if (!IsInclusionOrExclusionType(type)) {
    return NotSupported("Projecting a literal value (field '" + std::string(name) + "')");
  }
  CAIRN_RETURN_IF_ERROR(ValidateFieldPath(name));
  const bool top_level_id = at_root && name == "_id";
  if (TrueValue(elem)) {
    CAIRN_RETURN_IF_ERROR(AddLeaf(parent, name, true));
    if (top_level_id) {
      ctx->id_included_entirely = true;
    } else {
      if (ctx->type == Type::kExclusion) {
        return Status(ErrorCode::kLocation31253, "Cannot do inclusion on field " +
                                                     std::string(name) + " in exclusion projection");
      }
      ctx->type = Type::kInclusion;
    }
  } else {
    CAIRN_RETURN_IF_ERROR(AddLeaf(parent, name, false));
    if (top_level_id) {
      ctx->id_excluded_entirely = true;
    } else {
      if (ctx->type == Type::kInclusion) {
        return Status(ErrorCode::kLocation31254, "Cannot do exclusion on field " +
                                                     std::string(name) + " in inclusion projection");
      }
      ctx->type = Type::kExclusion;
    }
  }
  return Status::OK();
}

void AppendValue(bson_t* out, std::string_view key, const bson_iter_t* it) {
  AppendIter(out, key, it);
}

// One walker serves both kinds. What a field the projection does not name (and a scalar under
// a sub-projection, or a scalar array element) becomes is the only difference: an inclusion
// projection drops it, an exclusion projection keeps it.
enum class Unlisted { kDrop, kKeep };

void ProjectArray(const Node& node, BsonView array, bson_t* out, Unlisted unlisted);

void ProjectDocument(const Node& node, BsonView doc, bson_t* out, Unlisted unlisted) {
  bson_iter_t it;
  if (!doc.Init(&it)) return;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    const Node* child = node.Find(key);
    if (child == nullptr || (child->leaf ? child->include : false)) {
      if (child != nullptr || unlisted == Unlisted::kKeep) AppendValue(out, key, &it);
      continue;
    }
    if (child->leaf) continue;  // excluded
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_t sub;
      bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &sub);
      ProjectDocument(*child, IterDocument(&it), &sub, unlisted);
      bson_append_document_end(out, &sub);
    } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_t sub;
      bson_append_array_begin(out, key.data(), static_cast<int>(key.size()), &sub);
      ProjectArray(*child, IterDocument(&it), &sub, unlisted);
      bson_append_array_end(out, &sub);
    } else if (unlisted == Unlisted::kKeep) {
      AppendValue(out, key, &it);  // a scalar under a sub-projection
    }
  }
}

// Projects each element of an array: documents are projected, nested arrays recursed into
// (find() recurses nested arrays), scalars kept or dropped as unlisted fields are. Indexes are
// renumbered over the elements kept.
void ProjectArray(const Node& node, BsonView array, bson_t* out, Unlisted unlisted) {
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
      ProjectDocument(node, IterDocument(&it), &sub, unlisted);
      bson_append_document_end(out, &sub);
    } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_t sub;
      bson_append_array_begin(out, key, static_cast<int>(len), &sub);
      ProjectArray(node, IterDocument(&it), &sub, unlisted);
      bson_append_array_end(out, &sub);
    } else if (unlisted == Unlisted::kKeep) {
      AppendValue(out, std::string_view(key, len), &it);
    } else {
      continue;  // dropped: its index is not used
    }
    ++index;
  }
}

}  // namespace

Result<Projection> Projection::Parse(BsonView spec) {
  auto root = std::make_shared<Node>();
  ParseContext ctx;
  bool id_specified = false;
  bson_iter_t it;
  if (!spec.Init(&it)) return Status(ErrorCode::kBadValue, "invalid projection document");
  while (bson_iter_next(&it)) {
    std::string_view name = IterKey(&it);
    if (name == "_id" || name.substr(0, 4) == "_id.") id_specified = true;
    CAIRN_RETURN_IF_ERROR(ParseElement(&ctx, &it, root.get(), /*at_root=*/true));
  }
  if (ctx.type == Type::kUnknown) {
    // Only _id (or nothing) was given: {_id: 1} is an inclusion, {_id: 0} and {} exclusions.
    ctx.type = ctx.id_included_entirely ? Type::kInclusion : Type::kExclusion;
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
  Projection projection;
  projection.identity_ = !root->inclusion && root->children.empty();
  projection.root_ = std::move(root);
  return projection;
}

bool Projection::IsIdentity() const { return identity_; }

void Projection::Apply(BsonView doc, bson_t* out) const {
  if (identity_ || root_ == nullptr) {
    bson_iter_t it;
    if (!doc.Init(&it)) return;
    while (bson_iter_next(&it)) AppendIter(out, IterKey(&it), &it);
    return;
  }
  if (root_->inclusion) {
    ProjectDocument(*root_, doc, out, Unlisted::kDrop);
  } else {
    ProjectDocument(*root_, doc, out, Unlisted::kKeep);
  }
}

}  // namespace cairn::query
