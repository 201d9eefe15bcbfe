// Explain of aggregate, in MongoDB 7.0's classic-engine shape. The pipeline's query part (its
// leading $match, run through the planner) is explained as find is (RunExplain). When nothing
// follows it, that is the whole reply; otherwise the reply is {explainVersion, stages:
// [{$cursor: {queryPlanner, executionStats?}}, {<stage>: <spec>}, ...], command, serverInfo,
// serverParameters}, as MongoDB prints a pipeline that its query layer does not absorb.
// Nothing is written: $out and $merge are shown, never run.
#pragma once

#include <bson/bson.h>

#include <functional>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/pipeline/explain_stats.h"
#include "server/exec/explain.h"

namespace cairn::server {

// `stages`: the pipeline array's stages that run after the query part (the stages following an
// absorbed leading $match), shown as given; `first_position`: the array position of the first
// (1 after an absorbed $match, else 0), by which each stage's counters are found. At the
// executionStats verbosities `run_pipeline` (when set: not for $out/$merge) runs the whole pipeline
// once, discarding its output, with the pipeline counting into `stats`; each $lookup's entry then
// also shows nReturned, totalDocsExamined, totalKeysExamined, collectionScans and indexesUsed as
// MongoDB's classic engine does, and Cairn's `strategy` (IndexedLoopJoin, HashJoin, NestedLoopJoin,
// ...).
Status ExplainAggregate(CommandContext& ctx, const ExplainOptions& options,
                        const ExplainTarget& target, const std::vector<BsonView>& stages,
                        size_t first_position, const std::function<Status()>& run_pipeline,
                        const query::PipelineStats* stats, bson_t* reply);

}  // namespace cairn::server
