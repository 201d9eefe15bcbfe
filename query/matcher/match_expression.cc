// The shared part of path nodes: a path node matches a document when its single-value test
// accepts any value the path reaches (MongoDB's LeafMatchExpression::matches).
#include "query/matcher/match_expression.h"

namespace cairn::query {

bool PathMatchExpression::Matches(BsonView doc) const {
  return AnyPathValue(doc, path_, leaf_,
                      [this](const bson_iter_t* value) { return MatchesSingleElement(value); });
}

bool PathMatchExpression::MatchesRecording(BsonView doc, MatchDetails* details) const {
  std::string_view array_offset;
  bool matched = AnyPathValue(
      doc, path_, leaf_,
      [this, details](const bson_iter_t* value) {
        return MatchesSingleElementRecording(value, details);
      },
      &array_offset);
  // The array the path went through takes precedence over what the test itself recorded.
  if (matched && !array_offset.empty()) details->elem_match_key = std::string(array_offset);
  return matched;
}

}  // namespace cairn::query
