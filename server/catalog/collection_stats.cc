// Collection statistics (collStats command, $collStats stage).
#include "server/catalog/collection_stats.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/wall_clock.h"
#include "server/capped/capped_options.h"
#include "server/server_state.h"

namespace cairn::server {

void AppendStorageStats(ServerState& state, const storage::CollectionHandle& collection,
                        int64_t scale, bson_t* out) {
  if (scale < 1) scale = 1;
  storage::Engine& engine = state.engine();
  const int64_t count = collection ? engine.RecordCount(collection->prefix) : 0;
  const int64_t size = collection ? engine.DataSize(collection->prefix) : 0;
  AppendNumberAsMongoDB(out, "size", size / scale);
  AppendNumberAsMongoDB(out, "count", count);
  if (count > 0) AppendNumberAsMongoDB(out, "avgObjSize", size / count);
  AppendNumberAsMongoDB(out, "numOrphanDocs", 0);
  int64_t storage_size = 0;
  std::vector<std::pair<std::string, int64_t>> index_sizes;
  int64_t total_index_size = 0;
  if (collection) {
    storage_size = static_cast<int64_t>(engine.ApproximateSize(collection->prefix, {}));
    for (const storage::IndexEntry& index : collection->indexes) {
      // The index's own range: the collection's and the index's together, less the collection's.
      int64_t with_index =
          static_cast<int64_t>(engine.ApproximateSize(collection->prefix, {index.prefix}));
      int64_t index_size = std::max<int64_t>(0, with_index - storage_size);
      index_sizes.emplace_back(index.name, index_size);
      total_index_size += index_size;
    }
  }
  AppendNumberAsMongoDB(out, "storageSize", storage_size / scale);
  AppendNumberAsMongoDB(out, "freeStorageSize", 0);
  std::optional<CappedLimits> capped = collection ? CappedLimitsOf(*collection) : std::nullopt;
  BSON_APPEND_BOOL(out, "capped", capped.has_value());
  if (capped) {
    AppendNumberAsMongoDB(out, "max", capped->max_docs);
    AppendNumberAsMongoDB(out, "maxSize", capped->max_bytes / scale);
  }
  AppendNumberAsMongoDB(out, "nindexes", static_cast<int64_t>(index_sizes.size()));
  bson_t details, builds, sizes;
  BSON_APPEND_DOCUMENT_BEGIN(out, "indexDetails", &details);
  bson_append_document_end(out, &details);
  BSON_APPEND_ARRAY_BEGIN(out, "indexBuilds", &builds);
  bson_append_array_end(out, &builds);
  AppendNumberAsMongoDB(out, "totalIndexSize", total_index_size / scale);
  AppendNumberAsMongoDB(out, "totalSize", (storage_size + total_index_size) / scale);
  BSON_APPEND_DOCUMENT_BEGIN(out, "indexSizes", &sizes);
  for (const auto& [name, bytes] : index_sizes)
    AppendNumberAsMongoDB(&sizes, name.c_str(), bytes / scale);
  bson_append_document_end(out, &sizes);
  AppendNumberAsMongoDB(out, "scaleFactor", scale);
}

BsonDoc CollStatsDocument(ServerState& state, std::string_view ns,
                          const query::CollStatsSpec& spec) {
  storage::CollectionHandle collection = state.engine().catalog().Find(ns);
  BsonDoc document;
  bson_t* out = document.get();
  AppendUtf8(out, "ns", ns);
  char hostname[256] = {0};
  gethostname(hostname, sizeof hostname - 1);
  AppendUtf8(out, "host", std::string(hostname) + ":" + std::to_string(state.options().port));
  BSON_APPEND_DATE_TIME(out, "localTime", WallClockMillis());
  if (spec.latency_stats) {
    bson_t latency, section;
    BSON_APPEND_DOCUMENT_BEGIN(out, "latencyStats", &latency);
    for (const char* kind : {"reads", "writes", "commands", "transactions"}) {
      BSON_APPEND_DOCUMENT_BEGIN(&latency, kind, &section);
      BSON_APPEND_INT64(&section, "latency", 0);
      BSON_APPEND_INT64(&section, "ops", 0);
      bson_append_document_end(&latency, &section);
    }
    bson_append_document_end(out, &latency);
  }
  if (spec.storage_stats) {
    bson_t stats;
    BSON_APPEND_DOCUMENT_BEGIN(out, "storageStats", &stats);
    AppendStorageStats(state, collection, spec.scale, &stats);
    bson_append_document_end(out, &stats);
  }
  if (spec.count) {
    bson_t count;
    BSON_APPEND_DOCUMENT_BEGIN(out, "count", &count);
    AppendNumberAsMongoDB(&count, "count",
                          collection ? state.engine().RecordCount(collection->prefix) : 0);
    bson_append_document_end(out, &count);
  }
  return document;
}

}  // namespace cairn::server
