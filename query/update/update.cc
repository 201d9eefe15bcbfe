// Update driver: parses an update argument (operator document or replacement) into a tree of
// modifiers keyed by path, with MongoDB's validation and conflict errors, and applies it to one
// document (update_driver.cpp + update_object_node.cpp + object_replace_executor.cpp in
// MongoDB). The operators themselves live in update/mods/, one file each.
#include "query/update/update.h"

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/bson_compare.h"
#include "query/update/update_internal.h"

namespace cairn::query {

using update_internal::ApplyContext;
using update_internal::ElementRef;
using update_internal::LeafSite;
using update_internal::JoinPath;
using update_internal::Modifier;
using update_internal::ModifierArg;
using update_internal::ModifierFactory;
using update_internal::Node;
using update_internal::ParseArrayIndex;

namespace {

// MongoDB applies the children of a path in this order (pathsupport::cmpPathsAndArrayIndexes):
// names that are numbers without leading zeros compare numerically, everything else bytewise.
// New fields are therefore appended in lexicographic order, array indexes in numeric order.
struct PathComponentLess {
  bool operator()(const std::string& a, const std::string& b) const {
    auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    if (a.empty() || b.empty() || !is_digit(a[0]) || !is_digit(b[0]) ||
        (a[0] == '0' && a.size() > 1) || (b[0] == '0' && b.size() > 1)) {
      return a < b;
    }
    if (a.size() != b.size()) return a.size() < b.size();
    return a < b;
  }
};

// The modifiers: implemented ones with their factory; known ones without (refused precisely).
struct ModifierEntry {
  std::string_view name;
  ModifierFactory factory;  // nullptr: a MongoDB modifier Cairn does not implement yet
};

constexpr ModifierEntry kModifiers[] = {
    {"$addToSet", &update_internal::MakeAddToSet},
    {"$bit", nullptr},
    {"$currentDate", &update_internal::MakeCurrentDate},
    {"$inc", &update_internal::MakeInc},
    {"$max", &update_internal::MakeMax},
    {"$min", &update_internal::MakeMin},
    {"$mul", &update_internal::MakeMul},
    {"$pop", &update_internal::MakePop},
    {"$pull", &update_internal::MakePull},
    {"$pullAll", &update_internal::MakePullAll},
    {"$push", &update_internal::MakePush},
    {"$rename", &update_internal::MakeRename},
    {"$set", &update_internal::MakeSet},
    {"$setOnInsert", &update_internal::MakeSetOnInsert},
    {"$unset", &update_internal::MakeUnset},
};

const ModifierEntry* FindModifier(std::string_view name) {
  for (const ModifierEntry& entry : kModifiers) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

constexpr std::string_view kReplaceWithHint =
    "' is not allowed in the context of an update's replacement document. Consider using an "
    "aggregation pipeline with $replaceWith.";

Status DollarPrefixedField(std::string_view name) {
  return Status(ErrorCode::kDollarPrefixedFieldName,
                "The dollar ($) prefixed field '" + std::string(name) + "' in '" +
                    std::string(name) + std::string(kReplaceWithHint));
}

bool IsArrayFilterIdentifier(std::string_view part) {
  return part.size() >= 3 && part.substr(0, 2) == "$[" && part.back() == ']';
}

}  // namespace

// A node of the parsed update: a leaf holds a modifier, an internal node its children by path
// component, in the order MongoDB applies them.
struct Update::Plan {
  struct PathNode {
    std::unique_ptr<Modifier> leaf;
    std::map<std::string, std::unique_ptr<PathNode>, PathComponentLess> children;
  };
  PathNode root;
};

namespace {

using PathNode = Update::Plan::PathNode;

// MongoDB's fieldchecker::isUpdatable plus the positional-path checks of parseAndMerge.
Status ValidateUpdatePath(std::string_view path, const std::vector<std::string>& parts) {
  if (path.empty()) {
    return Status(ErrorCode::kEmptyFieldName, "An empty update path is not valid.");
  }
  for (const std::string& part : parts) {
    if (part.empty()) {
      return Status(ErrorCode::kEmptyFieldName,
                    "The update path '" + std::string(path) +
                        "' contains an empty field name, which is not allowed.");
    }
  }
  size_t positional_count = 0, positional_index = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "$") {
      if (positional_count++ == 0) positional_index = i;
    }
  }
  if (positional_count > 1) {
    return Status(ErrorCode::kBadValue, "Too many positional (i.e. '$') elements found in path '" +
                                            std::string(path) + "'");
  }
  if (positional_count == 1 && positional_index == 0) {
    return Status(ErrorCode::kBadValue,
                  "Cannot have positional (i.e. '$') element in the first position in path '" +
                      std::string(path) + "'");
  }
  return Status::OK();
}

// Array filter identifiers ($[] / $[id]) and the positional $: MongoDB's parse-time errors
// first, then a precise refusal (not implemented yet).
Status CheckPositionalSupport(std::string_view path, const std::vector<std::string>& parts,
                              bool allow_dollar = false) {
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!IsArrayFilterIdentifier(parts[i])) continue;
    if (i == 0) {
      return Status(ErrorCode::kBadValue,
                    "Cannot have array filter identifier (i.e. '$[<id>]') element in the first "
                    "position in path '" +
                        std::string(path) + "'");
    }
    std::string_view identifier = std::string_view(parts[i]).substr(2, parts[i].size() - 3);
    if (!identifier.empty()) {
      return Status(ErrorCode::kBadValue, "No array filter found for identifier '" +
                                              std::string(identifier) + "' in path '" +
                                              std::string(path) + "'");
    }
    return Status(ErrorCode::kBadValue, "The all-positional operator '$[]' (path '" +
                                            std::string(path) + "') is not supported yet");
  }
  for (const std::string& part : parts) {
    if (part == "$" && !allow_dollar) {
      return Status(ErrorCode::kBadValue, "The positional operator '$' (path '" +
                                              std::string(path) + "') is not supported yet");
    }
  }
  return Status::OK();
}

