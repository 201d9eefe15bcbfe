// MatchDetails: what a match reports beyond yes or no — the position of the array element that
// made the filter match (MongoDB's elemMatchKey, src/mongo/db/matcher/match_details.h). The
// positional `$` of updates ("a.$.b") and of find projections ("a.$") use it. Filled by
// Matcher::Matches(doc, details); one per match, on the caller's stack.
#pragma once

#include <optional>
#include <string>

namespace cairn::query {

struct MatchDetails {
  // The array index (a field name such as "2") of the element that satisfied the path
  // predicate that last recorded one, as MongoDB records it: the outermost array traversed
  // implicitly on that path, or the element $elemMatch accepted. Unset when the match went
  // through no array, or only through $or/$nor/$not (which record nothing).
  std::optional<std::string> elem_match_key;
};

}  // namespace cairn::query
