// ServerParameters: the runtime-settable server parameters Cairn honours (today the TTL
// monitor's), with MongoDB's names, types, defaults and validators (ttl.idl): what setParameter
// changes, getParameter reads and `--setParameter name=value` sets at startup. A parameter
// Cairn does not honour is not listed, so setting it answers MongoDB's "unrecognized parameter"
// rather than being accepted and ignored. Thread-safe: every value is an atomic.
#pragma once

#include <bson/bson.h>

#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace cairn::server {

struct ServerParameters {
  std::atomic<bool> ttl_monitor_enabled{true};     // Default: true (ttlMonitorEnabled)
  std::atomic<int32_t> ttl_monitor_sleep_secs{60};  // Default: 60 (ttlMonitorSleepSecs, > 0)
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
