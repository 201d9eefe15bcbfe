// Capped collection limits: how create (and convertToCapped, cloneCollectionAsCapped) read and
// check capped/size/max as MongoDB 7.0 does, how they are stored in the catalog's options
// document ({capped: true, size, max}, the shape listCollections prints), and how they are read
// back. Sizes are kept as given: MongoDB 7.0 no longer rounds them to a multiple of 256
// (featureFlagCappedCollectionsRelaxedSize, enabled since 6.2) and applies no 4096-byte floor
// at creation (SERVER-67036). Eviction itself is capped_eviction.h's.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"
#include "storage/catalog.h"

namespace cairn::server {

struct CappedLimits {
  int64_t max_bytes = 0;  // the `size` option: total BSON bytes kept
  int64_t max_docs = 0;   // the `max` option; 0 when unset (no document-count limit)

  // Whether a collection holding `count` documents of `bytes` total must drop its oldest.
  bool Exceeded(int64_t count, int64_t bytes) const {
    return bytes > max_bytes || (max_docs > 0 && count > max_docs);
  }
};

// The largest `size` MongoDB accepts: 1 PB.
inline constexpr int64_t kMaxCappedBytes = int64_t{1} << 50;

// create's capped/size/max, checked in MongoDB 7.0's order: size < 1 or > 1 PB → 51024 / BadValue
// (IDL validators); capped without size → InvalidOptions 72 "the 'size' field is required when
// 'capped' is true"; size or max without capped → InvalidOptions 72 "the 'capped' field needs to
// be true when either the 'size' or 'max' fields are present"; max >= 2^31 → BadValue. A null
// size or max counts as absent; max <= 0 means "no limit" (stored as 2^31-1, as MongoDB does).
// nullopt when the collection is not capped. Types were checked by the command's arguments.
Result<std::optional<CappedLimits>> ParseCreateCappedOptions(BsonView command);

// A `size` argument of convertToCapped / cloneCollectionAsCapped (a number > 0, <= 1 PB).
Result<int64_t> ParseCappedSize(const bson_iter_t* size, std::string_view command_name);

// Appends capped: true, size and (when set) max, as MongoDB's CollectionOptions prints them.
void AppendCappedOptions(bson_t* options, const CappedLimits& limits);

// Appends a count or size as MongoDB's BSONObjBuilder::appendNumber(long long) does: an int32
// below 2^30 in magnitude, else an int64 (collection options, collStats).
void AppendNumberAsMongoDB(bson_t* out, const char* key, int64_t value);

// The limits stored in a collection's options, or nullopt when it is not capped.
std::optional<CappedLimits> CappedLimitsOf(const storage::CollectionEntry& collection);
std::optional<CappedLimits> CappedLimitsOfOptions(BsonView options);

// collMod's cappedSize / cappedMax (`value` positioned on the field): the collection's options
// with that limit replaced, as MongoDB 7.0 checks it: InvalidOptions 72 "Collection must be
// capped." on an uncapped collection; a size <= 0 → 51024, above 1 PB → BadValue; a max >= 2^31
// → BadValue, <= 0 → no limit. The collection shrinks to new limits at its next insert.
Result<BsonDoc> WithCappedLimit(BsonView options, const bson_iter_t* value);

}  // namespace cairn::server
