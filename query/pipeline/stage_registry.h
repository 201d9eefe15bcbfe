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

// What is known of a stage from its name alone, before it is parsed (MongoDB's
// LiteParsedDocumentSource and StageConstraints). The aggregate command, the position rules and
// the sub-pipeline stages decide with these, never by comparing stage names. All false for a
// name that is not a stage.
struct StageTraits {
  bool writes_output = false;              // $out, $merge: last only, never in a sub-pipeline
  bool independent_of_collection = false;  // may start a database-level {aggregate: 1}
  bool reports_server_state = false;       // $collStats, $currentOp, $listLocalSessions
  bool requires_replica_set = false;       // $changeStream: 40573 on a standalone
};
StageTraits TraitsOf(std::string_view name);

// The name of the first or the last stage of a pipeline array (the bytes of the BSON array);
// empty when there is none or that element is not a stage document.
std::string_view FirstStageName(BsonView pipeline_array);
std::string_view LastStageName(BsonView pipeline_array);

// The name of the first writing stage ($out, $merge) of a pipeline array, or empty: what $lookup
// and $unionWith refuse in their sub-pipelines (51047, 31441) before parsing them.
std::string_view FirstWritingStageName(BsonView pipeline_array);

// Checks the shape of one pipeline element as MongoDB's lite parse does: an object with exactly
// one field (40323) naming a known stage (40324). `element` is positioned on the array element.
Status CheckStageShape(const bson_iter_t* element);

// Parses one stage document (already shape-checked). A known stage Cairn lacks answers BadValue
// "$lookup is not supported by Cairn yet".
Result<StagePtr> ParseStage(BsonView stage_doc, const PipelineOptions& options);

}  // namespace cairn::query
