// Update driver: parses an update argument (operator document or replacement) into a tree of
// modifiers keyed by path, with MongoDB's validation and conflict errors, and applies it to one
// document (update_driver.cpp + update_object_node.cpp + object_replace_executor.cpp in
// MongoDB). The operators themselves live in update/mods/, one file each.
#include "query/update/update.h"

#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/bson_compare.h"
#include "query/update/update_internal.h"

namespace cairn::query {

using update_internal::ApplyContext;
using update_internal::ArrayFilterMap;
using update_internal::ElementRef;
using update_internal::IsArrayFilterIdentifier;
using update_internal::JoinPath;
using update_internal::LeafSite;
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
    {"$bit", &update_internal::MakeBit},
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

}  // namespace

// A node of the parsed update: a leaf holds a modifier, an internal node its children by path
// component, in the order MongoDB applies them (UpdateObjectNode / UpdateArrayNode). An array
// node's children are keyed by array filter identifier ("" for "$[]") and apply to the array's
// elements; an object node may also have a positional child ("$"). Leaves are shared so that
// the nodes MongoDB merges at apply time (two identifiers matching one element, "$" and the
// field it stands for) can be built without copying modifiers.
struct Update::Plan {
  struct PathNode {
    std::shared_ptr<const Modifier> leaf;
    bool array_node = false;
    const Matcher* array_filter = nullptr;  // the filter of this child of an array node ($[]: none)
    std::map<std::string, std::unique_ptr<PathNode>, PathComponentLess> children;
    std::unique_ptr<PathNode> positional;  // the child at "$"
  };
  PathNode root;
  ArrayFilterMap array_filters;
  bool positional = false;  // some path has a "$"
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

// MongoDB's parseArrayFilterIdentifier: part i of `path` is "$[]" or "$[<identifier>]". Returns
// the identifier ("" for "$[]") once it is known to have a filter, and records it as used.
Result<std::string> ResolveArrayFilterIdentifier(const Update::Plan& plan, std::string_view path,
                                                 size_t i, const std::string& part,
                                                 std::set<std::string>* used) {
  if (i == 0) {
    return Status(ErrorCode::kBadValue,
                  "Cannot have array filter identifier (i.e. '$[<id>]') element in the first "
                  "position in path '" +
                      std::string(path) + "'");
  }
  std::string identifier = part.substr(2, part.size() - 3);
  if (identifier.empty()) return identifier;
  if (plan.array_filters.count(identifier) == 0) {
    return Status(ErrorCode::kBadValue, "No array filter found for identifier '" + identifier +
                                            "' in path '" + std::string(path) + "'");
  }
  used->insert(identifier);
  return identifier;
}

std::string JoinPrefix(const std::vector<std::string>& parts, size_t n) {
  return JoinPath(std::vector<std::string>(parts.begin(), parts.begin() + static_cast<long>(n)));
}

// Adds `leaf` at `parts` (MongoDB's UpdateObjectNode::parseAndMerge): a component "$" goes to
// the positional slot, "$[...]" to an array node's children by identifier; a path through
// another's leaf, or needing an array node where an object node is (or the reverse), conflicts.
Status MergeLeaf(Update::Plan* plan, std::string_view path, const std::vector<std::string>& parts,
                 std::unique_ptr<Modifier> leaf, std::set<std::string>* used) {
  auto conflict_at = [&](size_t n) {
    return Status(ErrorCode::kConflictingUpdateOperators,
                  "Updating the path '" + std::string(path) + "' would create a conflict at '" +
                      JoinPrefix(parts, n) + "'");
  };
  PathNode* current = &plan->root;
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    std::string name = parts[i];
    const Matcher* filter = nullptr;
    if (IsArrayFilterIdentifier(parts[i])) {
      CAIRN_ASSIGN_OR_RETURN(name, ResolveArrayFilterIdentifier(*plan, path, i, parts[i], used));
      if (!name.empty()) filter = &plan->array_filters.find(name)->second;
    }
    std::unique_ptr<PathNode>* slot;
    if (parts[i] == "$") {
      plan->positional = true;
      slot = &current->positional;
    } else {
      slot = &current->children[name];
    }
    if (last) {
      if (*slot != nullptr) return conflict_at(parts.size());
      *slot = std::make_unique<PathNode>();
      (*slot)->leaf = std::move(leaf);
      (*slot)->array_filter = filter;
      return Status::OK();
    }
    const bool array_node = IsArrayFilterIdentifier(parts[i + 1]);
    if (*slot != nullptr) {
      if ((*slot)->leaf != nullptr || (*slot)->array_node != array_node) {
        return conflict_at(i + 1);
      }
    } else {
      *slot = std::make_unique<PathNode>();
      (*slot)->array_node = array_node;
      (*slot)->array_filter = filter;
    }
    current = slot->get();
  }
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
      return Status(ErrorCode::kBadValue,
                    "can't backfill more than " + std::to_string(kMaxPaddingAllowed) + " elements");
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

Status ApplyLeafToMissing(ApplyContext& ctx, const Modifier& mod, Node* element, const Cursor& cur,
                          bool* changed) {
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
    return Status(ErrorCode::kImmutableField, "Updating the path '" + JoinPath(taken) + "' to " +
                                                  taken.back() + ": " + ctx.Shell(*site.element) +
                                                  " would modify the immutable field '_id'");
  }
  *changed = true;
  return Status::OK();
}

