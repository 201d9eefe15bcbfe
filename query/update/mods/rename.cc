// $rename: moves a field's value to another path ({$rename: {from: "to"}}). The modifier sits
// at the destination path; the source holds a placeholder so both paths conflict with other
// operators. A missing source is a no-op; a source or destination inside an array is BadValue;
// the source path through a scalar is PathNotViable; "$" and "$[...]" components are refused
// ("... may not be dynamic"). MongoDB: rename_node.cpp.
#include "query/update/update_internal.h"

namespace cairn::query::update_internal {
namespace {

bool IsPrefixOf(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() >= b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// Does nothing: it only reserves the source path against conflicting operators.
class RenameSourcePlaceholder final : public Modifier {
 public:
  bool AllowCreation() const override { return false; }
  Result<bool> UpdateExisting(ApplyContext&, ElementRef, std::string_view) const override {
    return false;
  }
};

class RenameModifier final : public Modifier {
 public:
  RenameModifier(std::string from, std::string to)
      : from_(std::move(from)), to_(std::move(to)), from_parts_(SplitDottedPath(from_)) {}

  bool AllowCreation() const override { return true; }
  bool HandlesSite() const override { return true; }

  Result<bool> UpdateExisting(ApplyContext&, ElementRef, std::string_view) const override {
    return Status(ErrorCode::kInternalError, "$rename applies at its site");
  }

  Status ApplyAtSite(ApplyContext& ctx, const LeafSite& site, bool* changed) const override {
    // Find the source (pathsupport::findLongestPrefix): missing is a no-op, a path through a
    // non-container is not viable.
    std::vector<Node*> chain;  // the nodes at from_parts_[0..i]
    Node* current = ctx.root();
    for (size_t i = 0; i < from_parts_.size(); ++i) {
      const bool viable = current->IsDocument() || (current->IsArray() && IsIndex(from_parts_[i]));
      if (!viable) {
        return Status(ErrorCode::kPathNotViable,
                      "cannot use the part (" + from_parts_[i - 1] + " of " + from_ +
                          ") to traverse the element ({" + from_parts_[i - 1] + ": " +
                          ctx.Shell(*current) + "})");
      }
      Node* next = current->Child(from_parts_[i]);
      if (next == nullptr) return Status::OK();
      chain.push_back(next);
      current = next;
    }
    // Renaming through an array is prohibited (the renamed value may be an array).
    for (size_t i = chain.size() - 1; i-- > 0;) {
      if (chain[i]->IsArray()) {
        return Status(ErrorCode::kBadValue, "The source field cannot be an array element, '" +
                                                from_ + "' in doc with " + ctx.IdForMessage() +
                                                " has an array field called '" + from_parts_[i] +
                                                "'");
      }
    }
    // Nor may the destination be inside an array.
    const std::vector<std::string>& taken = *site.taken;
    std::vector<Node*> to_chain;
    Node* walk = ctx.root();
    for (const std::string& part : taken) {
      walk = walk->Child(part);
      to_chain.push_back(walk);
    }
    size_t checked = site.existing ? to_chain.size() - 1 : to_chain.size();
    for (size_t i = checked; i-- > 0;) {
      if (to_chain[i]->IsArray()) {
        return Status(ErrorCode::kBadValue, "The destination field cannot be an array element, '" +
                                                to_ + "' in doc with " + ctx.IdForMessage() +
                                                " has an array field called '" + taken[i] + "'");
      }
    }
    Node value = *chain.back();
    CAIRN_RETURN_IF_ERROR(SetAtSite(ctx, site, std::move(value), changed));
    // Remove the source (found again: the set may have moved sibling storage).
    Node* parent = ctx.root();
    for (size_t i = 0; i + 1 < from_parts_.size(); ++i) parent = parent->Child(from_parts_[i]);
    size_t index;
    if (parent != nullptr && parent->ChildIndex(from_parts_.back(), &index)) {
      parent->kids.erase(parent->kids.begin() + static_cast<std::ptrdiff_t>(index));
    }
    if (from_parts_.front() == "_id") {
      return Status(ErrorCode::kImmutableField, "Performing an update on the path '" + from_ +
                                                    "' would modify the immutable field '_id'");
    }
    *changed = true;
    return Status::OK();
  }

 private:
  static bool IsIndex(const std::string& part) {
    size_t index;
    return ParseArrayIndex(part, &index);
  }

  std::string from_;
  std::string to_;
  std::vector<std::string> from_parts_;
};

}  // namespace

std::unique_ptr<Modifier> MakeRenameSourcePlaceholder() {
  return std::make_unique<RenameSourcePlaceholder>();
}

Result<std::unique_ptr<Modifier>> MakeRename(const ModifierArg& arg) {
  std::string_view to = IterUtf8(&arg.value);
  if (to.find('\0') != std::string_view::npos) {
    return Status(ErrorCode::kBadValue,
                  "The 'to' field for $rename cannot contain an embedded null byte");
  }
  std::vector<std::string> from_parts = SplitDottedPath(arg.path);
  std::vector<std::string> to_parts = SplitDottedPath(to);
  if (from_parts == to_parts) {
    return Status(ErrorCode::kBadValue, "The source and target field for $rename must differ: " +
                                            ElementToString(arg.path, &arg.value));
  }
  if (IsPrefixOf(from_parts, to_parts) || IsPrefixOf(to_parts, from_parts)) {
    return Status(ErrorCode::kBadValue,
                  "The source and target field for $rename must not be on the same path: " +
                      ElementToString(arg.path, &arg.value));
  }
  for (const std::string& part : from_parts) {
    if (part == "$" || IsArrayFilterIdentifier(part)) {
      return Status(ErrorCode::kBadValue,
                    "The source field for $rename may not be dynamic: " + std::string(arg.path));
    }
  }
  for (const std::string& part : to_parts) {
    if (part == "$" || IsArrayFilterIdentifier(part)) {
      return Status(ErrorCode::kBadValue,
                    "The destination field for $rename may not be dynamic: " + std::string(to));
    }
  }
  return std::unique_ptr<Modifier>(new RenameModifier(std::string(arg.path), std::string(to)));
}

}  // namespace cairn::query::update_internal
