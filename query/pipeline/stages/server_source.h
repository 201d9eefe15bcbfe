// What the stages that report the server's state share ($collStats, $currentOp,
// $listLocalSessions; one file each): a source stage — first only, its input ignored — whose
// documents come from one call to the pipeline's ServerSources (server_sources.h) when the cursor
// first pulls, and the refusal of such a stage in a $lookup or $unionWith sub-pipeline.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/pipeline/server_sources.h"
#include "query/pipeline/stage.h"

namespace cairn::query::stages {

// Reads the stage's documents from the server (called once per cursor).
using ServerRead = std::function<Result<std::vector<BsonDoc>>(ServerSources& server)>;

// The stage `static_name` (which must outlive it) over `options.server_sources`: without one it
// fails when it runs (BadValue "<name> is not supported in this context").
StagePtr MakeServerSourceStage(std::string_view static_name, const PipelineOptions& options,
                               ServerRead read);

// BadValue "<name> is not supported by Cairn yet" in a $lookup or $unionWith sub-pipeline, where
// MongoDB would report on the foreign collection; OK at the top level and in $facet (which
// refuses these stages itself, 40600).
Status CheckNotInSubPipeline(std::string_view name, const PipelineOptions& options);

}  // namespace cairn::query::stages
