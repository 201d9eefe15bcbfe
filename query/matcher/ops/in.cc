// $in and $nin ($nin is Not($in)): parsing and InMatchExpression, after MongoDB's
// InMatchExpression (expression_leaf.cpp). Regular expressions in the list are kept apart from
// the equalities and match as $regex does (so a regex value in a document matches only an
// identical regex). Equalities compare under the query's collation, regexes never do.
#include <algorithm>

#include "common/bson_compare.h"
#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

namespace {

int Compare(const BsonElement& a, const BsonElement& b, const StringComparator* collator) {
  bson_iter_t x = a.iter(), y = b.iter();
  return CompareValues(&x, &y, collator);
}

}  // namespace

InMatchExpression::InMatchExpression(std::string_view path, std::vector<BsonElement> equalities,
                                     std::vector<std::unique_ptr<RegexMatchExpression>> regexes,
                                     const StringComparator* collator)
    : FalliblePathMatchExpression(MatchKind::kIn, path, LeafArrays::kTraverse),
      equalities_(std::move(equalities)),
      regexes_(std::move(regexes)),
      collator_(collator) {
  // Sorted and deduplicated under the collation, so a lookup is one binary search.
  std::sort(equalities_.begin(), equalities_.end(),
            [collator](const BsonElement& a, const BsonElement& b) {
              return Compare(a, b, collator) < 0;
            });
  equalities_.erase(std::unique(equalities_.begin(), equalities_.end(),
                                [collator](const BsonElement& a, const BsonElement& b) {
                                  return Compare(a, b, collator) == 0;
                                }),
                    equalities_.end());
  for (const BsonElement& e : equalities_) {
    bson_iter_t it = e.iter();
    if (BSON_ITER_HOLDS_NULL(&it)) has_null_ = true;
  }
}

bool InMatchExpression::MatchesSingleElement(const bson_iter_t* value, Status* error) const {
  // A null in the list gives $in the semantics of {$eq: null}: missing and undefined match too.
  if (value == nullptr || BSON_ITER_HOLDS_UNDEFINED(value)) {
    if (has_null_) return true;
    if (value == nullptr) return false;
  }
  auto it = std::lower_bound(equalities_.begin(), equalities_.end(), value,
                             [this](const BsonElement& a, const bson_iter_t* b) {
                               bson_iter_t x = a.iter();
                               return CompareValues(&x, b, collator_) < 0;
                             });
  if (it != equalities_.end()) {
    bson_iter_t found = it->iter();
    if (CompareValues(&found, value, collator_) == 0) return true;
  }
  for (const auto& regex : regexes_) {
    if (regex->MatchesSingleElement(value, error)) return true;  // matched, or failed
  }
  return false;
}

namespace internal {

namespace {

Result<MatchExpressionPtr> ParseInList(const OperatorArgs& args) {
  std::vector<BsonElement> equalities;
  std::vector<std::unique_ptr<RegexMatchExpression>> regexes;
  bool has_undefined = false;
  bson_iter_t it;
  if (!bson_iter_recurse(args.op, &it)) return Status(ErrorCode::kBadValue, "invalid $in array");
  while (bson_iter_next(&it)) {
    if (IsExpressionDocument(&it, false)) {
      return Status(ErrorCode::kBadValue, "cannot nest $ under $in");
    }
    if (BSON_ITER_HOLDS_REGEX(&it)) {
      CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<RegexMatchExpression> regex, MakeRegex("", &it));
      regexes.push_back(std::move(regex));
      continue;
    }
    if (BSON_ITER_HOLDS_UNDEFINED(&it)) has_undefined = true;
    equalities.emplace_back(&it);
  }
  if (has_undefined) {
    return Status(ErrorCode::kBadValue, "InMatchExpression equality cannot be undefined");
  }
  return MatchExpressionPtr(std::make_unique<InMatchExpression>(
      args.path, std::move(equalities), std::move(regexes), args.state.collator()));
}

}  // namespace

Result<MatchExpressionPtr> ParseIn(const OperatorArgs& args) {
  if (!BSON_ITER_HOLDS_ARRAY(args.op)) return Status(ErrorCode::kBadValue, "$in needs an array");
  return ParseInList(args);
}

Result<MatchExpressionPtr> ParseNin(const OperatorArgs& args) {
  if (!BSON_ITER_HOLDS_ARRAY(args.op)) return Status(ErrorCode::kBadValue, "$nin needs an array");
  CAIRN_ASSIGN_OR_RETURN(MatchExpressionPtr in, ParseInList(args));
  return MatchExpressionPtr(std::make_unique<NotMatchExpression>(std::move(in)));
}

}  // namespace internal
}  // namespace cairn::query
