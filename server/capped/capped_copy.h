// Copying a collection into a new capped one: what cloneCollectionAsCapped does, and
// convertToCapped through a temporary collection renamed over the source (as MongoDB 7.0, the
// result has only the _id index and a new UUID). Documents are copied in natural order through
// CollectionWriter, so the capped limits evict the oldest as the copy proceeds.
#pragma once

#include <string_view>

#include "common/status.h"
#include "server/capped/capped_options.h"

namespace cairn::server {

class WriteContext;

// Creates `target_ns` capped with `limits` and copies every document of `source_ns` into it.
// NamespaceNotFound 26 when the source does not exist; NamespaceExists 48 when the target does.
Status CopyIntoNewCapped(WriteContext& state, std::string_view source_ns,
                         std::string_view target_ns, const CappedLimits& limits);

// Replaces `ns` by a capped copy of itself (convertToCapped). NamespaceNotFound 26 when absent.
Status ConvertToCapped(WriteContext& state, std::string_view ns, const CappedLimits& limits);

}  // namespace cairn::server
