// ServerParameters: the runtime-settable server parameters Cairn honours (the TTL monitor's and
// the blocking stages' and $lookup's memory budgets), with MongoDB's names, types, defaults and
// validators (ttl.idl, query_knobs.idl): what setParameter changes, getParameter reads and
// `--setParameter name=value` sets at startup. maxBSONDepth (common/bson_validate.h) and
// enableTestCommands are set at startup only: setParameter answers IllegalOperation for them, as
// mongod does. A parameter Cairn
// does not honour is not listed, so setting it answers MongoDB's "unrecognized parameter" rather
// than being accepted and ignored. Thread-safe: every value is an atomic.
#pragma once

#include <bson/bson.h>

#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/limits.h"
#include "common/status.h"

namespace cairn::server {

struct ServerParameters {
  std::atomic<bool> ttl_monitor_enabled{true};      // Default: true (ttlMonitorEnabled)
  std::atomic<int32_t> ttl_monitor_sleep_secs{60};  // Default: 60 (ttlMonitorSleepSecs, > 0)
  // The budgets of $sort / find's blocking sort and of $group, past which they spill (or fail
  // with 292 without allowDiskUse). Default: 100 MB each. Mostly for tests, as in MongoDB.
  std::atomic<int32_t> internal_query_max_blocking_sort_memory_usage_bytes{
      kDefaultStageMemoryBytes};
  std::atomic<int32_t> internal_document_source_group_max_memory_bytes{kDefaultStageMemoryBytes};
  // The foreign data $lookup may hold as a HashJoin's table; past it, a foreign collection
  // without a usable index is joined by NestedLoopJoin. Default: 100 MB, as MongoDB's.
  std::atomic<int32_t> internal_query_collection_max_data_size_bytes_to_choose_hash_join{
      kDefaultStageMemoryBytes};
  // How long a multi-document transaction may stay open before the server aborts it (> 0).
  // Default: 60 (transactionLifetimeLimitSeconds).
  std::atomic<int32_t> transaction_lifetime_limit_seconds{60};
  // Test commands (configureFailPoint) exist: --setParameter enableTestCommands=1, startup only.
  // Default: false.
  std::atomic<bool> enable_test_commands{false};
};

// The names of the settable parameters, sorted (getParameter "*").
const std::vector<std::string_view>& SettableParameterNames();
bool IsSettableParameter(std::string_view name);

// Appends the current value of `name` under `field` (getParameter; setParameter's "was").
// False when `name` is not a settable parameter.
bool AppendParameterValue(const ServerParameters& parameters, std::string_view name,
                          std::string_view field, bson_t* out);

// Sets `name` from a command value, as MongoDB's IDL parameters coerce it: an int parameter takes
// any number (truncated), else BadValue "Can't coerce value"; a bool takes any value's truth.
// A validator failure is BadValue "Invalid value for parameter ttlMonitorSleepSecs: 0 is not
// greater than 0". InvalidOptions 72 for an unknown name.
Status SetParameterValue(ServerParameters* parameters, std::string_view name,
                         const bson_iter_t* value);

// Sets a parameter from `--setParameter name=value` (startup): numbers in decimal, booleans
// "true"/"false"/"1"/"0". BadValue "Illegal --setParameter parameter: \"x\"" for an unknown name.
Status SetParameterFromString(ServerParameters* parameters, std::string_view assignment);

}  // namespace cairn::server