// Adds `leaf` at `parts` (MongoDB's UpdateObjectNode::parseAndMerge conflict rules).
Status MergeLeaf(PathNode* root, std::string_view path, const std::vector<std::string>& parts,
                 std::unique_ptr<Modifier> leaf) {
  PathNode* current = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    auto it = current->children.find(parts[i]);
    if (it != current->children.end()) {
      if (it->second->leaf != nullptr) {
        std::vector<std::string> prefix(parts.begin(), parts.begin() + static_cast<long>(i) + 1);
        return Status(ErrorCode::kConflictingUpdateOperators,
                      "Updating the path '" + std::string(path) + "' would create a conflict at '" +
                          JoinPath(prefix) + "'");
      }
      current = it->second.get();
      continue;
    }
    auto child = std::make_unique<PathNode>();
    PathNode* raw = child.get();
    current->children.emplace(parts[i], std::move(child));
    current = raw;
  }
  if (current->children.count(parts.back()) != 0) {
    return Status(ErrorCode::kConflictingUpdateOperators,
                  "Updating the path '" + std::string(path) + "' would create a conflict at '" +
                      std::string(path) + "'");
  }
  auto node = std::make_unique<PathNode>();
  node->leaf = std::move(leaf);
  current->children.emplace(parts.back(), std::move(node));
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Applying the modifier tree.

// Where the walk is: the components that exist in the document (taken) and those that do not
// yet (to create), as in MongoDB's UpdateNodeApplyParams.
struct Cursor {
  std::vector<std::string> taken;
  std::vector<std::string> create;
};

Node BuildNested(const std::vector<std::string>& parts, size_t from, Node value) {
  if (from >= parts.size()) return value;
  Node doc = Node::NewDocument();
  doc.kids.emplace_back(parts[from], BuildNested(parts, from + 1, std::move(value)));
  return doc;
}

constexpr size_t kMaxPaddingAllowed = 1500000;

// Creates cur.create below `element` (the deepest existing element on the path) ending in
// `value` (pathsupport::createPathAt): intermediate documents, arrays padded with nulls.
Status CreatePathAt(ApplyContext& ctx, Node* element, const Cursor& cur, Node value) {
  const std::string& first = cur.create.front();
  auto not_viable = [&]() {
    std::string name = cur.taken.empty() ? std::string() : cur.taken.back();
    return Status(ErrorCode::kPathNotViable, "Cannot create field '" + first + "' in element {" +
                                                 name + ": " + ctx.Shell(*element) + "}");
  };
  if (element->IsArray()) {
    size_t index;
    if (!ParseArrayIndex(first, &index)) return not_viable();
    element->Expand();
    if (index > element->kids.size() && index - element->kids.size() > kMaxPaddingAllowed) {
      return Status(ErrorCode::kBadValue, "can't backfill more than " +
                                              std::to_string(kMaxPaddingAllowed) + " elements");
    }
    while (element->kids.size() < index) element->kids.emplace_back(std::string(), ctx.Null());
    element->kids.emplace_back(std::string(), BuildNested(cur.create, 1, std::move(value)));
    return Status::OK();
  }
  if (element->IsDocument()) {
    element->Expand();
    element->kids.emplace_back(first, BuildNested(cur.create, 1, std::move(value)));
    return Status::OK();
  }
  return not_viable();
}

