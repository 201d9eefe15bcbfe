// What a chosen index scan can do beyond narrowing the documents to fetch: answer the whole
// filter by its bounds (then no document needs the matcher: a count counts keys, COUNT_SCAN),
// and cover a find projection (every returned field is a key field: the documents are built from
// the keys, MongoDB's PROJECTION_COVERED). Pure; knows nothing of storage.
#pragma once

#include <bson/bson.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/planner.h"

namespace cairn::index {

// Whether the scan's bounds select exactly the documents `filter` matches: every top-level
// conjunct is one of its exact predicates (never true on a multikey index).
bool BoundsAnswerFilter(const IndexScanPlan& plan, const query::MatchExpression* filter);

// The number of top-level conjuncts of `filter` (nested $ands flattened, as the planner does).
size_t CountConjuncts(const query::MatchExpression* filter);

// Per key field of `index`, the field a covered find returns it as ("" when not returned), or
// nullopt when `projection` cannot be answered from the keys: MongoDB's rules for a covered
// projection — inclusion only of top-level fields that are all key fields, _id excluded unless
// it is one, an ascending/descending (btree) index that is not multikey. Dotted paths are not
// covered (Cairn builds only top-level fields from keys).
std::optional<std::vector<std::string>> CoveredFields(BsonView projection,
                                                      const IndexDescriptor& index,
                                                      const MultikeyPaths& multikey);

// DISTINCT_SCAN for distinct on `key`: a scan of an index whose first field is `key` and whose
// bounds answer the whole filter (an empty filter scans it all), which can skip from one value
// of that field to the next. Not on a multikey, hidden or partial index, nor under a collation
// (binary keys cannot tell collated strings apart); with a hint, only that index. The index with
// the fewest fields wins.
std::optional<IndexScanPlan> PlanDistinctScan(const PlannerInput& input, std::string_view key);

// COUNT_SCAN's single key interval: when the bounds are one interval in key order (points on
// the leading fields, at most one range, then full ranges), appends {startKey, startKeyInclusive,
// endKey, endKeyInclusive} (MongoDB's form) under `key` and returns true.
bool AppendCountScanBounds(bson_t* out, const char* key, const IndexScanPlan& plan,
                           const IndexDescriptor& index);

}  // namespace cairn::index
