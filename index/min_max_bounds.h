// find's min/max options: the key range [min, max) of the hinted index, in index key order, with
// MongoDB 7.0's checks — min and max name the same fields (51176), a hint is required (51173),
// each names exactly the index's key fields in order (51174), and min comes before max in the
// index's order (51175). Pure; the bytes are key_string's, so the range is exactly what the
// index orders between the two keys.
#pragma once

#include <string>

#include "common/bson_doc.h"
#include "common/status.h"
#include "index/index_bounds.h"
#include "index/index_descriptor.h"

namespace cairn::index {

// The checks find makes when it parses the command: 51176 when both are given with different
// field names, 51173 when either is given without a hint.
Status ValidateFindMinMax(BsonView min, BsonView max, bool hinted);

// The forward key range of `index` from min (inclusive; {} = the first key) to max (exclusive;
// {} = past the last key). 51174 / 51175 as above.
Result<IndexScanRanges> MinMaxRanges(const IndexDescriptor& index, BsonView min, BsonView max);

// {startKey, startKeyInclusive: true, endKey, endKeyInclusive: false} for explain's indexBounds
// (an absent min or max prints as MinKey/MaxKey per field in key order).
void AppendMinMaxBounds(bson_t* out, const char* key, const IndexDescriptor& index, BsonView min,
                        BsonView max);

}  // namespace cairn::index
