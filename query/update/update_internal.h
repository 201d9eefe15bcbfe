// Internal to query/update: the mutable document tree an update is applied to, the per-apply
// context, and the Modifier interface every update operator implements (one file per operator
// under update/mods/). Not a public API: only update.cc and update/mods/*.cc include it.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bson_doc.h"
#include "common/bson_element.h"
#include "common/field_path.h"
#include "common/status.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"

namespace cairn::query::update_internal {

// One value of the document being updated. A value is either "raw" (an unexpanded BSON value:
// a positioned iterator into bytes owned by the original document, the update spec or the
// ApplyContext arena) or an expanded document/array whose children can be edited. Only the
// values an update walks through are expanded; everything else is copied as bytes.
struct Node {
  bson_type_t type = BSON_TYPE_EOD;
  bool expanded = false;
  BsonElement raw;                                 // valid when !expanded (not a bson_iter_t:
                                                   // see common/bson_element.h)
  std::vector<std::pair<std::string, Node>> kids;  // when expanded (names unused for arrays)

  // User-provided: clang (the fuzz and sanitizer builds) with libstdc++ 12 otherwise checks
  // std::pair<std::string, Node>'s default constructor while Node is still incomplete.
  Node() {}
  static Node FromIter(const bson_iter_t* it);
  static Node NewDocument();
  static Node NewArray();

  bool IsDocument() const { return type == BSON_TYPE_DOCUMENT; }
  bool IsArray() const { return type == BSON_TYPE_ARRAY; }
  bool IsContainer() const { return IsDocument() || IsArray(); }

  // Turns a raw document/array into an editable one (no-op otherwise).
  void Expand();
  // Child lookup: documents by field name (first match), arrays by base-10 index. Expands.
  bool ChildIndex(std::string_view name, size_t* index);
  Node* Child(std::string_view name);
};

// An unsigned base-10 array index ("0", "12"); false for anything else.
bool ParseArrayIndex(std::string_view s, size_t* out);

// "$[]" or "$[<identifier>]": a path component that names array elements through arrayFilters.
inline bool IsArrayFilterIdentifier(std::string_view part) {
  return part.size() >= 3 && part.substr(0, 2) == "$[" && part.back() == ']';
}

// Appends `node` under `key`.
void AppendNode(bson_t* out, std::string_view key, const Node& node);

std::string JoinPath(const std::vector<std::string>& parts);

// State of one Update::Apply call: the document tree and an arena owning values made during
// the update. Not thread-safe; lives for one Apply.
class ApplyContext {
 public:
  ApplyContext(BsonView original, bool is_upsert_insert);

  Node* root() { return &root_; }
  bool is_upsert_insert() const { return is_upsert_insert_; }
  // The array index the query matched (what the positional "$" stands for); empty when none.
  std::string_view matched_field() const { return matched_field_; }
  void set_matched_field(std::string_view field) { matched_field_ = std::string(field); }

  // A raw node over a value appended by `build(bson_t* doc, const char* key)` (which must append
  // exactly one element with the given key). The bytes live in the arena.
  template <typename F>
  Node MakeValue(F&& build) {
    BsonDoc& doc = arena_.emplace_back();
    build(doc.get(), "v");
    bson_iter_t it;
    bson_iter_init(&it, doc.get());
    bson_iter_next(&it);
    return Node::FromIter(&it);
  }
  Node Null();

  // An iterator positioned on `node`'s value (expanded nodes are serialised into the arena).
  bson_iter_t IterOf(const Node& node);
  // MongoDB's shell-style rendering of `node`'s value, e.g. `{ a: 1 }` or `"x"`.
  std::string Shell(const Node& node);
  // "_id: 1" (MongoDB's idElem.toString()) or "no id": for messages naming the document.
  std::string IdForMessage();

 private:
  std::deque<BsonDoc> arena_;
  Node root_;
  bool is_upsert_insert_;
  std::string matched_field_;
};

// An existing element of the document: parent->kids[index].
struct ElementRef {
  Node* parent;
  size_t index;
  Node& node() const { return parent->kids[index].second; }
  const std::string& name() const { return parent->kids[index].first; }
};

// One update operator bound to one path ($set: {"a.b": 1} → a Set modifier for "a.b"). Built by
// a ModifierFactory at Parse (validating its operand with MongoDB's errors), then applied to
// each document. Immutable after construction; its iterators point into the Update's own copy
// of the update document.
class Modifier {
 public:
  virtual ~Modifier() = default;

  // Whether a missing path is created (its value from NewValue) or left alone (no-op).
  virtual bool AllowCreation() const = 0;
  // False when the modifier does nothing in this application ($setOnInsert on an update).
  virtual bool Applies(const ApplyContext& ctx) const { return true; }
  // Updates the existing element at `path` (dotted, as taken through the document). Returns
  // whether it changed (false: a no-op).
  virtual Result<bool> UpdateExisting(ApplyContext& ctx, ElementRef element,
                                      std::string_view path) const = 0;
  // The value of the element created at a missing path (only when AllowCreation()).
  virtual Result<Node> NewValue(ApplyContext& ctx) const;

