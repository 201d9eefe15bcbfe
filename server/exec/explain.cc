// Explain output (explain.h): plan nodes, counting wrappers, running a query without writing,
// and MongoDB 7.0's reply shape (classic engine stages).
#include "server/exec/explain.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "common/limits.h"
#include "server/exec/sort_stream.h"
#include "server/server_parameters.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

class CountingStream final : public DocumentStream {
 public:
  CountingStream(std::unique_ptr<DocumentStream> child, PlanNode* node)
      : child_(std::move(child)), node_(node) {}
  bool Next() override {
    bool more = child_->Next();
    if (more) ++node_->n_returned;
    node_->docs_examined = child_->docs_examined();
    return more;
  }
  BsonView document() const override { return child_->document(); }
  storage::RecordId record_id() const override { return child_->record_id(); }
  Status status() const override { return child_->status(); }
  int64_t docs_examined() const override { return child_->docs_examined(); }
  std::optional<double> text_score() const override { return child_->text_score(); }

 private:
  std::unique_ptr<DocumentStream> child_;
  PlanNode* node_;
};

int64_t KeysExamined(const PlanNode& node) {
  if (node.stage == "IXSCAN" || node.stage == "COUNT_SCAN" || node.stage == "DISTINCT_SCAN") {
    return node.scan.keys_examined;
  }
  if (node.stage == "IDHACK") return node.docs_examined;  // one key per document found
  return 0;
}

int64_t DocsExamined(const PlanNode& node) {
  // A covered IXSCAN counts the documents it had to read for a type its keys lost.
  if (node.is_fetch || node.stage == "IXSCAN" || node.stage == "DISTINCT_SCAN") {
    return node.scan.docs_examined;
  }
  if (node.stage == "COLLSCAN" || node.stage == "IDHACK") return node.docs_examined;
  return 0;
}

void Totals(const PlanNode* node, int64_t* keys, int64_t* docs) {
  for (; node != nullptr; node = node->input.get()) {
    *keys += KeysExamined(*node);
    *docs += DocsExamined(*node);
    for (const std::unique_ptr<PlanNode>& branch : node->inputs) Totals(branch.get(), keys, docs);
  }
}

int64_t Returned(const PlanNode& node) {
  const bool scan = node.stage == "IXSCAN" || node.stage == "COUNT_SCAN" ||
                    node.stage == "DISTINCT_SCAN" || node.stage == "OR";
  return scan ? node.scan.keys_returned : node.n_returned;
}

// One stage as queryPlanner (exec = false) or executionStages (exec = true) prints it.
void AppendNode(bson_t* out, const char* key, const PlanNode& node, bool exec, int64_t millis) {
  bson_t doc;
  bson_append_document_begin(out, key, -1, &doc);
  AppendUtf8(&doc, "stage", node.stage);
  bson_iter_t it;
  if (node.fields.view().Find("filter", &it)) AppendIter(&doc, "filter", &it);
  if (exec) {
    int64_t returned = Returned(node);
    int64_t examined = KeysExamined(node) + DocsExamined(node);
    int64_t works = std::max(examined, returned) + 1;
    BSON_APPEND_INT32(&doc, "nReturned", static_cast<int32_t>(returned));
    BSON_APPEND_INT32(&doc, "executionTimeMillisEstimate", static_cast<int32_t>(millis));
    BSON_APPEND_INT32(&doc, "works", static_cast<int32_t>(works));
    BSON_APPEND_INT32(&doc, "advanced", static_cast<int32_t>(returned));
    BSON_APPEND_INT32(&doc, "needTime", static_cast<int32_t>(works - returned - 1));
    BSON_APPEND_INT32(&doc, "needYield", 0);
    BSON_APPEND_INT32(&doc, "saveState", 0);
    BSON_APPEND_INT32(&doc, "restoreState", 0);
    BSON_APPEND_INT32(&doc, "isEOF", 1);
  }
  if (node.fields.view().Init(&it)) {
    while (bson_iter_next(&it)) {
      if (IterKey(&it) != "filter") AppendIter(&doc, IterKey(&it), &it);
    }
  }
  if (exec) {
    if (node.exec_fields.view().Init(&it)) {
      while (bson_iter_next(&it)) AppendIter(&doc, IterKey(&it), &it);
    }
    if (node.stage == "IXSCAN") {
      BSON_APPEND_INT32(&doc, "keysExamined", static_cast<int32_t>(node.scan.keys_examined));
      BSON_APPEND_INT32(&doc, "seeks", static_cast<int32_t>(node.scan.seeks));
      BSON_APPEND_INT32(&doc, "dupsTested", static_cast<int32_t>(node.scan.dups_tested));
      BSON_APPEND_INT32(&doc, "dupsDropped", static_cast<int32_t>(node.scan.dups_dropped));
    } else if (node.stage == "COUNT_SCAN" || node.stage == "DISTINCT_SCAN") {
      BSON_APPEND_INT32(&doc, "keysExamined", static_cast<int32_t>(node.scan.keys_examined));
    } else if (node.stage == "OR") {
      BSON_APPEND_INT32(&doc, "dupsTested", static_cast<int32_t>(node.scan.dups_tested));
      BSON_APPEND_INT32(&doc, "dupsDropped", static_cast<int32_t>(node.scan.dups_dropped));
    } else if (node.is_fetch) {
      BSON_APPEND_INT32(&doc, "docsExamined", static_cast<int32_t>(DocsExamined(node)));
      BSON_APPEND_INT32(&doc, "alreadyHasObj", 0);
    } else if (node.stage == "COLLSCAN") {
      BSON_APPEND_INT32(&doc, "docsExamined", static_cast<int32_t>(node.docs_examined));
    } else if (node.stage == "IDHACK") {
      BSON_APPEND_INT32(&doc, "keysExamined", static_cast<int32_t>(node.docs_examined));
      BSON_APPEND_INT32(&doc, "docsExamined", static_cast<int32_t>(node.docs_examined));
    }
  }
  if (node.input) AppendNode(&doc, "inputStage", *node.input, exec, millis);
  if (!node.inputs.empty()) {
    bson_t stages;
    BSON_APPEND_ARRAY_BEGIN(&doc, "inputStages", &stages);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      std::string index = std::to_string(i);
      AppendNode(&stages, index.c_str(), *node.inputs[i], exec, millis);
    }
    bson_append_array_end(&doc, &stages);
  }
  bson_append_document_end(out, &doc);
}