namespace {

// A deep copy of `node` (its leaves are shared).
std::unique_ptr<PathNode> CloneNode(const PathNode& node) {
  auto copy = std::make_unique<PathNode>();
  copy->leaf = node.leaf;
  copy->array_node = node.array_node;
  copy->array_filter = node.array_filter;
  for (const auto& [name, child] : node.children) copy->children.emplace(name, CloneNode(*child));
  if (node.positional != nullptr) copy->positional = CloneNode(*node.positional);
  return copy;
}

// MongoDB's UpdateNode::createUpdateNodeByMerging: the node applying both `left` and `right` to
// one element (two array filters accepting the same element, or "$" and the field it stands
// for). Two leaves, or a leaf and an internal node, or an array and an object node at one path,
// conflict: ConflictingUpdateOperators "Update created a conflict at '<where>'".
Result<std::unique_ptr<PathNode>> MergeNodes(const PathNode& left, const PathNode& right,
                                             std::vector<std::string>* where) {
  if (left.leaf != nullptr || right.leaf != nullptr || left.array_node != right.array_node) {
    return Status(ErrorCode::kConflictingUpdateOperators,
                  "Update created a conflict at '" + JoinPath(*where) + "'");
  }
  auto merged = std::make_unique<PathNode>();
  merged->array_node = left.array_node;
  merged->array_filter = left.array_filter;
  auto merge_child = [&](const std::string& name, const PathNode* a,
                         const PathNode* b) -> Result<std::unique_ptr<PathNode>> {
    if (a == nullptr) return CloneNode(*b);
    if (b == nullptr) return CloneNode(*a);
    where->push_back(left.array_node ? "$[" + name + "]" : name);
    Result<std::unique_ptr<PathNode>> result = MergeNodes(*a, *b, where);
    where->pop_back();
    return result;
  };
  for (const auto& [name, child] : left.children) {
    auto other = right.children.find(name);
    CAIRN_ASSIGN_OR_RETURN(
        std::unique_ptr<PathNode> node,
        merge_child(name, child.get(),
                    other == right.children.end() ? nullptr : other->second.get()));
    merged->children.emplace(name, std::move(node));
  }
  for (const auto& [name, child] : right.children) {
    if (left.children.count(name) == 0) merged->children.emplace(name, CloneNode(*child));
  }
  if (left.positional != nullptr || right.positional != nullptr) {
    CAIRN_ASSIGN_OR_RETURN(merged->positional,
                           merge_child("$", left.positional.get(), right.positional.get()));
  }
  return merged;
}

Status ApplyInternalNode(ApplyContext& ctx, const PathNode& node, Node* element, Cursor cur,
                         bool* changed);

// Applies `child`, the node for component `name` below `element` (MongoDB's applyChild): on the
// existing element of that name, else with `name` added to the path still to create.
Status ApplyChild(ApplyContext& ctx, const PathNode& child, const std::string& name, Node* element,
                  const Cursor& cur, bool* changed) {
  Cursor child_cur = cur;
  size_t index;
  if (cur.create.empty() && element->ChildIndex(name, &index)) {
    child_cur.taken.push_back(name);
    if (child.leaf != nullptr) {
      return ApplyLeafToExisting(ctx, *child.leaf, ElementRef{element, index}, child_cur, changed);
    }
    return ApplyInternalNode(ctx, child, &element->kids[index].second, std::move(child_cur),
                             changed);
  }
  child_cur.create.push_back(name);
  if (child.leaf != nullptr) {
    return ApplyLeafToMissing(ctx, *child.leaf, element, child_cur, changed);
  }
  return ApplyInternalNode(ctx, child, element, std::move(child_cur), changed);
}

// UpdateObjectNode::apply: the children in order; the positional child applies under the
// matched index, merged with the child of that name when there is one.
Status ApplyObjectNode(ApplyContext& ctx, const PathNode& node, Node* element, Cursor cur,
                       bool* changed) {
  const PathNode* positional = node.positional.get();
  const std::string matched(ctx.matched_field());
  if (positional != nullptr && matched.empty()) {
    return Status(ErrorCode::kBadValue,
                  "The positional operator did not find the match needed from the query.");
  }
  // An earlier sibling may have created the pending path: continue from there.
  auto catch_up = [&]() {
    if (cur.create.empty()) return;
    Node* e = element;
    for (const std::string& part : cur.create) {
      e = e->Child(part);
      if (e == nullptr) return;
    }
    cur.taken.insert(cur.taken.end(), cur.create.begin(), cur.create.end());
    cur.create.clear();
    element = e;
  };
  for (const auto& [name, child] : node.children) {
    catch_up();
    if (positional != nullptr && name == matched) {
      std::vector<std::string> where = cur.taken;
      where.insert(where.end(), cur.create.begin(), cur.create.end());
      where.push_back(name);
      CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<PathNode> merged,
                             MergeNodes(*positional, *child, &where));
      positional = nullptr;
      CAIRN_RETURN_IF_ERROR(ApplyChild(ctx, *merged, name, element, cur, changed));
      continue;
    }
    if (positional != nullptr && matched < name) {
      CAIRN_RETURN_IF_ERROR(ApplyChild(ctx, *positional, matched, element, cur, changed));
      positional = nullptr;
      catch_up();
    }
    CAIRN_RETURN_IF_ERROR(ApplyChild(ctx, *child, name, element, cur, changed));
  }
  if (positional != nullptr) {
    catch_up();
    CAIRN_RETURN_IF_ERROR(ApplyChild(ctx, *positional, matched, element, cur, changed));
  }
  return Status::OK();
}

