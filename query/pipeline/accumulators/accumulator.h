// Accumulator: the per-group state of one $group output field ({n: {$sum: "$x"}}), one file
// per accumulator under accumulators/, and the registry of names (registry.cc): the accumulators
// Cairn implements, and MongoDB 7.0's others, refused with a precise BadValue. An Accumulator is
// per-cursor state owned by the $group executor; not thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include <bson/bson.h>

#include "common/status.h"
#include "common/string_comparator.h"

namespace cairn::query {

class Accumulator {
 public:
  virtual ~Accumulator() = default;

  // Folds in the operand's value for one input document; nullptr when it was missing.
  // An error ends the pipeline (e.g. an input Cairn cannot sum yet).
  virtual Status Process(const bson_iter_t* value) = 0;

  // Appends the result under `key`; null when there is none (MongoDB turns missing into null).
  virtual void Finish(bson_t* out, std::string_view key) const = 0;

  // Bytes held, counted against the $group memory limit.
  virtual size_t memory_bytes() const = 0;

  // The command's collation ($group sets it before the first Process; it outlives the
  // accumulator), for the accumulators that compare values ($addToSet, $min, $max).
  // Default: binary; the others ignore it.
  virtual void SetCollator(const StringComparator* collator) {}
};

using AccumulatorFactory = std::unique_ptr<Accumulator> (*)();

// The factory of accumulator `name` ("$sum"), nullptr when Cairn does not implement it.
// "$count" is $sum over the constant 1 ($group's parser supplies the operand).
AccumulatorFactory FindAccumulator(std::string_view name);

// True for a $group accumulator MongoDB 7.0 has ($stdDevPop, $top, ...), implemented or not.
bool IsKnownAccumulator(std::string_view name);

// One factory per file.
std::unique_ptr<Accumulator> MakeSum();       // sum.cc
std::unique_ptr<Accumulator> MakeAvg();       // avg.cc
std::unique_ptr<Accumulator> MakeMin();       // min_max.cc
std::unique_ptr<Accumulator> MakeMax();       // min_max.cc
std::unique_ptr<Accumulator> MakeFirst();     // first_last.cc
std::unique_ptr<Accumulator> MakeLast();      // first_last.cc
std::unique_ptr<Accumulator> MakePush();      // push.cc
std::unique_ptr<Accumulator> MakeAddToSet();  // add_to_set.cc

}  // namespace cairn::query
