// count: documents matching query (under the command's collation), after skip and within limit.
// With no query, skip or limit it answers from the collection's maintained record count (no scan).
// The query goes through the planner (hint honoured); under explain: COUNT over the plan.
#include <string>

#include "query/collation/collator.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/exec/explain.h"
#include "server/exec/stream_builder.h"
#include "server/server_state.h"

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
  // The collation the query compares strings under.
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const query::ExpressionContext> context,
                         query::ApplyQueryCollation(nullptr, args.GetDocument("collation")));
  std::string ns = MakeNamespace(request.db, collection);
  storage::CollectionHandle handle = ctx.state.engine().catalog().Find(ns);
  CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher,
                         query::Matcher::Parse(args.GetDocument("query"), context));
  if (ctx.explain != nullptr) {
    QuerySpec spec;
    spec.matcher = std::make_shared<const query::Matcher>(std::move(matcher));
    spec.skip = skip;
    spec.limit = limit;
    spec.count_only = true;  // no document is needed: COUNT_SCAN when an index answers the query
    bson_iter_t hint;
    if (args.Get("hint", &hint)) SetQueryHint(&hint, &spec);
    ExplainTarget target;
    target.ns = ns;
    target.collection = handle;
    target.query = &spec;
    target.root = ExplainTarget::Root::kCount;
    target.fast_count = handle && spec.matcher->MatchesAll() && spec.hint.empty();
    return RunExplain(ctx, *ctx.explain, target, reply);
  }
  int64_t n = 0;
  if (handle && matcher.MatchesAll()) {
    n = std::max<int64_t>(0, ctx.state.engine().RecordCount(handle->prefix) - skip);
    if (limit > 0) n = std::min(n, limit);
  } else if (handle) {
    QuerySpec spec;
    spec.matcher = std::make_shared<const query::Matcher>(std::move(matcher));
    spec.skip = skip;
    spec.limit = limit;
    spec.count_only = true;  // no document is needed: COUNT_SCAN when an index answers the query
    bson_iter_t hint;
    if (args.Get("hint", &hint)) SetQueryHint(&hint, &spec);
    CAIRN_ASSIGN_OR_RETURN(
        auto stream, BuildQueryStream(ctx.state.engine(), handle, spec, &ctx.state.id_cache()));
    while (stream->Next()) ++n;
    CAIRN_RETURN_IF_ERROR(stream->status());
  }
  BSON_APPEND_INT32(reply, "n", static_cast<int32_t>(n));
  return Status::OK();
}

}  // namespace cairn::server