Status ImmutableIdModified(std::string_view path) {
  return Status(ErrorCode::kImmutableField, "Performing an update on the path '" +
                                                std::string(path) +
                                                "' would modify the immutable field '_id'");
}

Status ApplyLeafToExisting(ApplyContext& ctx, const Modifier& mod, ElementRef ref,
                           const Cursor& cur, bool* changed) {
  if (!mod.Applies(ctx)) return Status::OK();
  if (mod.HandlesSite()) {
    return mod.ApplyAtSite(ctx, LeafSite{&ref.node(), ref, &cur.taken, &cur.create}, changed);
  }
  const std::string path = JoinPath(cur.taken);
  CAIRN_ASSIGN_OR_RETURN(bool did, mod.UpdateExisting(ctx, ref, path));
  if (!did) return Status::OK();
  if (cur.taken.front() == "_id") return ImmutableIdModified(path);
  if (cur.taken.size() == 1 && !cur.taken[0].empty() && cur.taken[0][0] == '$') {
    return DollarPrefixedField(cur.taken[0]);
  }
  *changed = true;
  return Status::OK();
}

Status ApplyLeafToMissing(ApplyContext& ctx, const Modifier& mod, Node* element,
                          const Cursor& cur, bool* changed) {
  if (!mod.Applies(ctx)) return Status::OK();
  if (mod.HandlesSite()) {
    return mod.ApplyAtSite(ctx, LeafSite{element, std::nullopt, &cur.taken, &cur.create}, changed);
  }
  if (!mod.AllowCreation()) return Status::OK();
  CAIRN_ASSIGN_OR_RETURN(Node value, mod.NewValue(ctx));
  CAIRN_RETURN_IF_ERROR(CreatePathAt(ctx, element, cur, std::move(value)));
  if (cur.taken.empty() && cur.create.front()[0] == '$') {
    return DollarPrefixedField(cur.create.front());
  }
  if (!cur.taken.empty() && cur.taken.front() == "_id") {
    return Status(ErrorCode::kImmutableField,
                  "Updating the path '" + JoinPath(cur.taken) + "' to " + cur.taken.back() + ": " +
                      ctx.Shell(*element) + " would modify the immutable field '_id'");
  }
  *changed = true;
  return Status::OK();
}

}  // namespace

Status update_internal::SetAtSite(ApplyContext& ctx, const LeafSite& site, Node value,
                                  bool* changed) {
  const std::vector<std::string>& taken = *site.taken;
  if (site.existing) {
    site.existing->node() = std::move(value);
    if (taken.front() == "_id") return ImmutableIdModified(JoinPath(taken));
    if (taken.size() == 1 && !taken[0].empty() && taken[0][0] == '$') {
      return DollarPrefixedField(taken[0]);
    }
    *changed = true;
    return Status::OK();
  }
  Cursor cur{taken, *site.create};
  CAIRN_RETURN_IF_ERROR(CreatePathAt(ctx, site.element, cur, std::move(value)));
  if (taken.empty() && cur.create.front()[0] == '$') return DollarPrefixedField(cur.create.front());
  if (!taken.empty() && taken.front() == "_id") {
    return Status(ErrorCode::kImmutableField,
                  "Updating the path '" + JoinPath(taken) + "' to " + taken.back() + ": " +
                      ctx.Shell(*site.element) + " would modify the immutable field '_id'");
  }
  *changed = true;
  return Status::OK();
}