  // A modifier that needs more than its own element ($rename reads and removes another path)
  // returns true and implements ApplyAtSite instead of UpdateExisting/NewValue.
  virtual bool HandlesSite() const { return false; }
  virtual Status ApplyAtSite(ApplyContext& ctx, const struct LeafSite& site, bool* changed) const;
};

// Where a modifier applies: the existing element at its path, or the deepest existing ancestor
// and the components still to create (MongoDB's pathTaken / pathToCreate).
struct LeafSite {
  Node* element;                       // the element at the path, or its deepest existing ancestor
  std::optional<ElementRef> existing;  // set when the path exists
  const std::vector<std::string>* taken;
  const std::vector<std::string>* create;
};

// Sets `value` at `site` (replacing the element or creating the path), with MongoDB's
// PathNotViable, immutable _id and top-level $-field checks. Defined in update.cc.
Status SetAtSite(ApplyContext& ctx, const LeafSite& site, Node value, bool* changed);

// What a modifier factory receives: the operator, the field path and the operand, and the
// statement's context.
struct ModifierArg {
  std::string_view op;    // "$set"
  std::string_view path;  // "a.b"
  bson_iter_t value;      // the operand, positioned; points into the Update's copy of the spec
  // The statement's context (may be null): its collation (collator()) is how a modifier compares
  // values that hold strings; $pull parses its condition with it.
  std::shared_ptr<const ExpressionContext> context = nullptr;

  // The collation to compare values under (null: binary), kept alive by the modifier that
  // stores it.
  std::shared_ptr<const StringComparator> collator() const;
};

using ModifierFactory = Result<std::unique_ptr<Modifier>> (*)(const ModifierArg& arg);

// Factories, one per operator file under update/mods/.
Result<std::unique_ptr<Modifier>> MakeSet(const ModifierArg& arg);          // mods/set.cc
Result<std::unique_ptr<Modifier>> MakeSetOnInsert(const ModifierArg& arg);  // mods/set.cc
Result<std::unique_ptr<Modifier>> MakeUnset(const ModifierArg& arg);        // mods/unset.cc
Result<std::unique_ptr<Modifier>> MakeInc(const ModifierArg& arg);          // mods/inc.cc
Result<std::unique_ptr<Modifier>> MakeMul(const ModifierArg& arg);          // mods/inc.cc
Result<std::unique_ptr<Modifier>> MakePush(const ModifierArg& arg);         // mods/push.cc
Result<std::unique_ptr<Modifier>> MakePull(const ModifierArg& arg);         // mods/pull.cc
Result<std::unique_ptr<Modifier>> MakePullAll(const ModifierArg& arg);      // mods/pull_all.cc
Result<std::unique_ptr<Modifier>> MakeMin(const ModifierArg& arg);          // mods/min_max.cc
Result<std::unique_ptr<Modifier>> MakeMax(const ModifierArg& arg);          // mods/min_max.cc
Result<std::unique_ptr<Modifier>> MakeAddToSet(const ModifierArg& arg);     // mods/add_to_set.cc
Result<std::unique_ptr<Modifier>> MakePop(const ModifierArg& arg);          // mods/pop.cc
Result<std::unique_ptr<Modifier>> MakeCurrentDate(const ModifierArg& arg);  // mods/current_date.cc
Result<std::unique_ptr<Modifier>> MakeBit(const ModifierArg& arg);          // mods/bit.cc
// $rename: `arg.path` is the source, `arg.value` the destination string. Parse places the
// returned modifier at the destination and MakeRenameSourcePlaceholder's at the source (so both
// paths conflict with other operators'). mods/rename.cc.
Result<std::unique_ptr<Modifier>> MakeRename(const ModifierArg& arg);
std::unique_ptr<Modifier> MakeRenameSourcePlaceholder();

// The arrayFilters of an update, by identifier (array_filters.cc). Each filter is a query on
// the document {<identifier>: <array element>}.
using ArrayFilterMap = std::map<std::string, Matcher, std::less<>>;

// Parses the arrayFilters array (its bytes viewed as a document; empty for none) with
// MongoDB's rules: each filter one top-level identifier (FailedToParse 9 otherwise), the
// identifier alphanumeric and starting with a lowercase letter (BadValue 2), no identifier
// twice (FailedToParse 9), no $expr/$where/$text; filter parse errors carry the context
// "Error parsing array filter". The filters compare strings under `context`'s collation.
Result<ArrayFilterMap> ParseArrayFilters(BsonView filters,
                                         const std::shared_ptr<const ExpressionContext>& context);

// Whether the array element `element` satisfies the filter of `identifier` (an error only if a
// filter could hold $expr, which ParseArrayFilters refuses).
Result<bool> ArrayFilterMatches(const Matcher& filter, std::string_view identifier,
                                const bson_iter_t* element);

// Shared helpers for modifiers.
// True when a and b have the same type and identical value bytes (MongoDB's binaryEqualValues).
bool BinaryEqualValues(const bson_iter_t* a, const bson_iter_t* b);
// MongoDB's `BSONElement::toString()` of an operand: `a.b: "x"`.
std::string ElementToString(std::string_view key, const bson_iter_t* value);

// Removes the elements of the array at `element` for which `remove(const bson_iter_t*)` is true
// (what $pull and $pullAll share). BadValue "Cannot apply $pull to a non-array value" when the
// value is not an array, as MongoDB answers for both. Returns whether anything was removed.
template <typename Remove>
Result<bool> RemoveArrayElements(ApplyContext& ctx, ElementRef element, Remove remove) {
  Node& node = element.node();
  if (!node.IsArray()) {
    return Status(ErrorCode::kBadValue, "Cannot apply $pull to a non-array value");
  }
  node.Expand();
  auto& kids = node.kids;
  size_t kept = 0;
  for (size_t i = 0; i < kids.size(); ++i) {
    bson_iter_t it = ctx.IterOf(kids[i].second);
    if (remove(&it)) continue;
    if (kept != i) kids[kept] = std::move(kids[i]);
    ++kept;
  }
  if (kept == kids.size()) return false;
  kids.resize(kept);
  return true;
}

}  // namespace cairn::query::update_internal
