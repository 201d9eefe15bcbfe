// Matcher (matcher.h): owns a copy of the filter and the tree parsed over it.
#include "query/matcher/matcher.h"

#include "query/matcher/match_expression.h"

namespace cairn::query {

namespace {

// A value the _id index can look up: not a regex, not an array, no $-operators in a document.
bool IsPointLookupValue(const bson_iter_t* value) {
  switch (bson_iter_type(value)) {
    case BSON_TYPE_REGEX:
    case BSON_TYPE_ARRAY:
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_EOD:
      return false;
    case BSON_TYPE_DOCUMENT: {
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

bool FindIdEquality(const MatchExpression* node, bson_iter_t* value) {
  if (node->kind() == MatchKind::kEq) {
    const auto* eq = static_cast<const ComparisonMatchExpression*>(node);
    bson_iter_t rhs = eq->rhs();
    if (eq->path().dotted() != "_id" || !IsPointLookupValue(&rhs)) return false;
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

Result<Matcher> Matcher::Parse(BsonView filter) {
  auto copy = std::make_shared<const std::string>(reinterpret_cast<const char*>(filter.data()),
                                                  filter.size());
  CAIRN_ASSIGN_OR_RETURN(MatchExpressionPtr root,
                         ParseFilter(BsonView(reinterpret_cast<const uint8_t*>(copy->data()),
                                              copy->size())));
  Matcher matcher;
  matcher.filter_ = std::move(copy);
  matcher.root_ = std::move(root);
  return matcher;
}

bool Matcher::Matches(BsonView doc) const { return !root_ || root_->Matches(doc); }

bool Matcher::MatchesAll() const {
  return !root_ || (root_->kind() == MatchKind::kAnd && root_->num_children() == 0);
}

bool Matcher::IdEquality(bson_iter_t* value) const {
  return root_ && FindIdEquality(root_.get(), value);
}

BsonView Matcher::filter() const {
  if (!filter_) return BsonView();
  return BsonView(reinterpret_cast<const uint8_t*>(filter_->data()), filter_->size());
}

}  // namespace cairn::query
