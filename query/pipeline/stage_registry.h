// The stage registry: MongoDB stage names → the parser of the stage file that implements it,
// plus the list of MongoDB 7.0 stages Cairn knows but does not implement yet (answered with a
// precise BadValue rather than "unrecognized"). Adding a stage = one file under stages/ + one
// row in stage_registry.cc's table. Stateless and thread-safe.
#pragma once

#include <string_view>

#include <bson/bson.h>

#include "common/status.h"
#include "query/pipeline/stage.h"

namespace cairn::query {

enum class StageKind {
  kImplemented,     // has a parser
  kNotImplemented,  // a MongoDB stage Cairn does not implement yet
  kUnknown,         // not a MongoDB stage name
};

StageKind LookupStage(std::string_view name);

// Checks the shape of one pipeline element as MongoDB's lite parse does: an object with exactly
// one field (40323) naming a known stage (40324). `element` is positioned on the array element.
Status CheckStageShape(const bson_iter_t* element);

// Parses one stage document (already shape-checked). A known stage Cairn lacks answers BadValue
// "$lookup is not supported by Cairn yet".
Result<StagePtr> ParseStage(BsonView stage_doc, const PipelineOptions& options);

}  // namespace cairn::query
