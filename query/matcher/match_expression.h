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
#include "common/string_comparator.h"
#include "query/matcher/match_details.h"
#include "query/matcher/path.h"
#include "query/matcher/regex.h"

namespace cairn::query {

class ExpressionContext;  // query/expression/expression.h

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
  kRegex,
  kBitsAllSet,
  kBitsAllClear,
  kBitsAnySet,
  kBitsAnyClear,
  kJsonSchema,
  kExpr,  // ops/expr.cc
  kText,  // ops/text.cc (text_expression.h)
};

class MatchExpression {
 public:
  explicit MatchExpression(MatchKind kind) : kind_(kind) {}
  virtual ~MatchExpression() = default;
  MatchExpression(const MatchExpression&) = delete;
  MatchExpression& operator=(const MatchExpression&) = delete;

  MatchKind kind() const { return kind_; }

  // True when the whole document `doc` satisfies this node. A node whose test fails (a $expr
  // whose evaluation errs, a regular expression PCRE2 stops with an error) sets *error and
  // returns false; every parent stops at the first error (a $not or $nor never turns one into a
  // match), so *error, when set, is the outcome. `error` is never null and is OK on entry.
  virtual bool Matches(BsonView doc, Status* error) const = 0;

  // True when one value satisfies this node's test, ignoring any path: how a path node tests
  // each value its path reaches and $elemMatch's value form each array element. `value` is
  // nullptr for "missing". A test that fails (a regex's PCRE2 error) sets *error and returns
  // TRUE: true ends every search over values (a path's values, an array's elements, $in's
  // regexes) at once, at no cost to the search's loop; whoever turns the search's outcome into
  // a match reads *error first (FalliblePathMatchExpression::Matches). `error` is OK on entry.
  virtual bool MatchesSingleElement(const bson_iter_t* value, Status* error) const = 0;

  // Matches(doc) that also records in `details` where in an array the match was made
  // (MongoDB's matches(doc, details)); nodes that cannot tell ($or, $not, ...) record nothing.
  virtual bool MatchesRecording(BsonView doc, MatchDetails* details, Status* error) const {
    return Matches(doc, error);
  }
  // MatchesSingleElement that records which element of the value matched ($elemMatch).
  virtual bool MatchesSingleElementRecording(const bson_iter_t* value, MatchDetails* details,
                                             Status* error) const {
    return MatchesSingleElement(value, error);
  }

  virtual size_t num_children() const { return 0; }
  virtual const MatchExpression* child(size_t i) const { return nullptr; }

 private:
  MatchKind kind_;
};

using MatchExpressionPtr = std::unique_ptr<MatchExpression>;

// Whether `value` passes every one of `tests`, with MatchesSingleElement's contract (true with
// *error set when a test fails): $and's single-value test and $elemMatch's value form.
bool AllMatchSingleElement(const std::vector<MatchExpressionPtr>& tests, const bson_iter_t* value,
                           Status* error);

// Parses a query filter into a tree, with MongoDB's error codes and messages. The tree views
// `filter`'s bytes. An empty filter gives an $and with no children (matches everything).
// `context` (may hold null) gives $expr its variables and $$NOW, and the collation the tree's
// comparison and $in nodes keep.
Result<MatchExpressionPtr> ParseFilter(BsonView filter,
                                       const std::shared_ptr<const ExpressionContext>& context);

// ---- Logical nodes (ops/logical.cc) ----

// $and / $or / $nor over a list of children (also the implicit $and of a filter's fields).
class ListMatchExpression final : public MatchExpression {
 public:
  explicit ListMatchExpression(MatchKind kind) : MatchExpression(kind) {}
  void Add(MatchExpressionPtr child) { children_.push_back(std::move(child)); }
  // Moves the children out (the parser uses this to unwrap one-child $ands).
  std::vector<MatchExpressionPtr> ReleaseChildren() { return std::move(children_); }

  bool Matches(BsonView doc, Status* error) const override;
  // $and passes `details` on (and clears it when it fails); a one-clause $or is its clause
  // (MongoDB's canonical form); other $or and $nor record nothing.
  bool MatchesRecording(BsonView doc, MatchDetails* details, Status* error) const override;
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override;
  size_t num_children() const override { return children_.size(); }
  const MatchExpression* child(size_t i) const override { return children_[i].get(); }

 private:
  std::vector<MatchExpressionPtr> children_;
};