// PROJECTION_SIMPLE for top-level inclusions/exclusions, else PROJECTION_DEFAULT.
const char* ProjectionStage(BsonView projection) {
  bson_iter_t it;
  projection.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key.find('.') != std::string_view::npos || key.starts_with("$"))
      return "PROJECTION_DEFAULT";
    if (!IterIsNumber(&it) && !BSON_ITER_HOLDS_BOOL(&it)) return "PROJECTION_DEFAULT";
  }
  return "PROJECTION_SIMPLE";
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

std::unique_ptr<DocumentStream> CountInto(std::unique_ptr<DocumentStream> stream, PlanNode* node) {
  return std::make_unique<CountingStream>(std::move(stream), node);
}

std::unique_ptr<PlanNode> MakePlanNode(std::string stage, std::unique_ptr<PlanNode> input) {
  auto node = std::make_unique<PlanNode>();
  node->stage = std::move(stage);
  node->input = std::move(input);
  return node;
}

Status RunExplain(CommandContext& ctx, const ExplainOptions& options, const ExplainTarget& target,
                  bson_t* reply) {
  const bool execute = options.verbosity != ExplainVerbosity::kQueryPlanner;
  QueryExplain explain;
  explain.count_execution = execute;
  std::unique_ptr<DocumentStream> stream;
  if (target.fast_count) {
    explain.winning = MakePlanNode("RECORD_STORE_FAST_COUNT", nullptr);
  } else {
    // find's projection goes to the planner, which may answer it from an index (covered).
    QuerySpec query = *target.query;
    query.projection = target.projection;
    stream = BuildQueryStream(ctx.state.engine(), target.collection, query, &ctx.state.id_cache(),
                              &explain);
    CAIRN_RETURN_IF_ERROR(stream->status());  // planning errors (an unknown hint)
  }
  std::unique_ptr<PlanNode> plan = std::move(explain.winning);
  if (!target.projection.empty()) {
    plan = MakePlanNode(explain.covered ? "PROJECTION_COVERED" : ProjectionStage(target.projection),
                        std::move(plan));
    bson_t transform = target.projection.AsBson();
    BSON_APPEND_DOCUMENT(plan->fields.get(), "transformBy", &transform);
  }
  PlanNode* top = plan.get();  // the stage whose output is the query's result (not counted)
  switch (target.root) {
    case ExplainTarget::Root::kNone:
      break;
    case ExplainTarget::Root::kCount:
      if (!target.fast_count) plan = MakePlanNode("COUNT", std::move(plan));
      break;
    case ExplainTarget::Root::kUpdate:
      plan = MakePlanNode("UPDATE", std::move(plan));
      break;
    case ExplainTarget::Root::kDelete:
      plan = MakePlanNode("DELETE", std::move(plan));
      break;
  }

  // Execution: the query runs; nothing is written.
  int64_t returned = 0, would_modify = 0;
  int64_t millis = 0;
  if (execute && stream) {
    auto started = std::chrono::steady_clock::now();
    while (stream->Next()) {
      ++returned;
      if (target.update != nullptr) {
        BsonDoc scratch;
        query::Update::ApplyOptions apply;
        Result<bool> modified = target.update->Apply(stream->document(), scratch.get(), apply);
        if (modified.ok() && *modified) ++would_modify;
      }
    }
    CAIRN_RETURN_IF_ERROR(stream->status());
    millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - started)
                 .count();
    if (top->stage.starts_with("PROJECTION")) top->n_returned = returned;
  }
  if (target.fast_count && execute && target.collection) {
    returned = ctx.state.engine().RecordCount(target.collection->prefix);
  }
  // The root's own fields and counters.
  int64_t result_returned = returned;
  switch (target.root) {
    case ExplainTarget::Root::kNone:
      break;
    case ExplainTarget::Root::kCount:
      if (execute) {
        AppendCount(plan->exec_fields.get(), "nCounted", returned);
        AppendCount(plan->exec_fields.get(), "nSkipped", 0);
      }
      result_returned = 0;
      break;
    case ExplainTarget::Root::kUpdate:
      if (execute) {
        AppendCount(plan->exec_fields.get(), "nMatched", returned);
        AppendCount(plan->exec_fields.get(), "nWouldModify", would_modify);
        AppendCount(plan->exec_fields.get(), "nWouldUpsert",
                    (returned == 0 && target.upsert) ? 1 : 0);
      }
      result_returned = 0;
      break;
    case ExplainTarget::Root::kDelete:
      if (execute) AppendCount(plan->exec_fields.get(), "nWouldDelete", returned);
      result_returned = 0;
      break;
  }

  BSON_APPEND_UTF8(reply, "explainVersion", "1");
  bson_t planner;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "queryPlanner", &planner);
  AppendUtf8(&planner, "namespace", target.ns);
  BSON_APPEND_BOOL(&planner, "indexFilterSet", false);
  BSON_APPEND_DOCUMENT(&planner, "parsedQuery", explain.parsed_query.get());
  std::string sort_shape;
  if (target.query != nullptr && target.query->sort) {
    for (const auto& key : target.query->sort->keys())
      sort_shape += key.path + (key.descending ? "-" : "+");
  }
  std::string_view parsed(reinterpret_cast<const char*>(explain.parsed_query.view().data()),
                          explain.parsed_query.view().size());
  std::string query_hash = ShapeHash(parsed, sort_shape);
  AppendUtf8(&planner, "queryHash", query_hash);
  AppendUtf8(&planner, "planCacheKey", ShapeHash(query_hash, target.ns));
  BSON_APPEND_BOOL(&planner, "maxIndexedOrSolutionsReached", false);
  BSON_APPEND_BOOL(&planner, "maxIndexedAndSolutionsReached", false);
  BSON_APPEND_BOOL(&planner, "maxScansToExplodeReached", false);
  AppendNode(&planner, "winningPlan", *plan, false, 0);
  bson_t rejected;
  BSON_APPEND_ARRAY_BEGIN(&planner, "rejectedPlans", &rejected);
  for (size_t i = 0; i < explain.rejected.size(); ++i) {
    std::string key = std::to_string(i);
    AppendNode(&rejected, key.c_str(), *explain.rejected[i], false, 0);
  }
  bson_append_array_end(&planner, &rejected);
  bson_append_document_end(reply, &planner);

  if (execute) {
    int64_t keys = 0, docs = 0;
    Totals(plan.get(), &keys, &docs);
    bson_t stats;
    BSON_APPEND_DOCUMENT_BEGIN(reply, "executionStats", &stats);
    BSON_APPEND_BOOL(&stats, "executionSuccess", true);
    BSON_APPEND_INT32(&stats, "nReturned", static_cast<int32_t>(result_returned));
    BSON_APPEND_INT32(&stats, "executionTimeMillis", static_cast<int32_t>(millis));
    BSON_APPEND_INT32(&stats, "totalKeysExamined", static_cast<int32_t>(keys));
    BSON_APPEND_INT32(&stats, "totalDocsExamined", static_cast<int32_t>(docs));
    AppendNode(&stats, "executionStages", *plan, true, millis);
    if (options.verbosity == ExplainVerbosity::kAllPlansExecution) {
      bson_t all;
      BSON_APPEND_ARRAY_BEGIN(&stats, "allPlansExecution", &all);
      if (!explain.rejected.empty()) {
        // The winning plan with its statistics, then each other candidate (not run).
        for (size_t i = 0; i <= explain.rejected.size(); ++i) {
          const PlanNode& node = i == 0 ? *plan : *explain.rejected[i - 1];
          int64_t k = 0, d = 0;
          Totals(&node, &k, &d);
          std::string key = std::to_string(i);
          bson_t entry;
          BSON_APPEND_DOCUMENT_BEGIN(&all, key.c_str(), &entry);
          BSON_APPEND_INT32(&entry, "nReturned",
                            static_cast<int32_t>(i == 0 ? result_returned : 0));
          BSON_APPEND_INT32(&entry, "executionTimeMillisEstimate",
                            static_cast<int32_t>(i == 0 ? millis : 0));
          BSON_APPEND_INT32(&entry, "totalKeysExamined", static_cast<int32_t>(k));
          BSON_APPEND_INT32(&entry, "totalDocsExamined", static_cast<int32_t>(d));
          AppendNode(&entry, "executionStages", node, true, i == 0 ? millis : 0);
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
