// CanonicalQuery: a command's query arguments parsed once into the typed request every query
// command runs (MongoDB's CanonicalQuery, FerretDB's FindParams). find, count, distinct, update,
// delete, findAndModify and aggregate's leading $match hand it their filter, sort, hint,
// collation, `let` and limits; it applies the collation to the `let` context, parses the filter
// and the sort under it (a {$natural: ±1} sort reads in insertion order), reads the hint, and
// offers two entry points: Run (the plan's stream) and Explain (explain.h). Parse errors come
// back in the order MongoDB reports them: `let` (by the caller), collation, filter, sort.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <memory>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/expression/expression.h"
#include "server/command.h"
#include "server/exec/explain.h"
#include "server/exec/stream_builder.h"

namespace cairn::server {

// The query arguments as a command carries them (views on the command's bytes). Made from the
// command's context, so the query's scans are always interrupted through the command's slot.
struct QueryRequest {
  explicit QueryRequest(const CommandContext& ctx) : interrupt(ctx.interrupt) {}

  // The command's `let` variables and $$NOW (ExpressionContext::Make); null: none.
  std::shared_ptr<const query::ExpressionContext> let;
  BsonView collation;                 // {}: the simple collation
  BsonView filter;                    // {}: every document
  BsonView sort;                      // {}: none
  const bson_iter_t* hint = nullptr;  // a name, a key pattern or {$natural: ±1}; null: none
  int64_t skip = 0;
  int64_t limit = 0;  // 0: none
  // The command's interrupt slot (CommandContext::interrupt), for the query's scans.
  std::shared_ptr<const InterruptSlot> interrupt;
};

class CanonicalQuery {
 public:
  static Result<CanonicalQuery> Parse(const QueryRequest& request);

  // The context the filter and sort were parsed under (`let` with the collation applied), for
  // what the command parses beside them (a projection, an update).
  const std::shared_ptr<const query::ExpressionContext>& context() const { return context_; }
  // The typed request; commands add what only they ask (count_only, distinct_key, min/max...).
  const QuerySpec& spec() const { return spec_; }
  QuerySpec& spec() { return spec_; }

  // The plan's stream over `collection` (null: a collection that does not exist).
  Result<std::unique_ptr<DocumentStream>> Run(const storage::Reader& reader,
                                              const storage::CollectionHandle& collection,
                                              IdCache* id_cache) const;
  // The explain reply for this query under `target`'s root (COUNT, UPDATE, DELETE...).
  Status Explain(CommandContext& ctx, const ExplainOptions& options, ExplainTarget target,
                 bson_t* reply) const;

 private:
  std::shared_ptr<const query::ExpressionContext> context_;
  QuerySpec spec_;
};

}  // namespace cairn::server
