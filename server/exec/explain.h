// explain: MongoDB's explain output for find, count, distinct, update, delete and findAndModify
// at the three verbosities. The explain command (commands/explain.cc) runs the explained
// command's own handler with CommandContext::explain set; the handler parses its arguments exactly
// as it always does, then hands its query to RunExplain instead of executing it. RunExplain plans
// the query through BuildQueryStream (which records the plan as a tree of PlanNodes), runs it
// without writing anything when execution statistics are asked for, and writes {explainVersion,
// queryPlanner: {winningPlan, rejectedPlans, ...}, executionStats?, command, serverInfo,
// serverParameters}.
#pragma once

#include <bson/bson.h>

#include <memory>
#include <string>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/update/update.h"
#include "server/command.h"
#include "server/exec/index_scan.h"
#include "server/exec/stream_builder.h"

namespace cairn::server {

enum class ExplainVerbosity { kQueryPlanner, kExecutionStats, kAllPlansExecution };

// What the explain command passes to the explained command's handler.
struct ExplainOptions {
  ExplainVerbosity verbosity = ExplainVerbosity::kAllPlansExecution;
  BsonView command;         // the explained command document, as received
  bson_t* reply = nullptr;  // the explain reply (for handlers that explain from deep inside)
};

// One stage of a plan: its queryPlanner fields and, once run, its counters.
struct PlanNode {
  std::string stage;                // "COLLSCAN", "IXSCAN", "FETCH", "SORT", ...
  BsonDoc fields;                   // queryPlanner fields after "stage" (filter first, if any)
  BsonDoc exec_fields;              // fields only executionStages shows (nCounted, nMatched...)
  std::unique_ptr<PlanNode> input;  // inputStage
  std::vector<std::unique_ptr<PlanNode>> inputs;  // inputStages (OR)
  // Execution counters (filled while the query runs):
  int64_t n_returned = 0;
  // IXSCAN/COUNT_SCAN: keys, seeks, dups (and documents a covered scan had to read); FETCH:
  // documents; OR: dups and RecordIds passed on.
  IndexScanCounters scan;
  int64_t docs_examined = 0;  // COLLSCAN, IDHACK
  int64_t keys_examined = 0;  // IDHACK
  bool reports_keys = false;  // IXSCAN / IDHACK report keysExamined
  bool reports_docs = false;  // COLLSCAN / FETCH / IDHACK report docsExamined
  bool is_fetch = false;      // FETCH: documents read are in `scan`
};

// The plans BuildQueryStream considered, recorded when it is given a QueryExplain.
struct QueryExplain {
  std::unique_ptr<PlanNode> winning;
  std::vector<std::unique_ptr<PlanNode>> rejected;
  BsonDoc parsed_query;
  bool count_execution = false;  // wrap streams to count (executionStats verbosities)
  bool covered = false;          // the index keys answer the projection (PROJECTION_COVERED)
};

// The query a command would run, for RunExplain.
struct ExplainTarget {
  enum class Root { kNone, kCount, kUpdate, kDelete };
  std::string ns;
  storage::CollectionHandle collection;  // null: the collection does not exist
  const QuerySpec* query = nullptr;
  BsonView projection;  // find's projection ({} = none): PROJECTION_SIMPLE/DEFAULT
  Root root = Root::kNone;
  const query::Update* update = nullptr;  // kUpdate: counts nWouldModify
  bool upsert = false;                    // kUpdate: nWouldUpsert when nothing matches
  bool fast_count = false;                // kCount with no filter: RECORD_STORE_FAST_COUNT
};

// Counts the documents `stream` returns into node->n_returned, and the documents it examined into
// node->docs_examined (executionStats). BuildQueryStream wraps each stage it records with it.
std::unique_ptr<DocumentStream> CountInto(std::unique_ptr<DocumentStream> stream, PlanNode* node);

// A plan node with its queryPlanner fields still to fill.
std::unique_ptr<PlanNode> MakePlanNode(std::string stage, std::unique_ptr<PlanNode> input);

// Writes the explain reply for `target` at `options`' verbosity.
Status RunExplain(CommandContext& ctx, const ExplainOptions& options, const ExplainTarget& target,
                  bson_t* reply);

}  // namespace cairn::server
