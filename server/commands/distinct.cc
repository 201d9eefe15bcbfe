// distinct: the distinct values of a dotted field among documents matching query. Arrays are
// unwound (each element is a value), as MongoDB does; values are deduplicated as they are found
// by MongoDB's comparison (1 and 1.0 are one value; strings under the command's collation) and
// returned in canonical sort order.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "query/collation/collator.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/pipeline/value.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/exec/canonical_query.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"

namespace cairn::server {

namespace {

// The distinct values seen so far, in MongoDB's value order; a value equal to a stored one is
// found without being copied (query/pipeline/value.h's stored values and comparator). Under a
// collation, strings equal under it are one value: the first one met is kept.
struct DistinctValues {
  explicit DistinctValues(const StringComparator* collator)
      : ordered(query::OwnedValueLess{collator}) {}

  std::vector<std::unique_ptr<query::OwnedValue>> storage;
  std::set<const query::OwnedValue*, query::OwnedValueLess> ordered;

  void Add(const bson_iter_t* value) {
    if (ordered.find(value) != ordered.end()) return;
    storage.push_back(std::make_unique<query::OwnedValue>(value));
    ordered.insert(storage.back().get());
  }
};

// Collects the values at `path` (dotted) in `doc`, descending into arrays of documents, and
// unwinding a final array into its elements.
void CollectValues(BsonView doc, std::string_view path, DistinctValues* out) {
  size_t dot = path.find('.');
  std::string_view head = path.substr(0, dot);
  std::string_view rest = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  bson_iter_t it;
  if (!doc.Find(head, &it)) return;
  auto add = [out](const bson_iter_t* value) { out->Add(value); };
  if (rest.empty()) {
    if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_t element;
      bson_iter_recurse(&it, &element);
      while (bson_iter_next(&element)) add(&element);
    } else {
      add(&it);
    }
    return;
  }
  if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
    CollectValues(IterDocument(&it), rest, out);
  } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
    BsonView array = IterDocument(&it);
    // A numeric next component indexes the array; otherwise each document element is searched.
    size_t next_dot = rest.find('.');
    std::string_view next = rest.substr(0, next_dot);
    bool numeric = !next.empty() && std::all_of(next.begin(), next.end(), ::isdigit);
    if (numeric) {
      CollectValues(array, rest, out);
      return;
    }
    bson_iter_t element;
    bson_iter_recurse(&it, &element);
    while (bson_iter_next(&element)) {
      if (BSON_ITER_HOLDS_DOCUMENT(&element)) CollectValues(IterDocument(&element), rest, out);
    }
  }
}

}  // namespace

CommandOutcome HandleDistinct(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"key", kArgString, true},
                                                      {"query", kArgDocument | kArgNull},
                                                      {"collation", kArgDocument},
                                                      {"hint", kArgDocument | kArgString}}));
  CAIRN_RETURN_IF_ERROR(ValidateDatabaseName(request.db));
  ctx.state.opcounters().command++;
  std::string_view key = args.GetString("key");
  if (key.empty())
    return Status(ErrorCode::kBadValue, "FieldPath cannot be constructed with empty string");
  // The collation the query compares strings under, and the values are told apart by.
  bson_iter_t hint;
  QueryRequest query_request(ctx);
  query_request.collation = args.GetDocument("collation");
  query_request.filter = args.GetDocument("query");
  query_request.hint = args.Get("hint", &hint) ? &hint : nullptr;
  CAIRN_ASSIGN_OR_RETURN(CanonicalQuery canonical, CanonicalQuery::Parse(query_request));
  canonical.spec().distinct_key = key;  // DISTINCT_SCAN when an index led by the key answers it
  std::string ns = MakeNamespace(request.db, collection);
  storage::CollectionHandle handle = ctx.state.engine().catalog().Find(ns);
  const std::shared_ptr<const query::ExpressionContext>& context = canonical.context();
  DistinctValues values(context != nullptr ? context->collator() : nullptr);  // context outlives it
  if (ctx.explain != nullptr) {
    ExplainTarget target;
    target.ns = ns;
    target.collection = handle;
    return canonical.Explain(ctx, *ctx.explain, std::move(target), reply);
  }
  if (handle) {
    CAIRN_ASSIGN_OR_RETURN(auto stream, canonical.Run(ReaderFor(ctx), handle, IdCacheFor(ctx)));
    while (stream->Next()) CollectValues(stream->document(), key, &values);
    ctx.debug.AddPlan(*stream);
    CAIRN_RETURN_IF_ERROR(stream->status());
  }
  // AppendValueArray asks for the values in index order: walk the set alongside.
  query::AppendValueArray(
      reply, "values", values.ordered.size(),
      [it = values.ordered.begin()](size_t) mutable -> const query::OwnedValue& { return **it++; });
  return Status::OK();
}

}  // namespace cairn::server
