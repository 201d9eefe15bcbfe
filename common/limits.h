// MongoDB's memory limits shared across modules, in one place: most of mongod's per-stage
// budgets default to the same 100 MiB (internalQueryMaxBlockingSortMemoryUsageBytes,
// internalDocumentSourceGroupMaxMemoryBytes, internalQueryFacetBufferSizeBytes,
// internalLookupStageIntermediateDocumentMaxSizeBytes, internalQueryMaxAddToSetBytes,
// internalQueryCollectionMaxDataSizeBytesToChooseHashJoin, $range's output). The BSON size limits
// live with the BSON helpers (common/bson_doc.h).
#pragma once

#include <cstdint>

namespace cairn {

// 100 MiB: the default of every budget named above.
inline constexpr int32_t kDefaultStageMemoryBytes = 100 * 1024 * 1024;

}  // namespace cairn
