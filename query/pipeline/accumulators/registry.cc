// The accumulator table (accumulator.h): implemented names → factories, the accumulators with
// per-group arguments ($topN, $firstN, ...) → their parsers, and MongoDB 7.0's other $group
// accumulators (REGISTER_ACCUMULATOR names) so they are refused precisely rather than as
// "unknown group operator" (15952). Also the shared 146 error of the accumulators that cannot
// spill.
#include <algorithm>
#include <iterator>
#include <string>

#include "query/pipeline/accumulators/accumulator.h"

namespace cairn::query {

namespace {

struct AccumulatorRow {
  std::string_view name;
  AccumulatorFactory make;
};

constexpr AccumulatorRow kAccumulators[] = {
    {"$addToSet", MakeAddToSet},
    {"$avg", MakeAvg},
    {"$count", MakeSum},
    {"$first", MakeFirst},
    {"$last", MakeLast},
    {"$max", MakeMax},
    {"$min", MakeMin},
    {"$push", MakePush},
    {"$stdDevPop", MakeStdDevPop},
    {"$stdDevSamp", MakeStdDevSamp},
    {"$sum", MakeSum},
};

struct ParsedAccumulatorRow {
  std::string_view name;
  AccumulatorParser parse;
};

constexpr ParsedAccumulatorRow kParsedAccumulators[] = {
    {"$bottom", ParseTopBottom},   {"$bottomN", ParseTopBottom}, {"$firstN", ParseNAccumulator},
    {"$lastN", ParseNAccumulator}, {"$maxN", ParseNAccumulator}, {"$minN", ParseNAccumulator},
    {"$top", ParseTopBottom},      {"$topN", ParseTopBottom},
};

constexpr std::string_view kNotImplemented[] = {
    "$accumulator",
    "$median",
    "$mergeObjects",
    "$percentile",
};

}  // namespace

AccumulatorFactory FindAccumulator(std::string_view name) {
  for (const AccumulatorRow& row : kAccumulators) {
    if (row.name == name) return row.make;
  }
  return nullptr;
}

AccumulatorParser FindAccumulatorParser(std::string_view name) {
  for (const ParsedAccumulatorRow& row : kParsedAccumulators) {
    if (row.name == name) return row.parse;
  }
  return nullptr;
}

Status AccumulatorMemoryExceeded(std::string_view op) {
  return Status(ErrorCode::kExceededMemoryLimit,
                std::string(op) + " used too much memory and cannot spill to disk. Memory limit: " +
                    std::to_string(kAccumulatorMaxMemoryBytes) + " bytes");
}

bool IsKnownAccumulator(std::string_view name) {
  return FindAccumulator(name) != nullptr || FindAccumulatorParser(name) != nullptr ||
         std::find(std::begin(kNotImplemented), std::end(kNotImplemented), name) !=
             std::end(kNotImplemented);
}

}  // namespace cairn::query
