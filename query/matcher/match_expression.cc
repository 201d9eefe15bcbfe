// The shared part of path nodes: a path node matches a document when its single-value test
// accepts any value the path reaches (MongoDB's LeafMatchExpression::matches); a test that
// fails fails the match.
#include "query/matcher/match_expression.h"

namespace cairn::query {

bool PathMatchExpression::Matches(BsonView doc, Status* error) const {
  return AnyPathValue(doc, path_, leaf_, [this, error](const bson_iter_t* value) {
    return MatchesSingleElement(value, error);
  });
}

bool PathMatchExpression::MatchesRecording(BsonView doc, MatchDetails* details,
                                           Status* error) const {
  std::string_view array_offset;
  bool matched = AnyPathValue(
      doc, path_, leaf_,
      [this, details, error](const bson_iter_t* value) {
        return MatchesSingleElementRecording(value, details, error);
      },
      &array_offset);
  if (!error->ok()) return false;
  // The array the path went through takes precedence over what the test itself recorded.
  if (matched && !array_offset.empty()) details->elem_match_key = std::string(array_offset);
  return matched;
}

}  // namespace cairn::query
