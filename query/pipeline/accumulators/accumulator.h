// Accumulator: the per-group state of one $group output field ({n: {$sum: "$x"}}), one file
// per accumulator under accumulators/, and the registry of names (registry.cc): the accumulators
// Cairn implements, and MongoDB 7.0's others, refused with a precise BadValue. An Accumulator is
// per-cursor state owned by the $group executor; not thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include <bson/bson.h>

#include "common/limits.h"
#include "common/status.h"
#include "common/string_comparator.h"
#include "query/expression/expression.h"
#include "query/expression/value.h"

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

// Accumulators with arguments besides their per-document operand ($topN's n and sortBy,
// $firstN's n): their parser splits {$op: spec} into the operand and an immutable spec that
// builds each group's state (MongoDB's AccumulationExpression initializer + factory).
class AccumulatorSpec {
 public:
  virtual ~AccumulatorSpec() = default;
  // Fresh state for the group keyed `group_key`. The per-group arguments (n) are evaluated with
  // $$ROOT = the key when it is a document, {} otherwise (GroupProcessorBase::findOrCreateGroup);
  // `vars` is the $group's evaluation state, whose root this changes.
  virtual Result<std::unique_ptr<Accumulator>> MakeForGroup(const bson_iter_t* group_key,
                                                            Variables* vars) const = 0;
};

struct ParsedAccumulator {
  std::shared_ptr<const AccumulatorSpec> spec;
  ExpressionPtr operand;  // evaluated per input document; its value goes to Process()
};

// Parses the argument of accumulator `name` (`arg` positioned on the {$op: arg} element).
using AccumulatorParser = Result<ParsedAccumulator> (*)(std::string_view name,
                                                        const bson_iter_t* arg, ParseContext& ctx);

// The parser of an accumulator with per-group arguments ($topN, $firstN, ...); nullptr for the
// plain ones (FindAccumulator) and unknown names.
AccumulatorParser FindAccumulatorParser(std::string_view name);

// MongoDB's per-accumulator memory cap for the state that cannot spill ($push, $addToSet and the
// n-accumulators: internalQueryMaxPushBytes, internalQueryMaxAddToSetBytes,
// internalQueryTopNAccumulatorBytes, each 100 MiB).
inline constexpr size_t kAccumulatorMaxMemoryBytes = kDefaultStageMemoryBytes;
// 146 ExceededMemoryLimit "<op> used too much memory and cannot spill to disk. Memory limit: N
// bytes" (MongoDB 7.0's wording).
Status AccumulatorMemoryExceeded(std::string_view op);

// ---- accumulator_n.cc: $firstN $lastN $maxN $minN, shared with the array expressions of the
// same names (query/expression/ops/accumulator_n.cc) ----
// AccumulatorN::validateN: n must be numeric (5787902), integral (5787903) and positive (5787908).
Result<int64_t> ValidateN(const Value& n);
// Evaluates a per-group n against `group_key` (see AccumulatorSpec::MakeForGroup) and validates
// it with ValidateN.
Result<int64_t> EvaluateGroupN(const Expression& n, const bson_iter_t* group_key, Variables* vars);
// "specification must be an object; found $op: <value>" under `code`, for `arg` positioned on
// the {$op: value} element.
Status SpecificationNotAnObject(ErrorCode code, const bson_iter_t* arg);
// The {n, input} argument of `name` ($firstN, $lastN, $maxN, $minN): an object (5787801 for
// $firstN/$lastN, 5787900 for $maxN/$minN), then AccumulatorN::parseArgs (5787901 unknown
// argument, 5787906 / 5787907 missing n / input).
Status ParseNArguments(std::string_view name, const bson_iter_t* arg, ParseContext& ctx,
                       ExpressionPtr* n, ExpressionPtr* input);
// The state of `name` ("$firstN", "$lastN", "$maxN", "$minN") keeping `n` values.
std::unique_ptr<Accumulator> MakeNAccumulator(std::string_view name, int64_t n);
Result<ParsedAccumulator> ParseNAccumulator(std::string_view name, const bson_iter_t* arg,
                                            ParseContext& ctx);

// ---- accumulator_top_bottom.cc: $top $bottom $topN $bottomN ----
Result<ParsedAccumulator> ParseTopBottom(std::string_view name, const bson_iter_t* arg,
                                         ParseContext& ctx);

// One factory per file.
std::unique_ptr<Accumulator> MakeSum();         // sum.cc
std::unique_ptr<Accumulator> MakeAvg();         // avg.cc
std::unique_ptr<Accumulator> MakeMin();         // min_max.cc
std::unique_ptr<Accumulator> MakeMax();         // min_max.cc
std::unique_ptr<Accumulator> MakeFirst();       // first_last.cc
std::unique_ptr<Accumulator> MakeLast();        // first_last.cc
std::unique_ptr<Accumulator> MakePush();        // push.cc
std::unique_ptr<Accumulator> MakeAddToSet();    // add_to_set.cc
std::unique_ptr<Accumulator> MakeStdDevPop();   // accumulator_std_dev.cc
std::unique_ptr<Accumulator> MakeStdDevSamp();  // accumulator_std_dev.cc

}  // namespace cairn::query