class NotMatchExpression final : public MatchExpression {
 public:
  explicit NotMatchExpression(MatchExpressionPtr child)
      : MatchExpression(MatchKind::kNot), child_(std::move(child)) {}
  bool Matches(BsonView doc, Status* error) const override {
    return !child_->Matches(doc, error) && error->ok();
  }
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override {
    return !child_->MatchesSingleElement(value, error) || !error->ok();
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
  bool Matches(BsonView, Status*) const override { return kind() == MatchKind::kAlwaysTrue; }
  bool MatchesSingleElement(const bson_iter_t*, Status*) const override {
    return kind() == MatchKind::kAlwaysTrue;
  }
};

// ---- Path nodes: a test applied to every value a dotted path reaches; any success matches ----

class PathMatchExpression : public MatchExpression {
 public:
  PathMatchExpression(MatchKind kind, std::string_view path, LeafArrays leaf)
      : MatchExpression(kind), path_(path), leaf_(leaf) {}
  const FieldPath& path() const { return path_; }
  // True when some value the path reaches passes MatchesSingleElement. For tests that cannot
  // fail (equality, ranges, $exists, ...): *error is not read, so they pay nothing for failures
  // they cannot have. A node whose test can fail derives from FalliblePathMatchExpression.
  bool Matches(BsonView doc, Status* error) const override;
  // Records the outermost array element the path went through to the matching value, else
  // what MatchesSingleElementRecording recorded.
  bool MatchesRecording(BsonView doc, MatchDetails* details, Status* error) const final;

 private:
  FieldPath path_;
  LeafArrays leaf_;
};

// A path node whose test may fail: it searches with a regex, or holds nodes that do. A failed
// test answers true to end the walk, so the walk's outcome is a match only while *error is OK.
class FalliblePathMatchExpression : public PathMatchExpression {
 public:
  using PathMatchExpression::PathMatchExpression;
  // False with *error set when a test failed.
  bool Matches(BsonView doc, Status* error) const final {
    return PathMatchExpression::Matches(doc, error) && error->ok();
  }
};

// $eq (and implicit equality), $lt, $lte, $gt, $gte (ops/comparison.cc): values compare only
// within one canonical type bracket, except null/missing/undefined which are alike and
// MinKey/MaxKey operands; NaN equals NaN only. Strings compare under `collator` (the query's
// collation; nullptr: binary), which the Matcher keeps alive.
class ComparisonMatchExpression final : public PathMatchExpression {
 public:
  ComparisonMatchExpression(MatchKind kind, std::string_view path, const bson_iter_t& rhs,
                            const StringComparator* collator = nullptr)
      : PathMatchExpression(kind, path, LeafArrays::kTraverse), rhs_(&rhs), collator_(collator) {}
  // The operand, positioned (a fresh iterator into the filter's bytes).
  bson_iter_t rhs() const { return rhs_.iter(); }
  const StringComparator* collator() const { return collator_; }
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override;

 private:
  BsonElement rhs_;  // not a bson_iter_t: see common/bson_element.h
  const StringComparator* collator_;
};

// $regex and {path: /re/} (ops/regex.cc): a string or symbol the pattern matches somewhere; a
// BSON regex value matches when its pattern and flags are byte-for-byte the filter's. A search
// PCRE2 ends with an error (its match limit) fails the match with 51156 (Regex::ExecutionError).
// `pattern` and `flags` view the filter's bytes; `regex` is compiled from them at parse time.
class RegexMatchExpression final : public FalliblePathMatchExpression {
 public:
  RegexMatchExpression(std::string_view path, std::string_view pattern, std::string_view flags,
                       Regex regex)
      : FalliblePathMatchExpression(MatchKind::kRegex, path, LeafArrays::kTraverse),
        pattern_(pattern),
        flags_(flags),
        regex_(std::move(regex)) {}
  std::string_view pattern() const { return pattern_; }
  std::string_view flags() const { return flags_; }
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override;

 private:
  std::string_view pattern_;
  std::string_view flags_;
  Regex regex_;
};

// $in (ops/in.cc); $nin is Not($in). A null in the list also matches missing and undefined;
// regular expressions in the list match as $regex does.
class InMatchExpression final : public FalliblePathMatchExpression {
 public:
  // `equalities` need not be sorted or distinct. They compare (and are deduplicated) under
  // `collator` (the query's collation; nullptr: binary), which the Matcher keeps alive.
  InMatchExpression(std::string_view path, std::vector<BsonElement> equalities,
                    std::vector<std::unique_ptr<RegexMatchExpression>> regexes = {},
                    const StringComparator* collator = nullptr);
  const std::vector<BsonElement>& equalities() const { return equalities_; }  // sorted, distinct
  const StringComparator* collator() const { return collator_; }
  bool has_null() const { return has_null_; }
  // Whether the list also holds regular expressions (which equalities() leaves out).
  bool has_regexes() const { return !regexes_.empty(); }
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override;

