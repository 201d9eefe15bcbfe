// The accumulator table (accumulator.h): implemented names → factories, and MongoDB 7.0's
// other $group accumulators (REGISTER_ACCUMULATOR names) so they are refused precisely rather
// than as "unknown group operator" (15952).
#include <algorithm>
#include <iterator>

#include "query/pipeline/accumulators/accumulator.h"

namespace cairn::query {

namespace {

struct AccumulatorRow {
  std::string_view name;
  AccumulatorFactory make;
};

constexpr AccumulatorRow kAccumulators[] = {
    {"$addToSet", MakeAddToSet}, {"$avg", MakeAvg},   {"$count", MakeSum}, {"$first", MakeFirst},
    {"$last", MakeLast},         {"$max", MakeMax},   {"$min", MakeMin},   {"$push", MakePush},
    {"$sum", MakeSum},
};

constexpr std::string_view kNotImplemented[] = {
    "$accumulator", "$bottom", "$bottomN",      "$firstN",     "$lastN",  "$maxN",
    "$median",      "$mergeObjects", "$minN",   "$percentile", "$stdDevPop", "$stdDevSamp",
    "$top",         "$topN",
};

}  // namespace

AccumulatorFactory FindAccumulator(std::string_view name) {
  for (const AccumulatorRow& row : kAccumulators) {
    if (row.name == name) return row.make;
  }
  return nullptr;
}

bool IsKnownAccumulator(std::string_view name) {
  return FindAccumulator(name) != nullptr ||
         std::find(std::begin(kNotImplemented), std::end(kNotImplemented), name) !=
             std::end(kNotImplemented);
}

}  // namespace cairn::query
