// aggregate on a collection: parses the pipeline (query/pipeline), runs a leading $match through
// the server's query execution (so _id lookups are point reads), streams the rest through the
// pipeline's stages and returns results through a cursor like find. A database-level aggregate
// ({aggregate: 1}) starts from a collectionless stage ($documents, $currentOp,
// $listLocalSessions) over no input; so does a collection's pipeline that starts with a source
// stage ($collStats). $out and $merge write through exec/output_targets.h, $lookup reads through
// exec/foreign_collections.h, and $collStats, $currentOp and $listLocalSessions read the server's
// state through exec/server_sources.h; a leading $changeStream opens a change stream
// (changes/change_stream.h). explain (the argument or the explain command) shows the
// query part's plan and the stages after it (aggregate_explain.h); `hint` steers the query part.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "query/collation/collator.h"
#include "query/matcher/matcher.h"
#include "query/matcher/text_expression.h"
#include "query/pipeline/explain_stats.h"
#include "query/pipeline/pipeline.h"
#include "query/pipeline/stage_registry.h"
#include "query/pipeline/text_score_check.h"
#include "server/catalog/namespace.h"
#include "server/changes/change_stream.h"
#include "server/commands/command_args.h"
#include "server/cursor/cursor_batch.h"
#include "server/exec/aggregate_explain.h"
#include "server/exec/aggregate_memory.h"
#include "server/exec/canonical_query.h"
#include "server/exec/foreign_collections.h"
#include "server/exec/output_targets.h"
#include "server/exec/server_sources.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"

namespace cairn::server {

namespace {

// The pipeline's output seen as a cursor's DocumentStream; owns the parsed pipeline, which
// must outlive its executor. Its plan is the query that feeds the pipeline (what the profiler
// and the slow-query line report: planSummary, keys and documents examined), none when the
// pipeline generates its documents.
class PipelineStream final : public DocumentStream {
 public:
  PipelineStream(std::unique_ptr<query::Pipeline> pipeline, std::unique_ptr<DocumentStream> input,
                 bool skip_leading_match)
      : pipeline_(std::move(pipeline)),
        input_(pipeline_->starts_with_source() ? nullptr : input.get()),
        output_(pipeline_->Bind(std::move(input), skip_leading_match)) {}
  bool Next() override { return output_->Next(); }
  BsonView document() const override { return output_->document(); }
  storage::RecordId record_id() const override { return 0; }
  Status status() const override { return output_->status(); }
  size_t input_count() const override { return input_ != nullptr ? 1 : 0; }
  const PlanStage* input(size_t) const override { return input_; }

