// MatchExpression: the parsed filter tree and the node kinds of the query language, with
// MongoDB's matching semantics (src/mongo/db/matcher/expression_*.cpp). ParseFilter (in
// parse_filter.cc) builds the tree; each operator family's nodes are implemented in
// matcher/ops/<family>.cc. Nodes hold views (bson_iter_t) into the filter's bytes: a tree is only
// valid while the buffer it was parsed from lives (Matcher keeps both together).
// Immutable after parsing; every method is const and thread-safe.
#pragma once

#include <bson/bson.h>

#include <bitset>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/bson_element.h"
#include "common/status.h"
#include "query/matcher/path.h"

namespace cairn::query {

enum class MatchKind {
  kAnd,
  kOr,
  kNor,
  kNot,
  kAlwaysTrue,
  kAlwaysFalse,
  kEq,
  kLt,
  kLte,
  kGt,
  kGte,
  kIn,
  kExists,
  kType,
  kSize,
  kMod,
  kElemMatchObject,
  kElemMatchValue,
};

class MatchExpression {
 public:
  explicit MatchExpression(MatchKind kind) : kind_(kind) {}
  virtual ~MatchExpression() = default;
  MatchExpression(const MatchExpression&) = delete;
  MatchExpression& operator=(const MatchExpression&) = delete;

  MatchKind kind() const { return kind_; }

  // True when the whole document `doc` satisfies this node.
  virtual bool Matches(BsonView doc) const = 0;

  // True when one value satisfies this node's test, ignoring any path: how $elemMatch's value
  // form tests array elements. `value` is nullptr for "missing".
  virtual bool MatchesSingleElement(const bson_iter_t* value) const = 0;

  virtual size_t num_children() const { return 0; }
  virtual const MatchExpression* child(size_t i) const { return nullptr; }

 private:
  MatchKind kind_;
};

using MatchExpressionPtr = std::unique_ptr<MatchExpression>;

// Parses a query filter into a tree, with MongoDB's error codes and messages. The tree views
// `filter`'s bytes. An empty filter gives an $and with no children (matches everything).
Result<MatchExpressionPtr> ParseFilter(BsonView filter);

// ---- Logical nodes (ops/logical.cc) ----

// $and / $or / $nor over a list of children (also the implicit $and of a filter's fields).
class ListMatchExpression final : public MatchExpression {
 public:
  explicit ListMatchExpression(MatchKind kind) : MatchExpression(kind) {}
  void Add(MatchExpressionPtr child) { children_.push_back(std::move(child)); }
  // Moves the children out (the parser uses this to unwrap one-child $ands).
  std::vector<MatchExpressionPtr> ReleaseChildren() { return std::move(children_); }

  bool Matches(BsonView doc) const override;
  bool MatchesSingleElement(const bson_iter_t* value) const override;
  size_t num_children() const override { return children_.size(); }
  const MatchExpression* child(size_t i) const override { return children_[i].get(); }

 private:
  std::vector<MatchExpressionPtr> children_;
};

class NotMatchExpression final : public MatchExpression {
 public:
  explicit NotMatchExpression(MatchExpressionPtr child)
      : MatchExpression(MatchKind::kNot), child_(std::move(child)) {}
  bool Matches(BsonView doc) const override { return !child_->Matches(doc); }
  bool MatchesSingleElement(const bson_iter_t* value) const override {
    return !child_->MatchesSingleElement(value);
  }
  size_t num_children() const override { return 1; }
  const MatchExpression* child(size_t) const override { return child_.get(); }

 private:
  MatchExpressionPtr child_;
};

// $alwaysTrue / $alwaysFalse, and $all: [] (never matches).
class AlwaysBooleanMatchExpression final : public MatchExpression {
 public:
  explicit AlwaysBooleanMatchExpression(bool value)
      : MatchExpression(value ? MatchKind::kAlwaysTrue : MatchKind::kAlwaysFalse) {}
  bool Matches(BsonView) const override { return kind() == MatchKind::kAlwaysTrue; }
  bool MatchesSingleElement(const bson_iter_t*) const override {
    return kind() == MatchKind::kAlwaysTrue;
  }
};

// ---- Path nodes: a test applied to every value a dotted path reaches; any success matches ----

class PathMatchExpression : public MatchExpression {
 public:
  PathMatchExpression(MatchKind kind, std::string_view path, LeafArrays leaf)
      : MatchExpression(kind), path_(path), leaf_(leaf) {}
  const FieldPath& path() const { return path_; }
  bool Matches(BsonView doc) const final;