// UpdateArrayNode::apply: every child whose filter accepts an element ("$[]": every element)
// applies to it; which do is decided for all elements before any is updated, and the children
// accepting one element are merged.
Status ApplyArrayNode(ApplyContext& ctx, const PathNode& node, Node* element, const Cursor& cur,
                      bool* changed) {
  if (!cur.create.empty()) {
    std::vector<std::string> path = cur.taken;
    path.insert(path.end(), cur.create.begin(), cur.create.end());
    return Status(ErrorCode::kBadValue, "The path '" + JoinPath(path) +
                                            "' must exist in the document in order to apply "
                                            "array updates.");
  }
  if (!element->IsArray()) {
    std::string name = cur.taken.empty() ? std::string() : cur.taken.back();
    return Status(ErrorCode::kBadValue, "Cannot apply array updates to non-array element " + name +
                                            ": " + ctx.Shell(*element));
  }
  element->Expand();
  std::vector<std::pair<size_t, const PathNode*>> matching;  // by element index, then child
  for (size_t i = 0; i < element->kids.size(); ++i) {
    bool iterated = false;
    bson_iter_t value;
    for (const auto& [identifier, child] : node.children) {
      if (!identifier.empty()) {
        if (!iterated) {
          value = ctx.IterOf(element->kids[i].second);
          iterated = true;
        }
        CAIRN_ASSIGN_OR_RETURN(bool accepted, update_internal::ArrayFilterMatches(
                                                  *child->array_filter, identifier, &value));
        if (!accepted) continue;
      }
      matching.emplace_back(i, child.get());
    }
  }
  for (size_t first = 0; first < matching.size();) {
    const size_t index = matching[first].first;
    size_t end = first + 1;
    while (end < matching.size() && matching[end].first == index) ++end;
    Cursor child_cur = cur;
    child_cur.taken.push_back(std::to_string(index));
    const PathNode* apply = matching[first].second;
    std::unique_ptr<PathNode> merged;
    for (size_t k = first + 1; k < end; ++k) {
      CAIRN_ASSIGN_OR_RETURN(merged, MergeNodes(*apply, *matching[k].second, &child_cur.taken));
      apply = merged.get();
    }
    if (apply->leaf != nullptr) {
      CAIRN_RETURN_IF_ERROR(
          ApplyLeafToExisting(ctx, *apply->leaf, ElementRef{element, index}, child_cur, changed));
    } else {
      CAIRN_RETURN_IF_ERROR(ApplyInternalNode(ctx, *apply, &element->kids[index].second,
                                              std::move(child_cur), changed));
    }
    first = end;
  }
  return Status::OK();
}

