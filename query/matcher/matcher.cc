// Matcher (matcher.h): owns a copy of the filter and the tree parsed over it.
#include "query/matcher/matcher.h"

#include "query/expression/expression.h"
#include "query/matcher/match_expression.h"
#include "query/matcher/parse_internal.h"

namespace cairn::query {

namespace {

bool FindIdEquality(const MatchExpression* node, bson_iter_t* value) {
  if (node->kind() == MatchKind::kEq) {
    const auto* eq = static_cast<const ComparisonMatchExpression*>(node);
    bson_iter_t rhs = eq->rhs();
    if (eq->path().dotted() != "_id" || !IsIdPointLookupValue(&rhs, nullptr)) return false;
    *value = rhs;
    return true;
  }
  if (node->kind() == MatchKind::kAnd) {
    for (size_t i = 0; i < node->num_children(); ++i) {
      if (FindIdEquality(node->child(i), value)) return true;
    }
  }
  return false;
}

}  // namespace

bool IsIdPointLookupValue(const bson_iter_t* value, const StringComparator* collator) {
  switch (bson_iter_type(value)) {
    case BSON_TYPE_REGEX:
    case BSON_TYPE_ARRAY:
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_EOD:
      return false;
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
      return collator == nullptr;
    case BSON_TYPE_DOCUMENT: {
      if (collator != nullptr) return false;
      bson_iter_t it;
      if (!IterDocument(value).Init(&it)) return false;
      while (bson_iter_next(&it)) {
        std::string_view key = IterKey(&it);
        if (!key.empty() && key[0] == '$') return false;
      }
      return true;
    }
    default:
      return true;
  }
}

Result<Matcher> Matcher::Parse(BsonView filter, std::shared_ptr<const ExpressionContext> context) {
  auto copy = std::make_shared<const std::string>(reinterpret_cast<const char*>(filter.data()),
                                                  filter.size());
  CAIRN_ASSIGN_OR_RETURN(
      MatchExpressionPtr root,
      ParseFilter(BsonView(reinterpret_cast<const uint8_t*>(copy->data()), copy->size()), context));
  Matcher matcher;
  matcher.filter_ = std::move(copy);
  matcher.root_ = std::move(root);
  if (context != nullptr) matcher.collator_ = context->shared_collator();
  return matcher;
}

Result<bool> Matcher::Matches(BsonView doc) const {
  if (!root_) return true;
  Status error;
  bool matched = root_->Matches(doc, &error);
  if (!error.ok()) return error;
  return matched;
}

Result<bool> Matcher::Matches(BsonView doc, MatchDetails* details) const {
  details->elem_match_key.reset();
  if (!root_) return true;
  Status error;
  bool matched = root_->MatchesRecording(doc, details, &error);
  if (!error.ok()) return error;
  return matched;
}

bool Matcher::MatchesAll() const {
  return !root_ || (root_->kind() == MatchKind::kAnd && root_->num_children() == 0);
}

bool Matcher::IdEquality(bson_iter_t* value) const {
  return root_ && FindIdEquality(root_.get(), value) &&
         IsIdPointLookupValue(value, collator_.get());
}

BsonView Matcher::filter() const {
  if (!filter_) return BsonView();
  return BsonView(reinterpret_cast<const uint8_t*>(filter_->data()), filter_->size());
}

}  // namespace cairn::query
