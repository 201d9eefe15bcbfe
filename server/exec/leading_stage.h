// A leading stage the server answers itself, ahead of query/pipeline ($collStats,
// $listLocalSessions): finding it at the head of a pipeline array, and the stages after it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <bson/bson.h>

#include "common/bson_doc.h"

namespace cairn::server {

// What such a stage yields: its documents, and the stages after it (renumbered) that run on them.
struct LeadingStageSource {
  std::vector<BsonDoc> documents;
  BsonDoc rest;
};

// When `pipeline`'s first stage is {<name>: <spec>}, positions *spec on its argument and
// *stages on that first stage (so RestOfPipeline reads what follows) and returns true.
inline bool FindLeadingStage(BsonView pipeline, std::string_view name, bson_iter_t* stages,
                             bson_iter_t* spec) {
  return pipeline.Init(stages) && bson_iter_next(stages) && BSON_ITER_HOLDS_DOCUMENT(stages) &&
         IterDocument(stages).Init(spec) && bson_iter_next(spec) && IterKey(spec) == name;
}

// The stages after the one *stages is on, renumbered from 0 as a BSON array.
inline BsonDoc RestOfPipeline(bson_iter_t* stages) {
  BsonDoc rest;
  int index = 0;
  while (bson_iter_next(stages)) AppendIter(rest.get(), std::to_string(index++), stages);
  return rest;
}

}  // namespace cairn::server
