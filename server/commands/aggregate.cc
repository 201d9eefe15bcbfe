// aggregate on a collection: parses the pipeline (query/pipeline), runs a leading $match through
// the server's query execution (so _id lookups are point reads), streams the rest through the
// pipeline's stages and returns results through a cursor like find. A database-level aggregate
// ({aggregate: 1}) starts from a collectionless stage ($documents) over no input; $out and $merge
// write through aggregate_output.h. Explain answers a precise error for now.
#include <memory>
#include <string>

#include "query/collation/collator.h"
#include "query/matcher/matcher.h"
#include "query/pipeline/pipeline.h"
#include "server/commands/aggregate_foreign.h"
#include "server/commands/aggregate_output.h"
#include "server/commands/command_args.h"
#include "server/cursor_batch.h"
#include "server/namespace.h"
#include "server/query_exec.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// The pipeline's output seen as a cursor's DocumentStream; owns the parsed pipeline, which
// must outlive its executor.
class PipelineStream final : public DocumentStream {
 public:
  PipelineStream(std::unique_ptr<query::Pipeline> pipeline,
                 std::unique_ptr<DocumentStream> input, bool skip_leading_match)
      : pipeline_(std::move(pipeline)),
        output_(pipeline_->Bind(std::move(input), skip_leading_match)) {}
  bool Next() override { return output_->Next(); }
  BsonView document() const override { return output_->document(); }
  storage::RecordId record_id() const override { return 0; }
  Status status() const override { return output_->status(); }

 private:
  std::unique_ptr<query::Pipeline> pipeline_;
  std::unique_ptr<query::DocumentSource> output_;
};

// The name of the first (or last) stage of a pipeline array; empty when there is none.
std::string_view StageNameAt(BsonView pipeline, bool last) {
  std::string_view name;
  bson_iter_t it, stage;
  pipeline.Init(&it);
  while (bson_iter_next(&it)) {
    if (BSON_ITER_HOLDS_DOCUMENT(&it) && bson_iter_recurse(&it, &stage) && bson_iter_next(&stage)) {
      name = IterKey(&stage);
    }
    if (!last) break;
  }
  return name;
}

// Stages that can start a database-level aggregate (MongoDB's "independent of any collection").
bool IsCollectionlessStage(std::string_view name) {
  return name == "$documents" || name == "$listLocalSessions" || name == "$currentOp" ||
         name == "$changeStream" || name == "$listSessions";
}

}  // namespace

Status HandleAggregate(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(
      CommandArgs args,
      CommandArgs::Parse(
          request, {{"pipeline", kArgArray, true}, {"cursor", kArgDocument},
                    {"explain", kArgBool}, {"allowDiskUse", kArgBool},
                    {"bypassDocumentValidation", kArgBool}, {"collation", kArgDocument},
                    {"hint", kArgDocument | kArgString}, {"let", kArgDocument},
                    {"fromMongos", kArgBool}, {"needsMerge", kArgBool}}));
  const bson_iter_t& first = args.first();
  // {aggregate: 1}: a database-level aggregate, whose first stage needs no collection.
  bool collectionless = false;
  if (!BSON_ITER_HOLDS_UTF8(&first)) {
    double number = 0;
    if (!IterIsNumber(&first)) {
      return Status(ErrorCode::kInvalidNamespace,
                    "collection name has invalid type " +
                        std::string(BsonTypeName(bson_iter_type(&first))));
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
  if (!collectionless) CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  if (args.GetBool("explain", false)) {
    return Status(ErrorCode::kBadValue, "aggregate explain is not supported by Cairn yet");
  }
  if (!args.Has("cursor")) {
    return Status(ErrorCode::kFailedToParse,
                  "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  bson_iter_t cursor_options;
  int64_t batch_size = -1;
  args.Get("cursor", &cursor_options);
  bson_iter_t batch_it;
  if (IterDocument(&cursor_options).Find("batchSize", &batch_it)) {
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
  // The command's `let` variables and $$NOW, for every expression of the pipeline.
  query::PipelineOptions options;
  CAIRN_ASSIGN_OR_RETURN(options.expression_context,
                         query::ExpressionContext::Make(args.GetDocument("let")));
  // Its collation, for the stages' string comparisons ($match, $sort, $group keys, ...).
  CAIRN_ASSIGN_OR_RETURN(options.expression_context,
                         query::ApplyQueryCollation(std::move(options.expression_context),
                                                    args.GetDocument("collation")));
  // Where $out and $merge write.
  options.output_targets = MakeOutputTargets(ctx.state, std::string(request.db));
  // What $lookup reads.
  options.foreign = MakeForeignCollections(ctx.state, std::string(request.db));
  CAIRN_ASSIGN_OR_RETURN(query::Pipeline parsed,
                         query::Pipeline::Parse(IterDocument(&pipeline_it), options));
  std::string_view first_stage = StageNameAt(IterDocument(&pipeline_it), /*last=*/false);
  if (collectionless && !IsCollectionlessStage(first_stage)) {
    return Status(ErrorCode::kInvalidNamespace,
                  first_stage.empty()
                      ? std::string("{aggregate: 1} is not valid for an empty pipeline.")
                      : "{aggregate: 1} is not valid for '" + std::string(first_stage) +
                            "'; a collection is required.");
  }
  // A writing stage runs in the first batch whatever its size (the reply's cursor is empty).
  std::string_view last_stage = StageNameAt(IterDocument(&pipeline_it), /*last=*/true);
  if (last_stage == "$out" || last_stage == "$merge") batch_size = -1;
  auto pipeline = std::make_unique<query::Pipeline>(std::move(parsed));

  QuerySpec spec;
  CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher,
                         query::Matcher::Parse(pipeline->leading_match(), options.expression_context));
  spec.matcher = std::make_shared<const query::Matcher>(std::move(matcher));
  std::string ns = MakeNamespace(request.db, collection);
  storage::CollectionHandle handle =
      collectionless ? nullptr : ctx.state.engine().catalog().Find(ns);
  auto input = BuildQueryStream(ctx.state.engine(), handle, spec, &ctx.state.id_cache());

  auto cursor = std::make_unique<Cursor>();
  cursor->ns = ns;
  cursor->stream = std::make_unique<PipelineStream>(std::move(pipeline), std::move(input),
                                                    /*skip_leading_match=*/true);
  return ReplyWithFirstBatch(ctx.state, std::move(cursor), batch_size, /*single_batch=*/false,
                             reply);
}

}  // namespace cairn::server
