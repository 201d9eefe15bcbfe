// See text_score_check.h.
#include "query/pipeline/text_score_check.h"

#include <string_view>

#include <bson/bson.h>

#include "query/expression/document_metadata.h"

namespace cairn::query {

namespace {

// True when `value` is, or holds at any depth, {$meta: "textScore"}.
bool ReadsTextScore(const bson_iter_t* value) {
  if (!BSON_ITER_HOLDS_DOCUMENT(value) && !BSON_ITER_HOLDS_ARRAY(value)) return false;
  bson_iter_t it;
  if (!IterDocument(value).Init(&it)) return false;
  while (bson_iter_next(&it)) {
    if (IterKey(&it) == "$meta" && BSON_ITER_HOLDS_UTF8(&it) && IterUtf8(&it) == "textScore") {
      return true;
    }
    if (ReadsTextScore(&it)) return true;
  }
  return false;
}

// Stages whose output documents are new: they do not carry their inputs' scores.
bool MakesNewDocuments(std::string_view stage) {
  return stage == "$group" || stage == "$bucket" || stage == "$bucketAuto" || stage == "$facet" ||
         stage == "$count" || stage == "$sortByCount";
}

}  // namespace

Status CheckTextScoreAvailable(BsonView pipeline, bool text_search_leads) {
  if (text_search_leads) return Status::OK();
  bson_iter_t stages;
  if (!pipeline.Init(&stages)) return Status::OK();
  while (bson_iter_next(&stages)) {
    bson_iter_t stage;
    if (!BSON_ITER_HOLDS_DOCUMENT(&stages) || !IterDocument(&stages).Init(&stage) ||
        !bson_iter_next(&stage)) {
      continue;  // Pipeline::Parse reports malformed stages
    }
    if (ReadsTextScore(&stage)) {
      return TextScoreNotAvailable();
    }
    if (MakesNewDocuments(IterKey(&stage))) break;
  }
  return Status::OK();
}

}  // namespace cairn::query
