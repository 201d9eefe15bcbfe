// aggregate on a collection: parses the pipeline (query/pipeline), runs a leading $match through
// the server's query execution (so _id lookups are point reads), streams the rest through the
// pipeline's stages and returns results through a cursor like find. Database-level aggregates
// ({aggregate: 1}) and explain come with the aggregation issue and answer precise errors now.
#include <memory>
#include <string>

#include "query/collation/collator.h"
#include "query/matcher/matcher.h"
#include "query/pipeline/pipeline.h"
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
  if (!BSON_ITER_HOLDS_UTF8(&first)) {
    if (IterIsNumber(&first)) {
      return Status(ErrorCode::kBadValue,
                    "database-level aggregate ({aggregate: 1}) is not supported by Cairn yet");
    }
    return Status(ErrorCode::kInvalidNamespace,
                  "collection name has invalid type " +
                      std::string(BsonTypeName(bson_iter_type(&first))));
  }
  std::string_view collection = IterUtf8(&first);
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
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
  CAIRN_ASSIGN_OR_RETURN(query::Pipeline parsed,
                         query::Pipeline::Parse(IterDocument(&pipeline_it), options));
  auto pipeline = std::make_unique<query::Pipeline>(std::move(parsed));

  QuerySpec spec;
  CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher,
                         query::Matcher::Parse(pipeline->leading_match(), options.expression_context));
  spec.matcher = std::make_shared<const query::Matcher>(std::move(matcher));
  std::string ns = MakeNamespace(request.db, collection);
  storage::CollectionHandle handle = ctx.state.engine().catalog().Find(ns);
  auto input = BuildQueryStream(ctx.state.engine(), handle, spec, &ctx.state.id_cache());

  auto cursor = std::make_unique<Cursor>();
  cursor->ns = ns;
  cursor->stream = std::make_unique<PipelineStream>(std::move(pipeline), std::move(input),
                                                    /*skip_leading_match=*/true);
  return ReplyWithFirstBatch(ctx.state, std::move(cursor), batch_size, /*single_batch=*/false,
                             reply);
}

}  // namespace cairn::server
