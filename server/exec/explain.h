// explain: MongoDB's explain output for find, count, distinct, update, delete and findAndModify
// at the three verbosities. The explain command (commands/explain.cc) runs the explained
// command's own handler with CommandContext::explain set; the handler parses its arguments exactly
// as it always does, then hands its query to RunExplain instead of executing it. RunExplain plans
// the query (PlanQuery), runs the plan's stream without writing anything when execution
// statistics are asked for, and writes {explainVersion, queryPlanner: {winningPlan,
// rejectedPlans, ...}, executionStats?, command, serverInfo, serverParameters} by walking the
// executed stream's stages (plan_stage.h) below the command's own root stage (COUNT, UPDATE,
// DELETE, a projection).
#pragma once

#include <bson/bson.h>

#include <memory>
#include <string>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/update/update.h"
#include "server/command.h"
#include "server/exec/stream_builder.h"

namespace cairn::server {

enum class ExplainVerbosity { kQueryPlanner, kExecutionStats, kAllPlansExecution };

// What the explain command passes to the explained command's handler.
struct ExplainOptions {
  ExplainVerbosity verbosity = ExplainVerbosity::kAllPlansExecution;
  BsonView command;         // the explained command document, as received
  bson_t* reply = nullptr;  // the explain reply (for handlers that explain from deep inside)
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

// Writes the explain reply for `target` at `options`' verbosity.
Status RunExplain(CommandContext& ctx, const ExplainOptions& options, const ExplainTarget& target,
                  bson_t* reply);

}  // namespace cairn::server
