// Output: one aligned line per workload (figure, ceiling, ratio) and the --json file.
#pragma once

#include <string>
#include <vector>

#include "tools/bench/bench.h"

namespace cairn::bench {

// "insert           212,345 docs/s   ceiling 401,222 docs/s (RocksDB WriteBatch 1000)   ratio 0.53"
std::string FormatLine(const Result& r);

// Writes an array of {name, figure, unit, ceiling, ceiling_unit, ceiling_what, ratio, p50_us,
// p99_us, ceiling_p50_us, ceiling_p99_us, target, skipped, error}; false if the file cannot be
// written.
bool WriteJson(const std::string& path, const std::vector<Result>& results,
               const std::string& context_json);

// 1234567.8 → "1,234,568".
std::string Thousands(double value);

// A JSON string literal.
std::string JsonString(const std::string& s);

}  // namespace cairn::bench