Status ApplyInternalNode(ApplyContext& ctx, const PathNode& node, Node* element, Cursor cur,
                         bool* changed) {
  if (node.array_node) return ApplyArrayNode(ctx, node, element, cur, changed);
  return ApplyObjectNode(ctx, node, element, std::move(cur), changed);
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
    return Status(
        ErrorCode::kBSONObjectTooLarge,
        "Resulting document after update is larger than " + std::to_string(kMaxBsonObjectSize));
  }
  return Status::OK();
}

}  // namespace

namespace {

// {$rename: {from: "to"}}: a placeholder at `from` and the rename at `to`, each path validated
// and conflict-checked (UpdateObjectNode::parseAndMerge's MOD_RENAME case).
Status ParseRename(Update::Plan* plan, std::string_view from,
                   const std::vector<std::string>& from_parts, const bson_iter_t& field,
                   std::set<std::string>* used) {
  for (const std::string& part : from_parts) {
    if (IsArrayFilterIdentifier(part)) {
      return Status(ErrorCode::kBadValue,
                    "The source field for $rename may not be dynamic: " + std::string(from));
    }
  }
  CAIRN_RETURN_IF_ERROR(
      MergeLeaf(plan, from, from_parts, update_internal::MakeRenameSourcePlaceholder(), used));
  if (!BSON_ITER_HOLDS_UTF8(&field)) {
    return Status(ErrorCode::kBadValue, "The 'to' field for $rename must be a string: " +
                                            update_internal::ElementToString(from, &field));
  }
  std::string_view to = IterUtf8(&field);
  std::vector<std::string> to_parts = SplitDottedPath(to);
  CAIRN_RETURN_IF_ERROR(ValidateUpdatePath(to, to_parts));
  ModifierArg arg{"$rename", from, field};
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<Modifier> rename, update_internal::MakeRename(arg));
  return MergeLeaf(plan, to, to_parts, std::move(rename), used);
}

}  // namespace

Result<Update> Update::Parse(BsonView update) { return Parse(update, BsonView()); }

Result<Update> Update::Parse(BsonView update, BsonView array_filters,
                             std::shared_ptr<const ExpressionContext> context) {
  // MongoDB parses the filters first (ParsedUpdate::parseArrayFilters), replacements included.
  CAIRN_ASSIGN_OR_RETURN(ArrayFilterMap filters,
                         update_internal::ParseArrayFilters(array_filters, context));
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
  plan->array_filters = std::move(filters);
  std::set<std::string> used;  // the identifiers the paths name
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
        CAIRN_RETURN_IF_ERROR(ParseRename(plan.get(), path, parts, field, &used));
        continue;
      }
      ModifierArg arg{op, path, field, context};
      CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<Modifier> leaf, entry->factory(arg));
      CAIRN_RETURN_IF_ERROR(MergeLeaf(plan.get(), path, parts, std::move(leaf), &used));
    }
  }
  for (const auto& [identifier, filter] : plan->array_filters) {
    if (used.count(identifier) == 0) {
      return Status(ErrorCode::kFailedToParse, "The array filter for identifier '" + identifier +
                                                   "' was not used in the update " +
                                                   ToShellString(spec));
    }
  }
  result.source_ = std::move(source);
  result.plan_ = std::move(plan);
  return result;
}

bool Update::uses_positional() const { return plan_ != nullptr && plan_->positional; }

Result<bool> Update::Apply(BsonView doc, bson_t* out, const ApplyOptions& options) const {
  if (pipeline_) return ApplyPipeline(doc, out);
  if (replacement_) {
    return ApplyReplacement(doc, source_->view(), out, /*allow_dollar_prefixed_fields=*/false);
  }
  return ApplyOperators(doc, out, options);
}

Result<bool> Update::ApplyReplacement(BsonView doc, BsonView replacement, bson_t* out,
                                      bool allow_dollar_prefixed_fields) {
  bson_iter_t old_id;
  const bool had_id = doc.Find("_id", &old_id);
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
    if (!allow_dollar_prefixed_fields && !key.empty() && key[0] == '$') {
      return DollarPrefixedField(key);
    }
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

Result<bool> Update::ApplyOperators(BsonView doc, bson_t* out, const ApplyOptions& options) const {
  ApplyContext ctx(doc, options.is_upsert_insert);
  ctx.set_matched_field(options.positional_match);
  bool changed = false;
  CAIRN_RETURN_IF_ERROR(ApplyObjectNode(ctx, plan_->root, ctx.root(), Cursor{}, &changed));
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
