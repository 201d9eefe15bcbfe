// The parse entry point of each stage file under stages/ (one function per file); only
// stage_registry.cc's table includes this. Each validates its argument with MongoDB's codes.
#pragma once

#include <bson/bson.h>

#include "common/status.h"
#include "query/pipeline/stage.h"

namespace cairn::query::stages {

Result<StagePtr> ParseMatch(const bson_iter_t* spec, const PipelineOptions& options);    // match.cc
Result<StagePtr> ParseSkip(const bson_iter_t* spec, const PipelineOptions& options);     // skip.cc
Result<StagePtr> ParseLimit(const bson_iter_t* spec, const PipelineOptions& options);    // limit.cc
Result<StagePtr> ParseSort(const bson_iter_t* spec, const PipelineOptions& options);     // sort.cc
Result<StagePtr> ParseProject(const bson_iter_t* spec, const PipelineOptions& options);  // project.cc
Result<StagePtr> ParseUnset(const bson_iter_t* spec, const PipelineOptions& options);    // unset.cc
Result<StagePtr> ParseCount(const bson_iter_t* spec, const PipelineOptions& options);    // count.cc
Result<StagePtr> ParseGroup(const bson_iter_t* spec, const PipelineOptions& options);    // group.cc
// $addFields and its alias $set (add_fields.cc).
Result<StagePtr> ParseAddFields(const bson_iter_t* spec, const PipelineOptions& options);
// $replaceRoot and its alias $replaceWith (replace_root.cc).
Result<StagePtr> ParseReplaceRoot(const bson_iter_t* spec, const PipelineOptions& options);

// project.cc: a $project/$unset stage over an already-built projection spec; `stage_name` is
// the name errors carry ("Invalid $unset :: caused by :: ...").
Result<StagePtr> MakeProjectStage(BsonView projection_spec, std::string_view stage_name);

}  // namespace cairn::query::stages