 private:
  FieldPath path_;
  LeafArrays leaf_;
};

// $eq (and implicit equality), $lt, $lte, $gt, $gte (ops/comparison.cc): values compare only
// within one canonical type bracket, except null/missing/undefined which are alike and
// MinKey/MaxKey operands; NaN equals NaN only.
class ComparisonMatchExpression final : public PathMatchExpression {
 public:
  ComparisonMatchExpression(MatchKind kind, std::string_view path, const bson_iter_t& rhs)
      : PathMatchExpression(kind, path, LeafArrays::kTraverse), rhs_(&rhs) {}
  // The operand, positioned (a fresh iterator into the filter's bytes).
  bson_iter_t rhs() const { return rhs_.iter(); }
  bool MatchesSingleElement(const bson_iter_t* value) const override;

 private:
  BsonElement rhs_;  // not a bson_iter_t: see common/bson_element.h
};

// $in (ops/in.cc); $nin is Not($in). A null in the list also matches missing and undefined.
class InMatchExpression final : public PathMatchExpression {
 public:
  // `equalities` need not be sorted or distinct.
  InMatchExpression(std::string_view path, std::vector<BsonElement> equalities);
  const std::vector<BsonElement>& equalities() const { return equalities_; }  // sorted, distinct
  bool has_null() const { return has_null_; }
  bool MatchesSingleElement(const bson_iter_t* value) const override;

 private:
  std::vector<BsonElement> equalities_;
  bool has_null_ = false;
};

// $exists: true (ops/exists.cc); $exists: false is Not($exists: true).
class ExistsMatchExpression final : public PathMatchExpression {
 public:
  explicit ExistsMatchExpression(std::string_view path)
      : PathMatchExpression(MatchKind::kExists, path, LeafArrays::kTraverse) {}
  bool MatchesSingleElement(const bson_iter_t* value) const override { return value != nullptr; }
};

// $type (ops/type.cc): a set of BSON types, plus "number".
class TypeMatchExpression final : public PathMatchExpression {
 public:
  // `types` is indexed by the libbson type byte (BSON_TYPE_MINKEY is 0xFF; 0 is "missing").
  TypeMatchExpression(std::string_view path, std::bitset<256> types, bool all_numbers)
      : PathMatchExpression(MatchKind::kType, path, LeafArrays::kTraverse),
        types_(types),
        all_numbers_(all_numbers) {}
  bool MatchesSingleElement(const bson_iter_t* value) const override;

 private:
  std::bitset<256> types_;
  bool all_numbers_;
};

// $size (ops/size.cc): an array with exactly n elements (arrays inside arrays are not entered).
class SizeMatchExpression final : public PathMatchExpression {
 public:
  SizeMatchExpression(std::string_view path, int size)
      : PathMatchExpression(MatchKind::kSize, path, LeafArrays::kNoTraversal), size_(size) {}
  bool MatchesSingleElement(const bson_iter_t* value) const override;

 private:
  int size_;
};

// $mod (ops/mod.cc): numbers truncated to int64, dividend % divisor == remainder.
class ModMatchExpression final : public PathMatchExpression {
 public:
  ModMatchExpression(std::string_view path, int64_t divisor, int64_t remainder)
      : PathMatchExpression(MatchKind::kMod, path, LeafArrays::kTraverse),
        divisor_(divisor),
        remainder_(remainder) {}
  bool MatchesSingleElement(const bson_iter_t* value) const override;

 private:
  int64_t divisor_;
  int64_t remainder_;
};

// $elemMatch with a query on the elements' fields ({a: {$elemMatch: {b: 1, c: 2}}}):
// some element that is a document (or array) satisfies the whole sub-filter (ops/elem_match.cc).
class ElemMatchObjectMatchExpression final : public PathMatchExpression {
 public:
  ElemMatchObjectMatchExpression(std::string_view path, MatchExpressionPtr sub)
      : PathMatchExpression(MatchKind::kElemMatchObject, path, LeafArrays::kNoTraversal),
        sub_(std::move(sub)) {}
  bool MatchesSingleElement(const bson_iter_t* value) const override;
  size_t num_children() const override { return 1; }
  const MatchExpression* child(size_t) const override { return sub_.get(); }

 private:
  MatchExpressionPtr sub_;
};

// $elemMatch with operators on the elements themselves ({a: {$elemMatch: {$gt: 1, $lt: 5}}}):
// some element satisfies every operator (ops/elem_match.cc).
class ElemMatchValueMatchExpression final : public PathMatchExpression {
 public:
  ElemMatchValueMatchExpression(std::string_view path, std::vector<MatchExpressionPtr> subs)
      : PathMatchExpression(MatchKind::kElemMatchValue, path, LeafArrays::kNoTraversal),
        subs_(std::move(subs)) {}
  bool MatchesSingleElement(const bson_iter_t* value) const override;
  size_t num_children() const override { return subs_.size(); }
  const MatchExpression* child(size_t i) const override { return subs_[i].get(); }

 private:
  std::vector<MatchExpressionPtr> subs_;
};

}  // namespace cairn::query
