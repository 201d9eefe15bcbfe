// Explain of aggregate (aggregate_explain.h): the query part through RunExplain, then the stages
// that follow it under "stages".
#include "server/exec/aggregate_explain.h"

#include <deque>
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

// The one element of `all` filed under `position` (null when none, or when a stage that
// desugared into several left more than one there: their counters are not the stage's).
template <typename Stats>
const Stats* AtPosition(const std::deque<Stats>& all, size_t position) {
  const Stats* found = nullptr;
  for (const Stats& stats : all) {
    if (stats.position != position) continue;
    if (found != nullptr) return nullptr;
    found = &stats;
  }
  return found;
}

}  // namespace

Status ExplainAggregate(CommandContext& ctx, const ExplainOptions& options,
                        const ExplainTarget& target, const std::vector<BsonView>& stages,
                        size_t first_position, const std::function<Status()>& run_pipeline,
                        const query::PipelineStats* stats, bson_t* reply) {
  if (stages.empty()) return RunExplain(ctx, options, target, reply);
  BsonDoc query;
  CAIRN_RETURN_IF_ERROR(RunExplain(ctx, options, target, query.get()));
  const bool executed = options.verbosity != ExplainVerbosity::kQueryPlanner && run_pipeline;
  if (executed) CAIRN_RETURN_IF_ERROR(run_pipeline());
  if (!executed) stats = nullptr;

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
    const size_t position = first_position + i;
    const query::LookupStats* counted =
        stats != nullptr ? AtPosition(stats->lookups, position) : nullptr;
    const query::SpillStats* spill =
        stats != nullptr ? AtPosition(stats->spilling_stages, position) : nullptr;
    AppendStage(&array, i + 1, stages[i], counted, spill);
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