 private:
  std::vector<BsonElement> equalities_;
  std::vector<std::unique_ptr<RegexMatchExpression>> regexes_;
  const StringComparator* collator_;
  bool has_null_ = false;
};

// $exists: true (ops/exists.cc); $exists: false is Not($exists: true).
class ExistsMatchExpression final : public PathMatchExpression {
 public:
  explicit ExistsMatchExpression(std::string_view path)
      : PathMatchExpression(MatchKind::kExists, path, LeafArrays::kTraverse) {}
  bool MatchesSingleElement(const bson_iter_t* value, Status*) const override {
    return value != nullptr;
  }
};

// MongoDB's MatcherTypeSet: BSON types plus "number" (every numeric type), as $type and
// $jsonSchema's bsonType/type name them (ops/type.cc).
struct MatcherTypeSet {
  std::bitset<256> types;  // indexed by the libbson type byte (BSON_TYPE_MINKEY is 0xFF)
  bool all_numbers = false;
  bool empty() const { return types.none() && !all_numbers; }
  bool Has(bson_type_t type) const;
};

// $type (ops/type.cc): a set of BSON types, plus "number".
class TypeMatchExpression final : public PathMatchExpression {
 public:
  TypeMatchExpression(std::string_view path, MatcherTypeSet types)
      : PathMatchExpression(MatchKind::kType, path, LeafArrays::kTraverse), types_(types) {}
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override;

 private:
  MatcherTypeSet types_;
};

// $size (ops/size.cc): an array with exactly n elements (arrays inside arrays are not entered).
class SizeMatchExpression final : public PathMatchExpression {
 public:
  SizeMatchExpression(std::string_view path, int size)
      : PathMatchExpression(MatchKind::kSize, path, LeafArrays::kNoTraversal), size_(size) {}
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override;

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
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override;

 private:
  int64_t divisor_;
  int64_t remainder_;
};

// $bitsAllSet / $bitsAllClear / $bitsAnySet / $bitsAnyClear (ops/bits.cc): numbers that are
// integral int64 values (two's complement, sign-extended past bit 63) and BinData (bytes
// little-endian, zero-extended) tested at a list of bit positions.
class BitTestMatchExpression final : public PathMatchExpression {
 public:
  // `kind` is one of kBitsAllSet, kBitsAllClear, kBitsAnySet, kBitsAnyClear. `positions` serve
  // BinData values, `mask` (positions past 63 folded onto the sign bit) serves numbers.
  BitTestMatchExpression(MatchKind kind, std::string_view path, std::vector<uint32_t> positions,
                         uint64_t mask)
      : PathMatchExpression(kind, path, LeafArrays::kTraverse),
        positions_(std::move(positions)),
        mask_(mask) {}
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override;

 private:
  bool TestNumber(int64_t value) const;
  bool TestBinary(const uint8_t* data, uint32_t length) const;

  std::vector<uint32_t> positions_;
  uint64_t mask_;
};

// $elemMatch with a query on the elements' fields ({a: {$elemMatch: {b: 1, c: 2}}}):
// some element that is a document (or array) satisfies the whole sub-filter (ops/elem_match.cc).
class ElemMatchObjectMatchExpression final : public FalliblePathMatchExpression {
 public:
  ElemMatchObjectMatchExpression(std::string_view path, MatchExpressionPtr sub)
      : FalliblePathMatchExpression(MatchKind::kElemMatchObject, path, LeafArrays::kNoTraversal),
        sub_(std::move(sub)) {}
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override;
  bool MatchesSingleElementRecording(const bson_iter_t* value, MatchDetails* details,
                                     Status* error) const override;
  size_t num_children() const override { return 1; }
  const MatchExpression* child(size_t) const override { return sub_.get(); }

 private:
  MatchExpressionPtr sub_;
};

// $elemMatch with operators on the elements themselves ({a: {$elemMatch: {$gt: 1, $lt: 5}}}):
// some element satisfies every operator (ops/elem_match.cc).
class ElemMatchValueMatchExpression final : public FalliblePathMatchExpression {
 public:
  ElemMatchValueMatchExpression(std::string_view path, std::vector<MatchExpressionPtr> subs)
      : FalliblePathMatchExpression(MatchKind::kElemMatchValue, path, LeafArrays::kNoTraversal),
        subs_(std::move(subs)) {}
  bool MatchesSingleElement(const bson_iter_t* value, Status* error) const override;
  bool MatchesSingleElementRecording(const bson_iter_t* value, MatchDetails* details,
                                     Status* error) const override;
  size_t num_children() const override { return subs_.size(); }
  const MatchExpression* child(size_t i) const override { return subs_[i].get(); }

 private:
  std::vector<MatchExpressionPtr> subs_;
};

}  // namespace cairn::query
