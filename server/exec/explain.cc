// Explain output (explain.h): the executed stages as MongoDB 7.0's classic engine prints them,
// the command's own stage above them, running a query without writing, and the reply's shape.
#include "server/exec/explain.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "common/limits.h"
#include "server/server_parameters.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// The stage explain shows for `stage`: itself, or for a stream that is not one of MongoDB's
// stages, the first of its inputs that is.
const PlanStage* Shown(const PlanStage* stage) {
  while (stage != nullptr && stage->stage_type() == StageType::kNotExplained) {
    stage = stage->input_count() == 1 ? stage->input(0) : nullptr;
  }
  return stage;
}

// One stage as queryPlanner (exec = false) or executionStages (exec = true) prints it.
void AppendStage(bson_t* out, const char* key, const PlanStage& stage, bool exec, int64_t millis) {
  const StageCounters& c = stage.counters();
  bson_t doc;
  bson_append_document_begin(out, key, -1, &doc);
  AppendUtf8(&doc, "stage", StageName(stage.stage_type()));
  BsonDoc fields;
  stage.AppendPlanFields(fields.get());
  bson_iter_t it;
  if (fields.view().Find("filter", &it)) AppendIter(&doc, "filter", &it);
  if (exec) {
    int64_t examined = c.keys_examined + c.docs_examined;
    int64_t works = std::max(examined, c.returned) + 1;
    BSON_APPEND_INT32(&doc, "nReturned", static_cast<int32_t>(c.returned));
    BSON_APPEND_INT32(&doc, "executionTimeMillisEstimate", static_cast<int32_t>(millis));
    BSON_APPEND_INT32(&doc, "works", static_cast<int32_t>(works));
    BSON_APPEND_INT32(&doc, "advanced", static_cast<int32_t>(c.returned));
    BSON_APPEND_INT32(&doc, "needTime", static_cast<int32_t>(works - c.returned - 1));
    BSON_APPEND_INT32(&doc, "needYield", 0);
    BSON_APPEND_INT32(&doc, "saveState", 0);
    BSON_APPEND_INT32(&doc, "restoreState", 0);
    BSON_APPEND_INT32(&doc, "isEOF", 1);
  }
  if (fields.view().Init(&it)) {
    while (bson_iter_next(&it)) {
      if (IterKey(&it) != "filter") AppendIter(&doc, IterKey(&it), &it);
    }
  }
  if (exec) {
    stage.AppendExecutionFields(&doc);
    // Each stage's own statistics, as MongoDB's *Stats structs print them.
    switch (stage.stage_type()) {
      case StageType::kIxScan:
        BSON_APPEND_INT32(&doc, "keysExamined", static_cast<int32_t>(c.keys_examined));
        BSON_APPEND_INT32(&doc, "seeks", static_cast<int32_t>(c.seeks));
        BSON_APPEND_INT32(&doc, "dupsTested", static_cast<int32_t>(c.dups_tested));
        BSON_APPEND_INT32(&doc, "dupsDropped", static_cast<int32_t>(c.dups_dropped));
        break;
      case StageType::kCountScan:
      case StageType::kDistinctScan:
        BSON_APPEND_INT32(&doc, "keysExamined", static_cast<int32_t>(c.keys_examined));
        break;
      case StageType::kOr:
        BSON_APPEND_INT32(&doc, "dupsTested", static_cast<int32_t>(c.dups_tested));
        BSON_APPEND_INT32(&doc, "dupsDropped", static_cast<int32_t>(c.dups_dropped));
        break;
      case StageType::kFetch:
        BSON_APPEND_INT32(&doc, "docsExamined", static_cast<int32_t>(c.docs_examined));
        BSON_APPEND_INT32(&doc, "alreadyHasObj", 0);
        break;
      case StageType::kCollScan:
        BSON_APPEND_INT32(&doc, "docsExamined", static_cast<int32_t>(c.docs_examined));
        break;
      case StageType::kIdHack:
        BSON_APPEND_INT32(&doc, "keysExamined", static_cast<int32_t>(c.keys_examined));
        BSON_APPEND_INT32(&doc, "docsExamined", static_cast<int32_t>(c.docs_examined));
        break;
      default:
        break;
    }
  }
  std::vector<const PlanStage*> inputs;
  for (size_t i = 0; i < stage.input_count(); ++i) {
    if (const PlanStage* shown = Shown(stage.input(i))) inputs.push_back(shown);
  }
  if (inputs.size() == 1 && stage.stage_type() != StageType::kOr) {
    AppendStage(&doc, "inputStage", *inputs[0], exec, millis);
  } else if (!inputs.empty()) {
    bson_t stages;
    BSON_APPEND_ARRAY_BEGIN(&doc, "inputStages", &stages);
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string index = std::to_string(i);
      AppendStage(&stages, index.c_str(), *inputs[i], exec, millis);
    }
    bson_append_array_end(&doc, &stages);
  }
  bson_append_document_end(out, &doc);
}

