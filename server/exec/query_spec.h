// QuerySpec: the typed query a plan is built from (filter, sort, skip, limit, hint, and what a
// command adds: count-only, distinct key, find's projection, min/max, returnKey), and the index
// hint. CanonicalQuery (canonical_query.h) fills it from a command's arguments; PlanQuery
// (stream_builder.h), the access path and text search read it.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/interrupt.h"
#include "common/limits.h"
#include "query/matcher/matcher.h"
#include "query/sort/sort_pattern.h"

namespace cairn::server {

// A command's index hint: by name or by key pattern. {$natural: ±1} asks for a collection scan.
struct QueryHint {
  std::string name;         // by name, when not empty
  std::string key_pattern;  // by key pattern: the pattern document's bytes, when not empty
  bool natural = false;     // {$natural: 1|-1}

  bool empty() const { return name.empty() && key_pattern.empty() && !natural; }
};

struct QuerySpec {
  std::shared_ptr<const query::Matcher> matcher;   // required
  std::shared_ptr<const query::SortPattern> sort;  // null or empty = natural (insertion) order
  int64_t skip = 0;
  int64_t limit = 0;             // 0 = no limit
  bool reverse_natural = false;  // {$natural: -1}
  // Where a blocking sort past 100 MB spills (allowDiskUse, default true as in MongoDB 7.0);
  // empty: it fails with QueryExceededMemoryLimitNoDiskUseAllowed 292 instead.
  std::string spill_dir;
  // Bytes that blocking sort may hold before it spills or fails
  // (internalQueryMaxBlockingSortMemoryUsageBytes). Default: 100 MB.
  int64_t max_sort_memory_bytes = kDefaultStageMemoryBytes;
  QueryHint hint;
  // Planner extras (server/exec/access_path.h). find's projection (views the command's bytes; {} =
  // none): when one index holds every field it returns and its bounds answer the filter, the
  // scan builds the documents from the keys (covered, explain PROJECTION_COVERED).
  BsonView projection;
  // count: only how many documents match is needed (COUNT_SCAN when the bounds answer the filter).
  bool count_only = false;
  // distinct: the field whose values are asked (views the command's bytes; empty = not
  // distinct). An index led by it may return one document per value (DISTINCT_SCAN).
  std::string_view distinct_key;
  // find's min/max (views; {} = none): bound the hinted index's scan to [min, max).
  BsonView min;
  BsonView max;
  // find's returnKey: a blocking sort keeps each document's index entry (index_key()).
  bool return_key = false;
  // Where the query's scans find the operation that may interrupt them (common/interrupt.h):
  // the command's slot, kept by its cursor. Null: nothing interrupts them (the TTL monitor).
  std::shared_ptr<const InterruptSlot> interrupt;
};

// Reads a command's "hint" value into spec->hint: a name, a key pattern, or {$natural: ±1}
// (which also sets reverse_natural for -1 when there is no sort); {} is no hint.
void SetQueryHint(const bson_iter_t* hint, QuerySpec* spec);

}  // namespace cairn::server
