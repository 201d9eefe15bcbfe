// SpillStatsSlot: the explain counters (explain_stats.h SpillStats) of one top-level $group or
// $sort — registered when the stage is parsed under an explain at executionStats verbosity,
// filled by its executor once its sort is done. Without PipelineOptions::stats it is empty and
// Record does nothing. Shared by the stage's cursors; one cursor runs under explain.
#pragma once

#include <memory>

#include "query/pipeline/explain_stats.h"
#include "query/pipeline/pipeline.h"
#include "query/sort/external_sorter.h"

namespace cairn::query {

class SpillStatsSlot {
 public:
  SpillStatsSlot() = default;
  // Adds the counters of a $group or $sort to options.stats, when set, under the position of the
  // top-level stage being parsed.
  explicit SpillStatsSlot(const PipelineOptions& options);

  // What `sorter` did (nullptr: the stage never needed one).
  void Record(const ExternalSorter* sorter) const;

 private:
  std::shared_ptr<PipelineStats> stats_;  // keeps slot_ alive
  SpillStats* slot_ = nullptr;            // a deque element: its address is stable
};

}  // namespace cairn::query