// The stages the command itself adds above the query's stream: a projection, COUNT, UPDATE,
// DELETE, or RECORD_STORE_FAST_COUNT alone. They count what the command did with the stream's
// documents while explain ran it.
class CommandStage final : public PlanStage {
 public:
  CommandStage(StageType type, const PlanStage* input) : PlanStage(type), input_(input) {}

  BsonDoc plan_fields;  // e.g. a projection's transformBy
  BsonDoc exec_fields;  // nCounted, nMatched, nWouldDelete, ...

  void AppendPlanFields(bson_t* out) const override { AppendFields(plan_fields, out); }
  void AppendExecutionFields(bson_t* out) const override { AppendFields(exec_fields, out); }
  size_t input_count() const override { return input_ != nullptr ? 1 : 0; }
  const PlanStage* input(size_t) const override { return input_; }
  void set_returned(int64_t returned) { counters_.returned = returned; }

 private:
  static void AppendFields(const BsonDoc& fields, bson_t* out) {
    bson_iter_t it;
    if (fields.view().Init(&it)) {
      while (bson_iter_next(&it)) AppendIter(out, IterKey(&it), &it);
    }
  }
  const PlanStage* input_;
};

// PROJECTION_SIMPLE for top-level inclusions/exclusions, else PROJECTION_DEFAULT.
StageType ProjectionStage(BsonView projection) {
  bson_iter_t it;
  projection.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key.find('.') != std::string_view::npos || key.starts_with("$")) {
      return StageType::kProjectionDefault;
    }
    if (!IterIsNumber(&it) && !BSON_ITER_HOLDS_BOOL(&it)) return StageType::kProjectionDefault;
  }
  return StageType::kProjectionSimple;
}

// A short stable hash of the query shape, printed as MongoDB prints queryHash (8 hex digits).
std::string ShapeHash(std::string_view a, std::string_view b) {
  uint32_t h = 2166136261u;
  for (std::string_view part : {a, b}) {
    for (char c : part) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    h = (h ^ 0xFF) * 16777619u;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08X", h);
  return buf;
}

void AppendServerInfo(CommandContext& ctx, bson_t* reply) {
  char hostname[256] = {0};
  gethostname(hostname, sizeof hostname - 1);
  bson_t info;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "serverInfo", &info);
  BSON_APPEND_UTF8(&info, "host", hostname);
  BSON_APPEND_INT32(&info, "port", ctx.state.options().port);
  BSON_APPEND_UTF8(&info, "version", CAIRN_MONGODB_VERSION);
  BSON_APPEND_UTF8(&info, "gitVersion", "cairn");
  bson_append_document_end(reply, &info);
  bson_t params;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "serverParameters", &params);
  // The settable ones as setParameter left them; the rest are fixed at MongoDB's defaults.
  const ServerParameters& parameters = ctx.state.parameters();
  BSON_APPEND_INT32(&params, "internalQueryFacetBufferSizeBytes", kDefaultStageMemoryBytes);
  BSON_APPEND_INT32(&params, "internalQueryFacetMaxOutputDocSizeBytes", kDefaultStageMemoryBytes);
  BSON_APPEND_INT32(&params, "internalLookupStageIntermediateDocumentMaxSizeBytes",
                    kDefaultStageMemoryBytes);
  BSON_APPEND_INT32(&params, "internalDocumentSourceGroupMaxMemoryBytes",
                    parameters.internal_document_source_group_max_memory_bytes.load());
  BSON_APPEND_INT32(&params, "internalQueryMaxBlockingSortMemoryUsageBytes",
                    parameters.internal_query_max_blocking_sort_memory_usage_bytes.load());
  BSON_APPEND_INT32(&params, "internalQueryProhibitBlockingMergeOnMongoS", 0);
  BSON_APPEND_INT32(&params, "internalQueryMaxAddToSetBytes", kDefaultStageMemoryBytes);
  BSON_APPEND_INT32(&params, "internalDocumentSourceSetWindowFieldsMaxMemoryBytes",
                    kDefaultStageMemoryBytes);
  BSON_APPEND_UTF8(&params, "internalQueryFrameworkControl", "trySbeRestricted");
  bson_append_document_end(reply, &params);
}

}  // namespace

