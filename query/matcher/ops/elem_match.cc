// $elemMatch: the object form (a sub-filter over each array element that is a document) and the
// value form (operators applied to each element), after MongoDB's parseElemMatch and
// expression_array.cpp. Neither enters arrays nested inside the array.
#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

namespace {

// The first element of the array `value` that `accepts`; its index goes to *key (when given).
template <typename Accepts>
bool FirstAcceptedElement(const bson_iter_t* value, Accepts accepts, std::string_view* key) {
  if (value == nullptr || !BSON_ITER_HOLDS_ARRAY(value)) return false;
  bson_iter_t it;
  if (!bson_iter_recurse(value, &it)) return false;
  while (bson_iter_next(&it)) {
    if (accepts(&it)) {
      if (key != nullptr) *key = IterKey(&it);
      return true;
    }
  }
  return false;
}

}  // namespace

bool ElemMatchObjectMatchExpression::MatchesSingleElement(const bson_iter_t* value,
                                                          Status* error) const {
  return MatchesSingleElementRecording(value, nullptr, error);
}

// Both forms stop at the first element that matches or fails (MatchesSingleElement's contract).
bool ElemMatchObjectMatchExpression::MatchesSingleElementRecording(const bson_iter_t* value,
                                                                   MatchDetails* details,
                                                                   Status* error) const {
  std::string_view key;
  auto accepts = [this, error](const bson_iter_t* it) {
    return (BSON_ITER_HOLDS_DOCUMENT(it) || BSON_ITER_HOLDS_ARRAY(it)) &&
           (sub_->Matches(IterDocument(it), error) || !error->ok());
  };
  if (!FirstAcceptedElement(value, accepts, &key)) return false;
  if (details != nullptr) details->elem_match_key = std::string(key);
  return true;
}

bool ElemMatchValueMatchExpression::MatchesSingleElement(const bson_iter_t* value,
                                                         Status* error) const {
  return MatchesSingleElementRecording(value, nullptr, error);
}

bool ElemMatchValueMatchExpression::MatchesSingleElementRecording(const bson_iter_t* value,
                                                                  MatchDetails* details,
                                                                  Status* error) const {
  std::string_view key;
  auto accepts = [this, error](const bson_iter_t* it) {
    return AllMatchSingleElement(subs_, it, error);
  };
  if (!FirstAcceptedElement(value, accepts, &key)) return false;
  if (details != nullptr) details->elem_match_key = std::string(key);
  return true;
}

namespace internal {

Result<MatchExpressionPtr> ParseElemMatch(const OperatorArgs& args) {
  if (!BSON_ITER_HOLDS_DOCUMENT(args.op)) {
    return Status(ErrorCode::kBadValue, "$elemMatch needs an Object");
  }
  BsonView obj = IterDocument(args.op);
  // The value form applies when the argument is an operator document whose first operator is
  // not a top-level one ($and, $or, $where... take the object form).
  bool value_form = false;
  if (IsExpressionDocument(args.op, true)) {
    bson_iter_t first;
    obj.Init(&first);
    bson_iter_next(&first);
    value_form = !IsPathlessOperator(IterKey(&first));
  }
  const FilterParseState sub_document = args.state.At(ParseLevel::kUserSubDocument);
  if (value_form) {
    ListMatchExpression operators(MatchKind::kAnd);
    CAIRN_RETURN_IF_ERROR(ParseOperatorDocument("", obj, &operators, sub_document));
    return MatchExpressionPtr(
        std::make_unique<ElemMatchValueMatchExpression>(args.path, operators.ReleaseChildren()));
  }
  CAIRN_ASSIGN_OR_RETURN(MatchExpressionPtr sub, ParseDocument(obj, sub_document));
  return MatchExpressionPtr(
      std::make_unique<ElemMatchObjectMatchExpression>(args.path, std::move(sub)));
}

}  // namespace internal
}  // namespace cairn::query
