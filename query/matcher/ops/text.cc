// $text: parsing of its argument document (MongoDB's extractTextMatchExpressionParams) and the
// search for the clause in a parsed filter. The search itself is the server's (text_search.h).
#include "query/matcher/parse_internal.h"
#include "query/matcher/text_expression.h"

namespace cairn::query {

namespace internal {

Result<MatchExpressionPtr> ParseText(const bson_iter_t* op, FilterParseState) {
  if (!BSON_ITER_HOLDS_DOCUMENT(op)) {
    return Status(ErrorCode::kBadValue, "$text expects an object");
  }
  BsonView args = IterDocument(op);
  std::string search, language;
  bool case_sensitive = false, diacritic_sensitive = false;
  int known = 0;
  bson_iter_t it;
  if (!args.Find("$search", &it) || !BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kTypeMismatch, "$search requires a string value");
  }
  search = std::string(IterUtf8(&it));
  ++known;
  if (args.Find("$language", &it)) {
    if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return Status(ErrorCode::kTypeMismatch, "$language requires a string value");
    }
    language = std::string(IterUtf8(&it));
    ++known;
  }
  if (args.Find("$caseSensitive", &it)) {
    if (!BSON_ITER_HOLDS_BOOL(&it)) {
      return Status(ErrorCode::kTypeMismatch, "$caseSensitive requires a boolean value");
    }
    case_sensitive = bson_iter_bool(&it);
    ++known;
  }
  if (args.Find("$diacriticSensitive", &it)) {
    if (!BSON_ITER_HOLDS_BOOL(&it)) {
      return Status(ErrorCode::kTypeMismatch, "$diacriticSensitive requires a boolean value");
    }
    diacritic_sensitive = bson_iter_bool(&it);
    ++known;
  }
  if (static_cast<int>(args.CountKeys()) != known) {
    return Status(ErrorCode::kBadValue, "extra fields in $text");
  }
  return MatchExpressionPtr(std::make_unique<TextMatchExpression>(
      std::move(search), std::move(language), case_sensitive, diacritic_sensitive));
}

}  // namespace internal

namespace {

// Counts the $text clauses under `node`; `where` is the logical operator above (kAnd at the top).
Status Visit(const MatchExpression* node, MatchKind where, const TextMatchExpression** found) {
  if (node->kind() == MatchKind::kText) {
    if (*found != nullptr) return Status(ErrorCode::kBadValue, "Too many text expressions");
    if (where == MatchKind::kNor) {
      return Status(ErrorCode::kBadValue, "text expression not allowed in nor");
    }
    if (where == MatchKind::kOr) {
      return Status(ErrorCode::kNoQueryExecutionPlans,
                    "error processing query: planner returned error :: caused by :: Failed to "
                    "produce a solution for TEXT under OR - other non-TEXT clauses under OR have "
                    "to be indexed as well.");
    }
    *found = static_cast<const TextMatchExpression*>(node);
    return Status::OK();
  }
  MatchKind below = where;
  if (node->kind() == MatchKind::kOr || node->kind() == MatchKind::kNor) below = node->kind();
  for (size_t i = 0; i < node->num_children(); ++i) {
    CAIRN_RETURN_IF_ERROR(Visit(node->child(i), below, found));
  }
  return Status::OK();
}

}  // namespace

Result<const TextMatchExpression*> FindTextClause(const MatchExpression* root) {
  const TextMatchExpression* found = nullptr;
  if (root != nullptr) CAIRN_RETURN_IF_ERROR(Visit(root, MatchKind::kAnd, &found));
  return found;
}

}  // namespace cairn::query
