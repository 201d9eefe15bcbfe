// find: filter, projection, sort, skip, limit, batchSize, singleBatch. Streams results through
// a cursor (first batch 101 documents or 16 MiB); a filter pinning _id is a point lookup.
// collation applies to the filter and the sort. Options that need later issues (tailable,
// min/max, returnKey, showRecordId) are refused with precise errors. Under explain, answers with
// the plan (server/explain.h).
#include <algorithm>
#include <string>

#include "query/collation/collator.h"
#include "query/expression/expression.h"
#include "query/projection/projection.h"
#include "server/commands/command_args.h"
#include "server/cursor_batch.h"
#include "server/explain.h"
#include "server/namespace.h"
#include "server/query_exec.h"
#include "server/sort_stream.h"

namespace cairn::server {

namespace {

// {$natural: 1|-1} sorts and hints read in (reverse) insertion order.
bool IsNaturalOrder(BsonView spec, bool* reverse) {
  bson_iter_t it;
  if (!spec.Init(&it) || !bson_iter_next(&it) || IterKey(&it) != "$natural") return false;
  double direction = 1;
  IterAsDouble(&it, &direction);
  *reverse = direction < 0;
  return !bson_iter_next(&it);
}

}  // namespace

Status HandleFind(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(
      CommandArgs args,
      CommandArgs::Parse(
          request,
          {{"filter", kArgDocument}, {"projection", kArgDocument}, {"sort", kArgDocument},
           {"hint", kArgDocument | kArgString}, {"skip", kArgNumber}, {"limit", kArgNumber},
           {"batchSize", kArgNumber}, {"singleBatch", kArgBool}, {"max", kArgDocument},
           {"min", kArgDocument}, {"returnKey", kArgBool}, {"showRecordId", kArgBool},
           {"tailable", kArgBool}, {"oplogReplay", kArgBool}, {"noCursorTimeout", kArgBool},
           {"awaitData", kArgBool}, {"allowPartialResults", kArgBool},
           {"collation", kArgDocument}, {"allowDiskUse", kArgBool}, {"let", kArgDocument},
           {"readOnce", kArgBool}, {"term", kArgNumber}}));
  ctx.state.opcounters().query++;
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  CAIRN_RETURN_IF_ERROR(CheckNonNegative("skip", args.GetInt("skip", 0)));
  CAIRN_RETURN_IF_ERROR(CheckNonNegative("limit", args.GetInt("limit", 0)));
  CAIRN_RETURN_IF_ERROR(CheckNonNegative("batchSize", args.GetInt("batchSize", 0)));
  for (std::string_view unsupported : {"max", "min"}) {
    if (args.Has(unsupported) && !args.GetDocument(unsupported).empty()) {
      return Status(ErrorCode::kBadValue,
                    "find option '" + std::string(unsupported) + "' is not supported by Cairn yet");
    }
  }
  for (std::string_view unsupported : {"returnKey", "showRecordId", "tailable", "awaitData"}) {
    if (args.GetBool(unsupported, false)) {
      if (unsupported == "tailable" || unsupported == "awaitData") {
        return Status(ErrorCode::kBadValue,
                      "error processing query: tailable cursor requested on non capped collection");
      }
      return Status(ErrorCode::kBadValue,
                    "find option '" + std::string(unsupported) + "' is not supported by Cairn yet");
    }
  }

  QuerySpec spec;
  // The command's `let` variables and $$NOW, for $expr.
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const query::ExpressionContext> let,
                         query::ExpressionContext::Make(args.GetDocument("let")));
  // Its collation, under which the filter and the sort compare strings.
  CAIRN_ASSIGN_OR_RETURN(let, query::ApplyQueryCollation(let, args.GetDocument("collation")));
  CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher,
                         query::Matcher::Parse(args.GetDocument("filter"), let));
  spec.matcher = std::make_shared<const query::Matcher>(std::move(matcher));
  BsonView sort = args.GetDocument("sort");
  bool reverse = false;
  if (IsNaturalOrder(sort, &reverse)) {
    spec.reverse_natural = reverse;
  } else if (!sort.empty()) {
    CAIRN_ASSIGN_OR_RETURN(query::SortPattern pattern,
                           query::SortPattern::Parse(sort, let->shared_collator()));
    spec.sort = std::make_shared<const query::SortPattern>(std::move(pattern));
  }
  std::string ns = MakeNamespace(request.db, collection);
  storage::CollectionHandle handle = ctx.state.engine().catalog().Find(ns);
  bson_iter_t hint;
  if (args.Get("hint", &hint)) {
    bool natural_reverse = false;
    if (BSON_ITER_HOLDS_DOCUMENT(&hint) && IsNaturalOrder(IterDocument(&hint), &natural_reverse)) {
      if (sort.empty()) spec.reverse_natural = natural_reverse;
      spec.hint.natural = true;
    } else {
      // An unknown index fails when the query is planned (BuildQueryStream), as in MongoDB.
      SetQueryHint(&hint, &spec);
    }
  }
  spec.skip = args.GetInt("skip", 0);
  spec.limit = args.GetInt("limit", 0);
  if (args.GetBool("allowDiskUse", true)) spec.spill_dir = SpillDirectory(ctx.state.options().dbpath);

  auto cursor = std::make_unique<Cursor>();
  cursor->ns = ns;
  BsonView projection = args.GetDocument("projection");
  if (!projection.empty()) {
    CAIRN_ASSIGN_OR_RETURN(query::Projection parsed,
                           query::Projection::ParseFind(projection, spec.matcher));
    cursor->projection.emplace(std::move(parsed));
  }
  if (ctx.explain != nullptr) {
    ExplainTarget target;
    target.ns = ns;
    target.collection = handle;
    target.query = &spec;
    target.projection = projection;
    return RunExplain(ctx, *ctx.explain, target, reply);
  }
  cursor->stream = BuildQueryStream(ctx.state.engine(), handle, spec, &ctx.state.id_cache());

  bool single_batch = args.GetBool("singleBatch", false);
  int64_t batch_size = args.Has("batchSize") ? args.GetInt("batchSize", 0) : -1;
  cursor->limit = spec.limit;
  if (spec.limit > 0) {
    if (batch_size < 0) batch_size = std::min(kDefaultFirstBatchDocs, spec.limit);
    if (batch_size > spec.limit) batch_size = spec.limit;
  }
  return ReplyWithFirstBatch(ctx.state, std::move(cursor), batch_size, single_batch, reply);
}

}  // namespace cairn::server
