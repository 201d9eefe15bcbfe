// The parse-time check MongoDB's dependency analysis makes for {$meta: "textScore"}
// (DepsTracker: "query requires text score metadata, but it is not available", 40218): a stage
// that reads the score — an expression or a $sort key {$meta: "textScore"} — is refused before
// anything runs when no $text search leads the pipeline, even if no document would reach it.
// The walk stops after the first stage that makes new documents ($group, $bucket, $facet, ...),
// as MongoDB's stops at a stage that needs its whole input; what follows such a stage meets the
// check when it runs (Variables::metadata has no score). Reads the raw stage documents, so it
// needs nothing parsed.
#pragma once

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

// `pipeline`: the pipeline array; `text_search_leads`: its first stage is a $match whose $text
// search feeds the rest (whose documents then have scores).
Status CheckTextScoreAvailable(BsonView pipeline, bool text_search_leads);

}  // namespace cairn::query
