// OpDebug (op_debug.h): the examined counts and the plan summary taken from an executed plan.
// The summary is mongod's: the leaf stages of the plan, each with its index's key pattern in
// mongod's BSONObj::toString form ("IXSCAN { a: 1, b: -1 }"), joined by ", ".
#include "server/exec/op_debug.h"

#include <bson/bson.h>

#include <cstdio>

#include "common/bson_doc.h"
#include "server/exec/plan_stage.h"

namespace cairn::server {

namespace {

// A key pattern as mongod prints a BSONObj: { a: 1, b: "text" }.
void AppendKeyPattern(BsonView pattern, std::string* out) {
  bson_iter_t it;
  if (!pattern.Init(&it)) return;
  *out += " {";
  bool first = true;
  while (bson_iter_next(&it)) {
    *out += first ? " " : ", ";
    first = false;
    *out += IterKey(&it);
    *out += ": ";
    switch (bson_iter_type(&it)) {
      case BSON_TYPE_INT32:
      case BSON_TYPE_INT64:
        *out += std::to_string(bson_iter_as_int64(&it));
        break;
      case BSON_TYPE_DOUBLE: {
        char buf[32];
        const double value = bson_iter_double(&it);
        if (value == static_cast<double>(static_cast<int64_t>(value))) {
          std::snprintf(buf, sizeof buf, "%.1f", value);
        } else {
          std::snprintf(buf, sizeof buf, "%g", value);
        }
        *out += buf;
        break;
      }
      case BSON_TYPE_UTF8:
        *out += '"';
        *out += IterUtf8(&it);
        *out += '"';
        break;
      default:
        *out += "?";
        break;
    }
  }
  *out += first ? "}" : " }";
}

// Walks the plan as explain shows it (streams that are not MongoDB stages stand for their input)
// and appends each leaf's part of the summary.
void Summarise(const PlanStage* stage, bool count, bool want_text, OpDebug* debug) {
  while (stage != nullptr && stage->stage_type() == StageType::kNotExplained) {
    stage = stage->input_count() == 1 ? stage->input(0) : nullptr;
  }
  if (stage == nullptr) return;
  if (count && stage->stage_type() == StageType::kCollScan) debug->collection_scan = true;
  if (count && stage->stage_type() == StageType::kSort) debug->scan_and_order = true;
  if (stage->input_count() > 0) {
    for (size_t i = 0; i < stage->input_count(); ++i) {
      Summarise(stage->input(i), count, want_text, debug);
    }
    return;
  }
  if (!want_text) return;
  std::string& out = debug->plan_summary;
  if (!out.empty()) out += ", ";
  out += StageName(stage->stage_type());
  const StageType type = stage->stage_type();
  if (type == StageType::kIxScan || type == StageType::kCountScan ||
      type == StageType::kDistinctScan) {
    BsonDoc fields;
    stage->AppendPlanFields(fields.get());
    bson_iter_t pattern;
    if (fields.view().Find("keyPattern", &pattern) && BSON_ITER_HOLDS_DOCUMENT(&pattern)) {
      AppendKeyPattern(IterDocument(&pattern), &out);
    }
  }
}

}  // namespace

void OpDebug::AddPlan(const PlanStage& plan, PlanProgress* progress) {
  const int64_t keys = TotalKeysExamined(plan), docs = TotalDocsExamined(plan);
  Add(&keys_examined, keys - progress->keys);
  Add(&docs_examined, docs - progress->docs);
  progress->keys = keys;
  progress->docs = docs;
  const bool count = !progress->counted;
  progress->counted = true;
  const bool want_text = plan_summary.empty() && details_wanted();
  if (count || want_text) Summarise(&plan, count, want_text, this);
}

}  // namespace cairn::server
