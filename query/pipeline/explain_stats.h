// PipelineStats: what stage executors count for explain's executionStats, beyond what MongoDB
// reports: for every top-level $lookup, the join strategy it chose, the foreign index it probed,
// and the foreign documents and index keys it examined (for the coalesced $lookup + $unwind too).
// Set in PipelineOptions::stats only by an explain at executionStats verbosity; one cursor fills
// it, so the counters need no synchronisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

namespace cairn::query {

// Each stage's counters carry the position of the stage in the command's pipeline array (as
// given, before desugaring or optimisation), which is how explain finds them.
struct LookupStats {
  size_t position = 0;
  std::string strategy;       // "IndexedLoopJoin", "HashJoin", "NestedLoopJoin", "SubPipeline"
  std::string index_name;     // IndexedLoopJoin: the foreign index probed
  int64_t foreign_reads = 0;  // foreign queries run (point lookups, scans, hash build)
  int64_t foreign_docs_examined = 0;  // foreign documents read
  int64_t foreign_keys_examined = 0;  // foreign index keys read
  int64_t n_returned = 0;             // documents the stage produced
};

// What a top-level $group or $sort did past its memory budget (MongoDB's usedDisk, spills).
struct SpillStats {
  size_t position = 0;
  bool used_disk = false;
  int64_t spills = 0;  // sorted runs written
};

struct PipelineStats {
  // The position of the top-level stage being parsed (Pipeline::Parse sets it): what a stage
  // registers its counters under. A stage that desugars into several ($sortByCount into $group
  // and $sort) registers each of theirs under its own position.
  size_t parsing_position = 0;
  std::deque<LookupStats> lookups;  // one per top-level $lookup, in pipeline order
  // One per top-level $group / $sort (and per one a stage desugars into), in parse order.
  std::deque<SpillStats> spilling_stages;
};

}  // namespace cairn::query
