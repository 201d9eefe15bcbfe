// $and $or $nor (ListMatchExpression), $not (NotMatchExpression), $alwaysTrue/$alwaysFalse:
// parsing and matching, after MongoDB's expression_tree.cpp and parseTreeTopLevel/parseNot.
#include <string>

#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

// A child that errs returns false with *error set: $and stops there, $or and $nor stop at the
// first false that carries an error (MongoDB throws from the child).
bool ListMatchExpression::Matches(BsonView doc, Status* error) const {
  switch (kind()) {
    case MatchKind::kAnd:
      for (const auto& c : children_) {
        if (!c->Matches(doc, error)) return false;
      }
      return true;
    case MatchKind::kOr:
      for (const auto& c : children_) {
        if (c->Matches(doc, error)) return true;
        if (!error->ok()) return false;
      }
      return false;
    default:  // kNor
      for (const auto& c : children_) {
        if (c->Matches(doc, error)) return false;
        if (!error->ok()) return false;
      }
      return true;
  }
}

bool ListMatchExpression::MatchesRecording(BsonView doc, MatchDetails* details,
                                           Status* error) const {
  if (kind() == MatchKind::kOr && children_.size() == 1) {
    return children_[0]->MatchesRecording(doc, details, error);
  }
  if (kind() != MatchKind::kAnd) return Matches(doc, error);
  for (const auto& c : children_) {
    if (!c->MatchesRecording(doc, details, error)) {
      details->elem_match_key.reset();
      return false;
    }
  }
  return true;
}

bool AllMatchSingleElement(const std::vector<MatchExpressionPtr>& tests, const bson_iter_t* value,
                           Status* error) {
  for (const auto& t : tests) {
    if (!t->MatchesSingleElement(value, error)) return false;
    if (!error->ok()) return true;
  }
  return true;
}

// MatchesSingleElement's contract: a child that fails answers true with *error set, and so
// does this node, at once.
bool ListMatchExpression::MatchesSingleElement(const bson_iter_t* value, Status* error) const {
  switch (kind()) {
    case MatchKind::kAnd:
      return AllMatchSingleElement(children_, value, error);
    case MatchKind::kOr:
      for (const auto& c : children_) {
        if (c->MatchesSingleElement(value, error)) return true;
      }
      return false;
    default:  // kNor
      for (const auto& c : children_) {
        if (c->MatchesSingleElement(value, error)) return !error->ok();
      }
      return true;
  }
}

namespace internal {

namespace {

Result<MatchExpressionPtr> ParseTree(MatchKind kind, std::string_view name, const bson_iter_t* op,
                                     FilterParseState state) {
  if (!BSON_ITER_HOLDS_ARRAY(op)) {
    return Status(ErrorCode::kBadValue, std::string(name) + " must be an array");
  }
  auto list = std::make_unique<ListMatchExpression>(kind);
  bson_iter_t it;
  if (!bson_iter_recurse(op, &it) || !bson_iter_next(&it)) {
    return Status(ErrorCode::kBadValue, "$and/$or/$nor must be a nonempty array");
  }
  do {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kBadValue, "$or/$and/$nor entries need to be full objects");
    }
    CAIRN_ASSIGN_OR_RETURN(MatchExpressionPtr sub, ParseDocument(IterDocument(&it), state));
    list->Add(std::move(sub));
  } while (bson_iter_next(&it));
  return MatchExpressionPtr(std::move(list));
}

Result<MatchExpressionPtr> ParseAlwaysBoolean(bool value, const bson_iter_t* op) {
  CAIRN_ASSIGN_OR_RETURN(int64_t number, ParseIntegerElementToLong(op));
  if (number != 1) {
    return Status(ErrorCode::kFailedToParse, std::string(value ? "$alwaysTrue" : "$alwaysFalse") +
                                                 " must be an integer value of 1");
  }
  return MatchExpressionPtr(std::make_unique<AlwaysBooleanMatchExpression>(value));
}

}  // namespace

Result<MatchExpressionPtr> ParseAnd(const bson_iter_t* op, FilterParseState state) {
  return ParseTree(MatchKind::kAnd, "$and", op, state);
}

Result<MatchExpressionPtr> ParseOr(const bson_iter_t* op, FilterParseState state) {
  return ParseTree(MatchKind::kOr, "$or", op, state);
}

Result<MatchExpressionPtr> ParseNor(const bson_iter_t* op, FilterParseState state) {
  return ParseTree(MatchKind::kNor, "$nor", op, state);
}

Result<MatchExpressionPtr> ParseAlwaysTrue(const bson_iter_t* op, FilterParseState) {
  return ParseAlwaysBoolean(true, op);
}

Result<MatchExpressionPtr> ParseAlwaysFalse(const bson_iter_t* op, FilterParseState) {
  return ParseAlwaysBoolean(false, op);
}

Result<MatchExpressionPtr> ParseNot(const OperatorArgs& args) {
  if (BSON_ITER_HOLDS_REGEX(args.op)) {
    CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<RegexMatchExpression> regex,
                           MakeRegex(args.path, args.op));
    return MatchExpressionPtr(std::make_unique<NotMatchExpression>(std::move(regex)));
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(args.op)) {
    return Status(ErrorCode::kBadValue, "$not needs a regex or a document");
  }
  BsonView operators = IterDocument(args.op);
  if (operators.empty()) return Status(ErrorCode::kBadValue, "$not cannot be empty");
  auto list = std::make_unique<ListMatchExpression>(MatchKind::kAnd);
  CAIRN_RETURN_IF_ERROR(ParseOperatorDocument(args.path, operators, list.get(), args.state));
  return MatchExpressionPtr(std::make_unique<NotMatchExpression>(std::move(list)));
}

}  // namespace internal
}  // namespace cairn::query
