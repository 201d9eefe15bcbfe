// $all: every listed value is matched by equality, or by pattern for a regex (an $and of
// them), or, when the list holds {$elemMatch: ...} documents, every $elemMatch matches; $all: []
// matches nothing.
// After MongoDB's parseAll.
#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query::internal {

namespace {

bool FirstKeyIs(const bson_iter_t* doc_value, std::string_view key, bson_iter_t* first) {
  if (!BSON_ITER_HOLDS_DOCUMENT(doc_value)) return false;
  if (!IterDocument(doc_value).Init(first) || !bson_iter_next(first)) return key.empty();
  return IterKey(first) == key;
}

}  // namespace

Result<MatchExpressionPtr> ParseAll(const OperatorArgs& args) {
  if (!BSON_ITER_HOLDS_ARRAY(args.op)) return Status(ErrorCode::kBadValue, "$all needs an array");
  auto list = std::make_unique<ListMatchExpression>(MatchKind::kAnd);
  bson_iter_t it, first;
  bson_iter_recurse(args.op, &it);
  bson_iter_t probe = it;
  bool elem_match_form = bson_iter_next(&probe) && FirstKeyIs(&probe, "$elemMatch", &first);
  while (bson_iter_next(&it)) {
    if (elem_match_form) {
      if (!FirstKeyIs(&it, "$elemMatch", &first)) {
        return Status(ErrorCode::kBadValue, "$all/$elemMatch has to be consistent");
      }
      OperatorArgs inner{args.path, &first, IterDocument(&it), args.state};
      CAIRN_ASSIGN_OR_RETURN(MatchExpressionPtr em, ParseElemMatch(inner));
      list->Add(std::move(em));
      continue;
    }
    if (BSON_ITER_HOLDS_REGEX(&it)) {
      CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<RegexMatchExpression> regex,
                             MakeRegex(args.path, &it));
      list->Add(std::move(regex));
      continue;
    }
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_iter_t key;
      if (IterDocument(&it).Init(&key) && bson_iter_next(&key) && IsPathOperator(IterKey(&key))) {
        return Status(ErrorCode::kBadValue, "no $ expressions in $all");
      }
    }
    CAIRN_ASSIGN_OR_RETURN(MatchExpressionPtr eq, MakeEquality(args.path, &it, args.state));
    list->Add(std::move(eq));
  }
  if (list->num_children() == 0) {
    return MatchExpressionPtr(std::make_unique<AlwaysBooleanMatchExpression>(false));
  }
  return MatchExpressionPtr(std::move(list));
}

}  // namespace cairn::query::internal