Status RunExplain(CommandContext& ctx, const ExplainOptions& options, const ExplainTarget& target,
                  bson_t* reply) {
  const bool execute = options.verbosity != ExplainVerbosity::kQueryPlanner;
  QueryPlan plan;
  std::vector<std::unique_ptr<CommandStage>> command_stages;  // bottom to top
  const PlanStage* root = nullptr;
  if (target.fast_count) {
    command_stages.push_back(
        std::make_unique<CommandStage>(StageType::kRecordStoreFastCount, nullptr));
    root = command_stages.back().get();
  } else {
    // find's projection goes to the planner, which may answer it from an index (covered).
    QuerySpec query = *target.query;
    query.projection = target.projection;
    CAIRN_ASSIGN_OR_RETURN(plan, PlanQuery(ctx.state.engine(), target.collection, query,
                                           &ctx.state.id_cache(), /*with_rejected=*/true));
    root = Shown(plan.root.get());
  }
  CommandStage* projection = nullptr;
  if (!target.projection.empty()) {
    command_stages.push_back(std::make_unique<CommandStage>(
        plan.covered ? StageType::kProjectionCovered : ProjectionStage(target.projection), root));
    projection = command_stages.back().get();
    bson_t transform = target.projection.AsBson();
    BSON_APPEND_DOCUMENT(projection->plan_fields.get(), "transformBy", &transform);
    root = projection;
  }
  CommandStage* command_stage = nullptr;
  switch (target.root) {
    case ExplainTarget::Root::kNone:
      break;
    case ExplainTarget::Root::kCount:
      if (target.fast_count) {
        command_stage = command_stages.back().get();
        break;
      }
      command_stages.push_back(std::make_unique<CommandStage>(StageType::kCount, root));
      break;
    case ExplainTarget::Root::kUpdate:
      command_stages.push_back(std::make_unique<CommandStage>(StageType::kUpdate, root));
      break;
    case ExplainTarget::Root::kDelete:
      command_stages.push_back(std::make_unique<CommandStage>(StageType::kDelete, root));
      break;
  }
  if (target.root != ExplainTarget::Root::kNone && command_stage == nullptr) {
    command_stage = command_stages.back().get();
    root = command_stage;
  }

  // Execution: the query runs; nothing is written.
  int64_t returned = 0, would_modify = 0;
  int64_t millis = 0;
  if (execute && plan.root) {
    auto started = std::chrono::steady_clock::now();
    while (plan.root->Next()) {
      ++returned;
      if (target.update != nullptr) {
        BsonDoc scratch;
        query::Update::ApplyOptions apply;
        Result<bool> modified = target.update->Apply(plan.root->document(), scratch.get(), apply);
        if (modified.ok() && *modified) ++would_modify;
      }
    }
    CAIRN_RETURN_IF_ERROR(plan.root->status());
    millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - started)
                 .count();
    if (projection != nullptr) projection->set_returned(returned);
  }
  if (target.fast_count && execute && target.collection) {
    returned = ctx.state.engine().RecordCount(target.collection->prefix);
  }
  // The command stage's own fields.
  int64_t result_returned = returned;
  if (command_stage != nullptr) {
    result_returned = 0;
    bson_t* fields = command_stage->exec_fields.get();
    if (execute) {
      switch (target.root) {
        case ExplainTarget::Root::kNone:
          break;
        case ExplainTarget::Root::kCount:
          AppendCount(fields, "nCounted", returned);
          AppendCount(fields, "nSkipped", 0);
          break;
        case ExplainTarget::Root::kUpdate:
          AppendCount(fields, "nMatched", returned);
          AppendCount(fields, "nWouldModify", would_modify);
          AppendCount(fields, "nWouldUpsert", (returned == 0 && target.upsert) ? 1 : 0);
          break;
        case ExplainTarget::Root::kDelete:
          AppendCount(fields, "nWouldDelete", returned);
          break;
      }
    }
  }
  BsonDoc parsed_query;
  if (target.query != nullptr) {
    BsonDoc holder;
    AppendExplainFilter(*target.query->matcher, "q", holder.get());
    bson_iter_t it;
    if (holder.view().Find("q", &it)) parsed_query = BsonDoc(IterDocument(&it));
  }

  BSON_APPEND_UTF8(reply, "explainVersion", "1");
  bson_t planner;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "queryPlanner", &planner);
  AppendUtf8(&planner, "namespace", target.ns);
  BSON_APPEND_BOOL(&planner, "indexFilterSet", false);
  BSON_APPEND_DOCUMENT(&planner, "parsedQuery", parsed_query.get());
  std::string sort_shape;
  if (target.query != nullptr && target.query->sort) {
    for (const auto& key : target.query->sort->keys())
      sort_shape += key.path + (key.descending ? "-" : "+");
  }
  std::string_view parsed(reinterpret_cast<const char*>(parsed_query.view().data()),
                          parsed_query.view().size());
  std::string query_hash = ShapeHash(parsed, sort_shape);
  AppendUtf8(&planner, "queryHash", query_hash);
  AppendUtf8(&planner, "planCacheKey", ShapeHash(query_hash, target.ns));
  BSON_APPEND_BOOL(&planner, "maxIndexedOrSolutionsReached", false);
  BSON_APPEND_BOOL(&planner, "maxIndexedAndSolutionsReached", false);
  BSON_APPEND_BOOL(&planner, "maxScansToExplodeReached", false);
  AppendStage(&planner, "winningPlan", *root, false, 0);
  bson_t rejected;
  BSON_APPEND_ARRAY_BEGIN(&planner, "rejectedPlans", &rejected);
  for (size_t i = 0; i < plan.rejected.size(); ++i) {
    std::string key = std::to_string(i);
    AppendStage(&rejected, key.c_str(), *plan.rejected[i], false, 0);
  }
  bson_append_array_end(&planner, &rejected);
  bson_append_document_end(reply, &planner);

  if (execute) {
    int64_t keys = TotalKeysExamined(*root), docs = TotalDocsExamined(*root);
    bson_t stats;
    BSON_APPEND_DOCUMENT_BEGIN(reply, "executionStats", &stats);
    BSON_APPEND_BOOL(&stats, "executionSuccess", true);
    BSON_APPEND_INT32(&stats, "nReturned", static_cast<int32_t>(result_returned));
    BSON_APPEND_INT32(&stats, "executionTimeMillis", static_cast<int32_t>(millis));
    BSON_APPEND_INT32(&stats, "totalKeysExamined", static_cast<int32_t>(keys));
    BSON_APPEND_INT32(&stats, "totalDocsExamined", static_cast<int32_t>(docs));
    AppendStage(&stats, "executionStages", *root, true, millis);
    if (options.verbosity == ExplainVerbosity::kAllPlansExecution) {
      bson_t all;
      BSON_APPEND_ARRAY_BEGIN(&stats, "allPlansExecution", &all);
      if (!plan.rejected.empty()) {
        // The winning plan with its statistics, then each other candidate (not run).
        for (size_t i = 0; i <= plan.rejected.size(); ++i) {
          const PlanStage& node = i == 0 ? *root : *plan.rejected[i - 1];
          int64_t k = TotalKeysExamined(node), d = TotalDocsExamined(node);
          std::string key = std::to_string(i);
          bson_t entry;
          BSON_APPEND_DOCUMENT_BEGIN(&all, key.c_str(), &entry);
          BSON_APPEND_INT32(&entry, "nReturned",
                            static_cast<int32_t>(i == 0 ? result_returned : 0));
          BSON_APPEND_INT32(&entry, "executionTimeMillisEstimate",
                            static_cast<int32_t>(i == 0 ? millis : 0));
          BSON_APPEND_INT32(&entry, "totalKeysExamined", static_cast<int32_t>(k));
          BSON_APPEND_INT32(&entry, "totalDocsExamined", static_cast<int32_t>(d));
          AppendStage(&entry, "executionStages", node, true, i == 0 ? millis : 0);
          bson_append_document_end(&all, &entry);
        }
      }
      bson_append_array_end(&stats, &all);
    }
    bson_append_document_end(reply, &stats);
  }

  // The explained command as received, with its database.
  bson_t command;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "command", &command);
  bson_iter_t it;
  if (options.command.Init(&it)) {
    while (bson_iter_next(&it)) {
      if (IterKey(&it) != "$db") AppendIter(&command, IterKey(&it), &it);
    }
  }
  AppendUtf8(&command, "$db", target.ns.substr(0, target.ns.find('.')));
  bson_append_document_end(reply, &command);
  AppendServerInfo(ctx, reply);
  return Status::OK();
}

}  // namespace cairn::server