 private:
  std::unique_ptr<query::Pipeline> pipeline_;
  const DocumentStream* input_;  // owned by output_'s chain
  std::unique_ptr<query::DocumentSource> output_;
};

}  // namespace

CommandOutcome HandleAggregate(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"pipeline", kArgArray, true},
                                                      {"cursor", kArgDocument},
                                                      {"explain", kArgBool},
                                                      {"allowDiskUse", kArgBool},
                                                      {"bypassDocumentValidation", kArgBool},
                                                      {"collation", kArgDocument},
                                                      {"hint", kArgDocument | kArgString},
                                                      {"let", kArgDocument},
                                                      {"fromMongos", kArgBool},
                                                      {"needsMerge", kArgBool}}));
  const bson_iter_t& first = args.first();
  // {aggregate: 1}: a database-level aggregate, whose first stage needs no collection.
  bool collectionless = false;
  if (!BSON_ITER_HOLDS_UTF8(&first)) {
    double number = 0;
    if (!IterIsNumber(&first)) {
      return Status(
          ErrorCode::kInvalidNamespace,
          "collection name has invalid type " + std::string(BsonTypeName(bson_iter_type(&first))));
    }
    if (!IterAsDouble(&first, &number) || number != 1) {
      return Status(ErrorCode::kFailedToParse,
                    "Invalid command format: the 'aggregate' field must specify a collection "
                    "name or 1");
    }
    collectionless = true;
  }
  std::string_view collection =
      collectionless ? std::string_view("$cmd.aggregate") : IterUtf8(&first);
  if (!collectionless)
    CAIRN_RETURN_IF_ERROR(ValidateReadableCollectionName(request.db, collection));
  // explain: true is the explain command at queryPlanner verbosity (and needs no cursor).
  std::optional<ExplainOptions> explain_flag;
  if (args.GetBool("explain", false) && ctx.explain == nullptr) {
    explain_flag.emplace();
    explain_flag->verbosity = ExplainVerbosity::kQueryPlanner;
    explain_flag->command = request.body;
  }
  const ExplainOptions* explain = ctx.explain != nullptr ? ctx.explain
                                  : explain_flag         ? &*explain_flag
                                                         : nullptr;
  if (!args.Has("cursor") && explain == nullptr) {
    return Status(
        ErrorCode::kFailedToParse,
        "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  bson_iter_t cursor_options;
  int64_t batch_size = -1;
  bool has_cursor = args.Get("cursor", &cursor_options);
  bson_iter_t batch_it;
  if (has_cursor && IterDocument(&cursor_options).Find("batchSize", &batch_it)) {
    int64_t value = 0;
    double as_double = 0;
    if (!IterAsInt64(&batch_it, &value)) {
      if (!IterAsDouble(&batch_it, &as_double)) {
        return Status(ErrorCode::kTypeMismatch,
                      "BSON field 'aggregate.cursor.batchSize' is the wrong type '" +
                          std::string(BsonTypeName(bson_iter_type(&batch_it))) +
                          "', expected types '[long, int, decimal, double]'");
      }
      value = static_cast<int64_t>(as_double);
    }
    CAIRN_RETURN_IF_ERROR(CheckNonNegative("batchSize", value));
    batch_size = value;
  }
  ctx.state.opcounters().command++;

  bson_iter_t pipeline_it;
  args.Get("pipeline", &pipeline_it);
  // What the first and last stages are, from their names (query::StageTraits), as MongoDB's
  // lite-parsed pipeline knows before the stages are parsed.
  const std::string_view first_stage = query::FirstStageName(IterDocument(&pipeline_it));
  const query::StageTraits first_traits = query::TraitsOf(first_stage);
  const bool writes_output =
      query::TraitsOf(query::LastStageName(IterDocument(&pipeline_it))).writes_output;
  // Change streams read the oplog, which only a replica set has: a standalone mongod refuses
  // them before parsing the rest (DocumentSourceChangeStream's 40573). (On a primary the stage
  // registry answers for what is not built yet.)
  if (first_traits.requires_replica_set && !ctx.state.repl().primary()) {
    return Status(ErrorCode::kLocation40573,
                  "The $changeStream stage is only supported on replica sets");
  }
  // The command's `let` variables and $$NOW, for every expression of the pipeline.
  query::PipelineOptions options;
  CAIRN_ASSIGN_OR_RETURN(options.expression_context,
                         query::ExpressionContext::Make(args.GetDocument("let")));
  // Its collation, for the stages' string comparisons ($match, $sort, $group keys, ...).
  CAIRN_ASSIGN_OR_RETURN(options.expression_context,
                         query::ApplyQueryCollation(std::move(options.expression_context),
                                                    args.GetDocument("collation")));
  // Where $out and $merge write.
  options.output_targets =
      MakeOutputTargets(ctx.state.writes(), std::string(request.db),
                        args.GetBool("bypassDocumentValidation", false), ctx.interrupt);
  // What $lookup reads.
  options.foreign = MakeForeignCollections(ctx.state, ReaderFor(ctx), IdCacheFor(ctx),
                                           std::string(request.db), ctx.interrupt);
  // What $collStats, $currentOp and $listLocalSessions report, and the namespace they check.
  options.server_sources = MakeServerSources(ctx.state);
  options.db = std::string(request.db);
  if (!collectionless) options.collection = std::string(collection);
  // Where and past what $sort and $group spill.
  SetMemoryOptions(ctx.state, args.GetBool("allowDiskUse", true), &options);
  // Explain at the executionStats verbosities runs the pipeline (never one that writes) and
  // shows what its stages counted.
  if (explain != nullptr && explain->verbosity != ExplainVerbosity::kQueryPlanner &&
      !writes_output) {
    options.stats = std::make_shared<query::PipelineStats>();
  }
  if (ctx.txn != nullptr && (writes_output || first_stage == "$changeStream")) {
    const std::string stage(writes_output ? query::LastStageName(IterDocument(&pipeline_it))
                                          : first_stage);
    return Status(ErrorCode::kOperationNotSupportedInTransaction,
                  "Operation not permitted in transaction :: caused by :: Aggregation stage " +
                      stage + " cannot run within a multi-document transaction.");
  }
  // A change stream reads the oplog through a cursor of its own (changes/change_stream.h).
  if (first_stage == "$changeStream") {
    if (explain != nullptr) {
      return Status(ErrorCode::kBadValue,
                    "explain of an aggregate starting with $changeStream is not supported by "
                    "Cairn yet");
    }
    return ReplyWithChangeStream(ctx, request.db, collectionless ? "" : collection,
                                 IterDocument(&pipeline_it), options, batch_size, reply);
  }
  CAIRN_ASSIGN_OR_RETURN(query::Pipeline parsed,
                         query::Pipeline::Parse(IterDocument(&pipeline_it), options));
  if (collectionless && !first_traits.independent_of_collection) {
    return Status(ErrorCode::kInvalidNamespace,
                  first_stage.empty()
                      ? std::string("{aggregate: 1} is not valid for an empty pipeline.")
                      : "{aggregate: 1} is not valid for '" + std::string(first_stage) +
                            "'; a collection is required.");
  }
  // A writing stage runs in the first batch whatever its size (the reply's cursor is empty).
  if (writes_output) batch_size = -1;
  auto pipeline = std::make_unique<query::Pipeline>(std::move(parsed));

  // The query part: the leading $match (absorbed from the pipeline) and the hint.
  bson_iter_t hint;
  QueryRequest query_request(ctx);
  query_request.let = options.expression_context;  // the collation is already applied
  query_request.filter = pipeline->leading_match();
  query_request.hint = args.Get("hint", &hint) ? &hint : nullptr;
  CAIRN_ASSIGN_OR_RETURN(CanonicalQuery canonical, CanonicalQuery::Parse(query_request));
  const QuerySpec& spec = canonical.spec();
  // {$meta: "textScore"} needs the scores of a leading $text search (40218 before running); a
  // malformed $text is reported by the search itself.
  Result<const query::TextMatchExpression*> text = query::FindTextClause(spec.matcher->root());
  CAIRN_RETURN_IF_ERROR(
      query::CheckTextScoreAvailable(IterDocument(&pipeline_it), !text.ok() || *text != nullptr));
  std::string ns = MakeNamespace(request.db, collection);
  storage::CollectionHandle handle =
      collectionless ? nullptr : ctx.state.engine().catalog().Find(ns);
  if (explain != nullptr) {
    if (collectionless || first_traits.reports_server_state) {
      return Status(ErrorCode::kBadValue, "explain of an aggregate starting with " +
                                              std::string(first_stage) +
                                              " is not supported by Cairn yet");
    }
    ExplainTarget target;
    target.ns = ns;
    target.collection = handle;
    target.query = &spec;
    // The stages after the query part: all of them but an absorbed leading $match.
    std::vector<BsonView> rest;
    bson_iter_t stage_it;
    IterDocument(&pipeline_it).Init(&stage_it);
    bool skip = !pipeline->leading_match().empty();
    while (bson_iter_next(&stage_it)) {
      if (skip) {
        skip = false;
        continue;
      }
      if (BSON_ITER_HOLDS_DOCUMENT(&stage_it)) rest.push_back(IterDocument(&stage_it));
    }
    std::function<Status()> run;
    if (options.stats != nullptr) {
      run = [&]() -> Status {
        CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<DocumentStream> input,
                               canonical.Run(ReaderFor(ctx), handle, IdCacheFor(ctx)));
        std::unique_ptr<query::DocumentSource> out =
            pipeline->Bind(std::move(input), /*skip_leading_match=*/true);
        while (out->Next()) {
        }
        return out->status();
      };
    }
    const size_t first_position = pipeline->leading_match().empty() ? 0 : 1;
    return ExplainAggregate(ctx, *explain, target, rest, first_position, run, options.stats.get(),
                            reply);
  }
  // A pipeline that starts with a source stage ($documents, $collStats, ...) generates its
  // documents: it reads nothing of the collection, so its input is the empty stream.
  CAIRN_ASSIGN_OR_RETURN(
      std::unique_ptr<DocumentStream> input,
      canonical.Run(ReaderFor(ctx), pipeline->starts_with_source() ? nullptr : handle,
                    IdCacheFor(ctx)));

  auto cursor = std::make_unique<Cursor>();
  cursor->ns = ns;
  cursor->stream = std::make_unique<PipelineStream>(std::move(pipeline), std::move(input),
                                                    /*skip_leading_match=*/true);
  Status first_batch = ReplyWithFirstBatch(ctx, std::move(cursor), batch_size,
                                           /*single_batch=*/false, reply);
  // What the pipeline raises while it runs carries MongoDB's context (run_aggregate.cpp adds it
  // to errors from the first batch); parse errors were returned above without it.
  if (!first_batch.ok()) return first_batch.WithContext("PlanExecutor error during aggregation");
  return first_batch;
}

}  // namespace cairn::server
