// The shared part of path nodes: a path node matches a document when its single-value test
// accepts any value the path reaches (MongoDB's LeafMatchExpression::matches).
#include "query/matcher/match_expression.h"

namespace cairn::query {

bool PathMatchExpression::Matches(BsonView doc) const {
  return AnyPathValue(doc, path_, leaf_,
                      [this](const bson_iter_t* value) { return MatchesSingleElement(value); });
}

}  // namespace cairn::query
