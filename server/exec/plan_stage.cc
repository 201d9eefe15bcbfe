// Stage names and counter totals (plan_stage.h).
#include "server/exec/plan_stage.h"

namespace cairn::server {

const char* StageName(StageType type) {
  switch (type) {
    case StageType::kNotExplained:
      return "";
    case StageType::kEof:
      return "EOF";
    case StageType::kCollScan:
      return "COLLSCAN";
    case StageType::kIdHack:
      return "IDHACK";
    case StageType::kIxScan:
      return "IXSCAN";
    case StageType::kFetch:
      return "FETCH";
    case StageType::kOr:
      return "OR";
    case StageType::kSubplan:
      return "SUBPLAN";
    case StageType::kCountScan:
      return "COUNT_SCAN";
    case StageType::kDistinctScan:
      return "DISTINCT_SCAN";
    case StageType::kSort:
      return "SORT";
    case StageType::kSkip:
      return "SKIP";
    case StageType::kLimit:
      return "LIMIT";
    case StageType::kTextMatch:
      return "TEXT_MATCH";
    case StageType::kProjectionSimple:
      return "PROJECTION_SIMPLE";
    case StageType::kProjectionDefault:
      return "PROJECTION_DEFAULT";
    case StageType::kProjectionCovered:
      return "PROJECTION_COVERED";
    case StageType::kCount:
      return "COUNT";
    case StageType::kUpdate:
      return "UPDATE";
    case StageType::kDelete:
      return "DELETE";
    case StageType::kRecordStoreFastCount:
      return "RECORD_STORE_FAST_COUNT";
  }
  return "";
}

int64_t TotalKeysExamined(const PlanStage& stage) {
  int64_t total = stage.counters().keys_examined;
  for (size_t i = 0; i < stage.input_count(); ++i) total += TotalKeysExamined(*stage.input(i));
  return total;
}

int64_t TotalDocsExamined(const PlanStage& stage) {
  int64_t total = stage.counters().docs_examined;
  for (size_t i = 0; i < stage.input_count(); ++i) total += TotalDocsExamined(*stage.input(i));
  return total;
}

}  // namespace cairn::server
