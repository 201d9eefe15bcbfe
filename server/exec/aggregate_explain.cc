// Explain of aggregate (aggregate_explain.h): the query part through RunExplain, then the stages
// that follow it under "stages".
#include "server/exec/aggregate_explain.h"

#include <string>

namespace cairn::server {

namespace {

// {<stage>: <spec>} as given, with what the stage counted when it is a $lookup that ran, or a
// $group / $sort that ran (`spill`: MongoDB's usedDisk and spills).
void AppendStage(bson_t* array, size_t position, BsonView stage, const query::LookupStats* counted,
                 const query::SpillStats* spill) {
  std::string key = std::to_string(position);
  bson_t entry;
  bson_append_document_begin(array, key.c_str(), static_cast<int>(key.size()), &entry);
  bson_iter_t it;
  stage.Init(&it);
  while (bson_iter_next(&it)) AppendIter(&entry, IterKey(&it), &it);
  if (counted != nullptr) {
    BSON_APPEND_INT64(&entry, "nReturned", counted->n_returned);
    BSON_APPEND_INT64(&entry, "totalDocsExamined", counted->foreign_docs_examined);
    BSON_APPEND_INT64(&entry, "totalKeysExamined", counted->foreign_keys_examined);
    const bool scans = counted->index_name.empty();
    BSON_APPEND_INT64(&entry, "collectionScans", scans ? counted->foreign_reads : 0);
    bson_t used;
    BSON_APPEND_ARRAY_BEGIN(&entry, "indexesUsed", &used);
    if (!scans) BSON_APPEND_UTF8(&used, "0", counted->index_name.c_str());
    bson_append_array_end(&entry, &used);
    AppendUtf8(&entry, "strategy", counted->strategy);
  }
  if (spill != nullptr) {
    BSON_APPEND_BOOL(&entry, "usedDisk", spill->used_disk);
    BSON_APPEND_INT64(&entry, "spills", spill->spills);
  }
  bson_append_document_end(array, &entry);
}

bool IsLookup(BsonView stage) {
  bson_iter_t it;
  return stage.Init(&it) && bson_iter_next(&it) && IterKey(&it) == "$lookup";
}

std::string_view StageName(BsonView stage) {
  bson_iter_t it;
  return stage.Init(&it) && bson_iter_next(&it) ? IterKey(&it) : std::string_view();
}

// The spill counters of each stage (nullptr where there are none), when the top-level $group and
// $sort stages match the counters in number and order (a stage that desugars into them, like
// $sortByCount, adds counters no stage shows: then none are shown).
std::vector<const query::SpillStats*> MatchSpillStats(const std::vector<BsonView>& stages,
                                                      const query::PipelineStats* stats) {
  std::vector<const query::SpillStats*> matched(stages.size(), nullptr);
  if (stats == nullptr) return matched;
  size_t next = 0;
  for (size_t i = 0; i < stages.size(); ++i) {
    std::string_view name = StageName(stages[i]);
    if (name != "$group" && name != "$sort") continue;
    if (next >= stats->spilling_stages.size() || stats->spilling_stages[next].stage != name) {
      return std::vector<const query::SpillStats*>(stages.size(), nullptr);
    }
    matched[i] = &stats->spilling_stages[next++];
  }
  if (next != stats->spilling_stages.size()) {
    return std::vector<const query::SpillStats*>(stages.size(), nullptr);
  }
  return matched;
}

}  // namespace

Status ExplainAggregate(CommandContext& ctx, const ExplainOptions& options,
                        const ExplainTarget& target, const std::vector<BsonView>& stages,
                        const std::function<Status()>& run_pipeline,
                        const query::PipelineStats* stats, bson_t* reply) {
  if (stages.empty()) return RunExplain(ctx, options, target, reply);
  BsonDoc query;
  CAIRN_RETURN_IF_ERROR(RunExplain(ctx, options, target, query.get()));
  const bool executed = options.verbosity != ExplainVerbosity::kQueryPlanner && run_pipeline;
  if (executed) CAIRN_RETURN_IF_ERROR(run_pipeline());
  // The counters of each top-level $lookup, in order (when they match the stages shown).
  size_t lookups = 0;
  for (BsonView stage : stages) lookups += IsLookup(stage) ? 1 : 0;
  const bool annotate = executed && stats != nullptr && stats->lookups.size() == lookups;
  size_t next_lookup = 0;
  const std::vector<const query::SpillStats*> spills =
      MatchSpillStats(stages, executed ? stats : nullptr);

  bson_iter_t it;
  if (query.view().Find("explainVersion", &it)) AppendIter(reply, "explainVersion", &it);
  bson_t array, entry, cursor;
  BSON_APPEND_ARRAY_BEGIN(reply, "stages", &array);
  BSON_APPEND_DOCUMENT_BEGIN(&array, "0", &entry);
  BSON_APPEND_DOCUMENT_BEGIN(&entry, "$cursor", &cursor);
  for (const char* section : {"queryPlanner", "executionStats"}) {
    if (query.view().Find(section, &it)) AppendIter(&cursor, section, &it);
  }
  bson_append_document_end(&entry, &cursor);
  bson_append_document_end(&array, &entry);
  for (size_t i = 0; i < stages.size(); ++i) {
    const query::LookupStats* counted = nullptr;
    if (annotate && IsLookup(stages[i])) counted = &stats->lookups[next_lookup++];
    AppendStage(&array, i + 1, stages[i], counted, spills[i]);
  }
  bson_append_array_end(reply, &array);
  // The rest of the find-shaped reply: command, serverInfo, serverParameters.
  query.view().Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "explainVersion" || key == "queryPlanner" || key == "executionStats") continue;
    AppendIter(reply, key, &it);
  }
  return Status::OK();
}

}  // namespace cairn::server