namespace {

Status ApplyPathNode(ApplyContext& ctx, const PathNode& node, Node* element, Cursor cur,
                     bool* changed) {
  for (const auto& [name, child] : node.children) {
    // An earlier sibling may have created the pending path: continue from there.
    if (!cur.create.empty()) {
      Node* e = element;
      bool all = true;
      for (const std::string& part : cur.create) {
        Node* next = e->Child(part);
        if (next == nullptr) {
          all = false;
          break;
        }
        e = next;
      }
      if (all) {
        cur.taken.insert(cur.taken.end(), cur.create.begin(), cur.create.end());
        cur.create.clear();
        element = e;
      }
    }
    Cursor child_cur = cur;
    size_t index;
    if (cur.create.empty() && element->ChildIndex(name, &index)) {
      child_cur.taken.push_back(name);
      if (child->leaf != nullptr) {
        CAIRN_RETURN_IF_ERROR(
            ApplyLeafToExisting(ctx, *child->leaf, ElementRef{element, index}, child_cur, changed));
      } else {
        CAIRN_RETURN_IF_ERROR(
            ApplyPathNode(ctx, *child, &element->kids[index].second, child_cur, changed));
      }
    } else {
      child_cur.create.push_back(name);
      if (child->leaf != nullptr) {
        CAIRN_RETURN_IF_ERROR(ApplyLeafToMissing(ctx, *child->leaf, element, child_cur, changed));
      } else {
        CAIRN_RETURN_IF_ERROR(ApplyPathNode(ctx, *child, element, child_cur, changed));
      }
    }
  }
  return Status::OK();
}

void CopyDocument(BsonView doc, bson_t* out) {
  bson_iter_t it;
  if (!doc.Init(&it)) return;
  while (bson_iter_next(&it)) AppendIter(out, IterKey(&it), &it);
}

// storage_validation::storageValidIdField.
Status ValidateIdForStorage(const bson_iter_t* id) {
  bson_type_t type = bson_iter_type(id);
  if (type == BSON_TYPE_REGEX || type == BSON_TYPE_ARRAY || type == BSON_TYPE_UNDEFINED) {
    return Status(ErrorCode::kInvalidIdField,
                  "The '_id' value cannot be of type " + std::string(BsonTypeName(type)));
  }
  return Status::OK();
}

Status CheckResultSize(const bson_t* out) {
  if (out->len > static_cast<uint32_t>(kMaxBsonObjectSize)) {
    return Status(ErrorCode::kBSONObjectTooLarge,
                  "Resulting document after update is larger than " +
                      std::to_string(kMaxBsonObjectSize));
  }
  return Status::OK();
}

}  // namespace

namespace {

// {$rename: {from: "to"}}: a placeholder at `from` and the rename at `to`, each path validated
// and conflict-checked (UpdateObjectNode::parseAndMerge's MOD_RENAME case).
Status ParseRename(Update::Plan* plan, std::string_view from,
                   const std::vector<std::string>& from_parts, const bson_iter_t& field) {
  CAIRN_RETURN_IF_ERROR(CheckPositionalSupport(from, from_parts, /*allow_dollar=*/true));
  CAIRN_RETURN_IF_ERROR(
      MergeLeaf(&plan->root, from, from_parts, update_internal::MakeRenameSourcePlaceholder()));
  if (!BSON_ITER_HOLDS_UTF8(&field)) {
    return Status(ErrorCode::kBadValue, "The 'to' field for $rename must be a string: " +
                                            update_internal::ElementToString(from, &field));
  }
  std::string_view to = IterUtf8(&field);
  std::vector<std::string> to_parts = SplitDottedPath(to);
  CAIRN_RETURN_IF_ERROR(ValidateUpdatePath(to, to_parts));
  ModifierArg arg{"$rename", from, field};
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<Modifier> rename, update_internal::MakeRename(arg));
  CAIRN_RETURN_IF_ERROR(CheckPositionalSupport(to, to_parts, /*allow_dollar=*/true));
  return MergeLeaf(&plan->root, to, to_parts, std::move(rename));
}

}  // namespace

