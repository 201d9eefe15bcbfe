// count: documents matching query (under the command's collation), after skip and within limit.
// With no query, skip or limit it answers from the collection's maintained record count (no scan).
// The query goes through the planner (hint honoured); under explain: COUNT over the plan.
#include <string>

#include "query/collation/collator.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/exec/canonical_query.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"

namespace cairn::server {

CommandOutcome HandleCount(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"query", kArgDocument | kArgNull},
                                                      {"limit", kArgNumber},
                                                      {"skip", kArgNumber},
                                                      {"hint", kArgDocument | kArgString},
                                                      {"collation", kArgDocument},
                                                      {"fields", kArgDocument}}));
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(request.db));
  ctx.state.opcounters().command++;
  int64_t skip = args.GetInt("skip", 0);
  int64_t limit = args.GetInt("limit", 0);
  CAIRN_RETURN_IF_ERROR(CheckNonNegative("skip", skip));
  if (limit < 0) limit = -limit;  // count treats a negative limit as its absolute value
  bson_iter_t hint;
  QueryRequest query_request(ctx);
  query_request.collation = args.GetDocument("collation");
  query_request.filter = args.GetDocument("query");
  query_request.hint = args.Get("hint", &hint) ? &hint : nullptr;
  query_request.skip = skip;
  query_request.limit = limit;
  CAIRN_ASSIGN_OR_RETURN(CanonicalQuery canonical, CanonicalQuery::Parse(query_request));
  canonical.spec().count_only = true;  // no document is needed: COUNT_SCAN when an index answers
  std::string ns = MakeNamespace(request.db, collection);
  storage::CollectionHandle handle = ctx.state.engine().catalog().Find(ns);
  const bool count_all = canonical.spec().matcher->MatchesAll();
  if (ctx.explain != nullptr) {
    ExplainTarget target;
    target.ns = ns;
    target.collection = handle;
    target.root = ExplainTarget::Root::kCount;
    target.fast_count = handle && count_all && canonical.spec().hint.empty();
    return canonical.Explain(ctx, *ctx.explain, std::move(target), reply);
  }
  int64_t n = 0;
  if (handle && count_all) {
    n = std::max<int64_t>(0, ctx.state.engine().RecordCount(handle->prefix) - skip);
    if (limit > 0) n = std::min(n, limit);
    ctx.debug.keys_examined = ctx.debug.docs_examined = 0;
    ctx.debug.plan_summary = StageName(StageType::kRecordStoreFastCount);
  } else if (handle) {
    CAIRN_ASSIGN_OR_RETURN(auto stream, canonical.Run(ReaderFor(ctx), handle, IdCacheFor(ctx)));
    while (stream->Next()) ++n;
    ctx.debug.AddPlan(*stream);
    CAIRN_RETURN_IF_ERROR(stream->status());
  }
  BSON_APPEND_INT32(reply, "n", static_cast<int32_t>(n));
  return Status::OK();
}

}  // namespace cairn::server
