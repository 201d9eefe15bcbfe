// CanonicalQuery (canonical_query.h): one parse of a query's arguments.
#include "server/exec/canonical_query.h"

#include "query/collation/collator.h"

namespace cairn::server {

namespace {

// {$natural: 1|-1} sorts read in (reverse) insertion order.
bool IsNaturalOrder(BsonView spec, bool* reverse) {
  bson_iter_t it;
  if (!spec.Init(&it) || !bson_iter_next(&it) || IterKey(&it) != "$natural") return false;
  double direction = 1;
  IterAsDouble(&it, &direction);
  *reverse = direction < 0;
  return !bson_iter_next(&it);
}

}  // namespace

Result<CanonicalQuery> CanonicalQuery::Parse(const QueryRequest& request) {
  CanonicalQuery parsed;
  CAIRN_ASSIGN_OR_RETURN(parsed.context_,
                         query::ApplyQueryCollation(request.let, request.collation));
  CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher,
                         query::Matcher::Parse(request.filter, parsed.context_));
  QuerySpec& spec = parsed.spec_;
  spec.matcher = std::make_shared<const query::Matcher>(std::move(matcher));
  bool natural_sort = false;
  bool reverse = false;
  if (IsNaturalOrder(request.sort, &reverse)) {
    natural_sort = true;
  } else if (!request.sort.empty()) {
    CAIRN_ASSIGN_OR_RETURN(
        query::SortPattern pattern,
        query::SortPattern::Parse(request.sort, parsed.context_ != nullptr
                                                    ? parsed.context_->shared_collator()
                                                    : nullptr));
    spec.sort = std::make_shared<const query::SortPattern>(std::move(pattern));
  }
  // An unknown index fails when the query is planned, as in MongoDB. A {$natural} hint sets
  // the direction only when no sort does.
  if (request.hint != nullptr) SetQueryHint(request.hint, &spec);
  if (natural_sort) spec.reverse_natural = reverse;
  spec.skip = request.skip;
  spec.limit = request.limit;
  spec.interrupt = request.interrupt;
  return parsed;
}

Result<std::unique_ptr<DocumentStream>> CanonicalQuery::Run(
    const storage::Reader& reader, const storage::CollectionHandle& collection,
    IdCache* id_cache) const {
  return BuildQueryStream(reader, collection, spec_, id_cache);
}

Status CanonicalQuery::Explain(CommandContext& ctx, const ExplainOptions& options,
                               ExplainTarget target, bson_t* reply) const {
  target.query = &spec_;
  return RunExplain(ctx, options, target, reply);
}

}  // namespace cairn::server