Result<Update> Update::Parse(BsonView update) {
  Update result;
  auto source = std::make_shared<const BsonDoc>(update);
  BsonView spec = source->view();
  bson_iter_t it;
  if (!spec.Init(&it)) return Status(ErrorCode::kFailedToParse, "invalid update document");

  // A replacement unless the first field is an operator (write_ops: isClassicalUpdateReplacement).
  bson_iter_t first = it;
  if (!bson_iter_next(&first) || IterKey(&first).empty() || IterKey(&first)[0] != '$') {
    result.replacement_ = true;
    result.source_ = std::move(source);
    return result;
  }

  auto plan = std::make_shared<Plan>();
  while (bson_iter_next(&it)) {
    std::string_view op = IterKey(&it);
    const ModifierEntry* entry = FindModifier(op);
    if (entry == nullptr) {
      return Status(ErrorCode::kFailedToParse,
                    "Unknown modifier: " + std::string(op) +
                        ". Expected a valid update modifier or pipeline-style update specified as "
                        "an array");
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kFailedToParse,
                    "Modifiers operate on fields but we found type " +
                        std::string(BsonTypeName(bson_iter_type(&it))) +
                        " instead. For example: {$mod: {<field>: ...}} not {" +
                        update_internal::ElementToString(op, &it) + "}");
    }
    if (entry->factory == nullptr) {
      return Status(ErrorCode::kBadValue,
                    "The update operator " + std::string(op) + " is not supported yet");
    }
    bson_iter_t field;
    if (!bson_iter_recurse(&it, &field)) continue;
    while (bson_iter_next(&field)) {
      std::string_view path = IterKey(&field);
      std::vector<std::string> parts = SplitDottedPath(path);
      CAIRN_RETURN_IF_ERROR(ValidateUpdatePath(path, parts));
      if (op == "$rename") {
        CAIRN_RETURN_IF_ERROR(ParseRename(plan.get(), path, parts, field));
        continue;
      }
      ModifierArg arg{op, path, field};
      CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<Modifier> leaf, entry->factory(arg));
      CAIRN_RETURN_IF_ERROR(CheckPositionalSupport(path, parts));
      CAIRN_RETURN_IF_ERROR(MergeLeaf(&plan->root, path, parts, std::move(leaf)));
    }
  }
  result.source_ = std::move(source);
  result.plan_ = std::move(plan);
  return result;
}

Result<bool> Update::Apply(BsonView doc, bson_t* out, const ApplyOptions& options) const {
  bson_iter_t old_id;
  const bool had_id = doc.Find("_id", &old_id);

  if (replacement_) {
    BsonView replacement = source_->view();
    // No-op only when the replacement is byte-for-byte the document (ObjectReplaceExecutor).
    if (replacement.size() == doc.size() &&
        std::memcmp(replacement.data(), doc.data(), doc.size()) == 0) {
      CopyDocument(doc, out);
      return false;
    }
    bson_iter_t new_id;
    const bool has_id = replacement.Find("_id", &new_id);
    // Storage validation of the new document, in its field order.
    bson_iter_t it;
    replacement.Init(&it);
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (key == "_id") CAIRN_RETURN_IF_ERROR(ValidateIdForStorage(&it));
      if (!key.empty() && key[0] == '$') return DollarPrefixedField(key);
    }
    if (has_id && had_id && CompareValues(&new_id, &old_id) != 0) {
      return Status(ErrorCode::kImmutableField,
                    "After applying the update, the (immutable) field '_id' was found to have "
                    "been altered to " +
                        update_internal::ElementToString("_id", &new_id));
    }
    // _id first: the replacement's, else the document's.
    if (has_id) {
      AppendIter(out, "_id", &new_id);
    } else if (had_id) {
      AppendIter(out, "_id", &old_id);
    }
    replacement.Init(&it);
    while (bson_iter_next(&it)) {
      if (IterKey(&it) == "_id") continue;
      AppendIter(out, IterKey(&it), &it);
    }
    CAIRN_RETURN_IF_ERROR(CheckResultSize(out));
    return true;
  }

  ApplyContext ctx(doc, options.is_upsert_insert);
  bool changed = false;
  CAIRN_RETURN_IF_ERROR(ApplyPathNode(ctx, plan_->root, ctx.root(), Cursor{}, &changed));
  if (!changed) {
    CopyDocument(doc, out);
    return false;
  }
  Node* root = ctx.root();
  size_t id_index = 0;
  const bool has_id = root->ChildIndex("_id", &id_index);
  if (options.is_upsert_insert && has_id) {
    // An upserted document gets _id first, and its _id must be storable.
    bson_iter_t id = ctx.IterOf(root->kids[id_index].second);
    CAIRN_RETURN_IF_ERROR(ValidateIdForStorage(&id));
    AppendNode(out, "_id", root->kids[id_index].second);
    for (size_t i = 0; i < root->kids.size(); ++i) {
      if (i != id_index) AppendNode(out, root->kids[i].first, root->kids[i].second);
    }
  } else {
    for (const auto& [name, kid] : root->kids) AppendNode(out, name, kid);
  }
  CAIRN_RETURN_IF_ERROR(CheckResultSize(out));
  return true;
}

}  // namespace cairn::query
