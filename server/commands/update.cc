// update: statements {q, u, upsert, multi, ...}; operator or replacement updates; upserts
// seeded from the filter's equalities and reported in upserted[]; no-op updates count as
// matched but not modified and write nothing; per-statement writeErrors, ordered or not.
#include <string>

#include "query/collation/collator.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/update/update.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/commands/reply.h"
#include "server/commands/retryable_write.h"
#include "server/commands/write_statements.h"
#include "server/exec/canonical_query.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"
#include "server/write/collection_writer.h"
#include "server/write/write_ops.h"

namespace cairn::server {

namespace {

// Bytes of pending writes after which a multi-update commits and goes on (each document stays
// atomic; memory stays bounded).
constexpr size_t kCommitEveryBytes = 16u << 20;

struct StatementResult {
  int64_t matched = 0;
  int64_t modified = 0;
  bool upserted = false;
  BsonDoc upserted_id;  // {_id: v}
};

Status RunStatement(CommandContext& ctx, const std::string& ns, BsonView statement,
                    const std::shared_ptr<const query::ExpressionContext>& let,
                    bool bypass_validation, RetryableWrite* retry, size_t index,
                    StatementResult* result) {
  CAIRN_ASSIGN_OR_RETURN(BsonElement q_field,
                         StatementDocumentField("update", "updates", statement, "q"));
  bson_iter_t q = q_field.iter();
  BsonView filter = IterDocument(&q);
  CAIRN_ASSIGN_OR_RETURN(BsonElement u_field, StatementDocumentField("update", "updates", statement,
                                                                     "u", /*also_array=*/true));
  bson_iter_t it = u_field.iter();
  const bool pipeline = BSON_ITER_HOLDS_ARRAY(&it);
  BsonView update_doc = IterDocument(&it);
  bool upsert = statement.Find("upsert", &it) && bson_iter_as_bool(&it);
  bool multi = statement.Find("multi", &it) && bson_iter_as_bool(&it);
  BsonView array_filters;  // checked by HandleUpdate (an array of documents)
  if (statement.Find("arrayFilters", &it)) array_filters = IterDocument(&it);
  // The statement's collation, under which its filter and its update compare strings.
  CAIRN_ASSIGN_OR_RETURN(BsonView collation,
                         StatementCollationField("update", "updates", statement));
  bson_iter_t hint;
  QueryRequest query_request(ctx);
  query_request.let = let;
  query_request.collation = collation;
  query_request.filter = filter;
  query_request.hint = statement.Find("hint", &hint) ? &hint : nullptr;
  query_request.limit = multi ? 0 : 1;
  CAIRN_ASSIGN_OR_RETURN(CanonicalQuery canonical, CanonicalQuery::Parse(query_request));
  const std::shared_ptr<const query::ExpressionContext>& context = canonical.context();
  CAIRN_ASSIGN_OR_RETURN(query::Update update,
                         pipeline ? query::Update::ParsePipeline(update_doc, array_filters, context)
                                  : query::Update::Parse(update_doc, array_filters, context));
  if (multi && update.is_replacement()) {
    return Status(ErrorCode::kFailedToParse,
                  "multi update is not supported for replacement-style update");
  }
  const QuerySpec& spec = canonical.spec();
  if (ctx.explain != nullptr) {
    ExplainTarget target;
    target.ns = ns;
    target.collection = ctx.state.engine().catalog().Find(ns);
    target.root = ExplainTarget::Root::kUpdate;
    target.update = &update;
    target.upsert = upsert;
    return canonical.Explain(ctx, *ctx.explain, std::move(target), ctx.explain->reply);
  }

  // Multi-document updates are not retryable (drivers never retry them): they run again.
  const bool recorded = retry != nullptr && !multi;
  if (recorded) {
    if (std::optional<BsonDoc> entry = retry->ExecutedEntry(index)) {
      // Executed before: the result again, from the entry it wrote (an upsert logged an insert).
      bson_iter_t op, o, id;
      result->matched = 1;
      if (entry->view().Find("op", &op) && BSON_ITER_HOLDS_UTF8(&op) && IterUtf8(&op) == "i" &&
          entry->view().Find("o", &o) && BSON_ITER_HOLDS_DOCUMENT(&o) &&
          IterDocument(&o).Find("_id", &id)) {
        result->matched = 0;
        AppendIter(result->upserted_id.get(), "_id", &id);
        result->upserted = true;
      } else {
        result->modified = 1;
      }
      return Status::OK();
    }
  }
  CAIRN_ASSIGN_OR_RETURN(
      std::unique_ptr<CollectionWriter> writer,
      CollectionWriter::Open(ctx.state.writes(), ns, /*create_if_missing=*/upsert, WritesFor(ctx)));
  writer->set_bypass_document_validation(bypass_validation);
  if (recorded) writer->set_statement(retry->Statement(index));
  if (writer->collection()) {
    // Built after the writer holds the collection lock, so it sees every committed write.
    CAIRN_ASSIGN_OR_RETURN(auto stream,
                           canonical.Run(ReaderFor(ctx), writer->collection(), IdCacheFor(ctx)));
    while (stream->Next()) {
      ++result->matched;
      BsonDoc new_doc;
      Result<bool> modified = UpdateDocument(*writer, update, stream->record_id(),
                                             stream->document(), &new_doc, spec.matcher.get());
      if (!modified.ok()) {
        // As MongoDB, which updates each document in a storage transaction of its own: the
        // documents updated before the failing one stay updated (it staged nothing itself).
        CAIRN_RETURN_IF_ERROR(writer->Commit());
        return modified.status();
      }
      if (*modified) ++result->modified;
      if (writer->pending_bytes() > kCommitEveryBytes) CAIRN_RETURN_IF_ERROR(writer->Commit());
    }
    ctx.debug.AddPlan(*stream);
    CAIRN_RETURN_IF_ERROR(stream->status());
  }
  if (result->matched == 0 && upsert) {
    CAIRN_ASSIGN_OR_RETURN(BsonDoc inserted, UpsertDocument(*writer, update, filter));
    bson_iter_t id;
    inserted.view().Find("_id", &id);
    AppendIter(result->upserted_id.get(), "_id", &id);
    result->upserted = true;
  }
  return CommitStatement(*writer, recorded ? retry : nullptr, index);
}

}  // namespace

CommandOutcome HandleUpdate(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"updates", kArgArray, true},
                                                      {"ordered", kArgBool},
                                                      {"bypassDocumentValidation", kArgBool},
                                                      {"let", kArgDocument},
                                                      {"stmtIds", kArgArray},
                                                      {"stmtId", kArgNumber}}));
  CAIRN_ASSIGN_OR_RETURN(std::vector<BsonView> statements,
                         WriteStatements(request, "updates",
                                         {"q", "u", "upsert", "multi", "arrayFilters", "hint",
                                          "collation", "c", "upsertSupplied"}));
  // Like the unknown fields, a mistyped arrayFilters or collation fails the whole command (IDL
  // parse).
  for (BsonView statement : statements) {
    bson_iter_t filters;
    if (statement.Find("arrayFilters", &filters)) {
      CAIRN_RETURN_IF_ERROR(ArrayFiltersField("update.updates.arrayFilters", &filters).status());
    }
    CAIRN_RETURN_IF_ERROR(StatementCollationField("update", "updates", statement).status());
  }
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  // A transaction stops at its first error, ordered or not (it is aborted then).
  bool ordered = args.GetBool("ordered", true) || ctx.txn != nullptr;
  const bool bypass_validation = args.GetBool("bypassDocumentValidation", false);
  // The command's `let` variables and $$NOW, shared by every statement.
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const query::ExpressionContext> let,
                         query::ExpressionContext::Make(args.GetDocument("let")));
  std::string ns = MakeNamespace(request.db, collection);
  if (ctx.explain != nullptr) {
    if (statements.size() != 1) {
      return Status(ErrorCode::kInvalidLength, "explained write batches must be of size 1");
    }
    StatementResult ignored;
    return RunStatement(ctx, ns, statements[0], let, bypass_validation, nullptr, 0, &ignored);
  }
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<RetryableWrite> retry,
                         RetryableWrite::Begin(ctx, request, args));

  int64_t n = 0, modified = 0;
  std::vector<WriteError> errors;
  std::vector<std::pair<int32_t, BsonDoc>> upserted;
  for (size_t i = 0; i < statements.size(); ++i) {
    ctx.state.opcounters().update++;
    StatementResult result;
    Status status =
        RunStatement(ctx, ns, statements[i], let, bypass_validation, retry.get(), i, &result);
    // A statement that failed counts for nothing in n and nModified, even when it updated
    // documents before its error (MongoDB reports only the statements that succeeded).
    if (status.ok()) {
      n += result.matched;
      modified += result.modified;
    }
    if (status.ok() && result.upserted) {
      ++n;
      upserted.emplace_back(static_cast<int32_t>(i), std::move(result.upserted_id));
    }
    if (!status.ok()) {
      errors.push_back({static_cast<int32_t>(i), status});
      if (ordered) break;
    }
  }
  ctx.debug.n_matched = n - static_cast<int64_t>(upserted.size());
  ctx.debug.n_modified = modified;
  ctx.debug.n_upserted = static_cast<int64_t>(upserted.size());
  AppendCount(reply, "n", n);
  AppendCount(reply, "nModified", modified);
  if (!upserted.empty()) {
    bson_t array;
    BSON_APPEND_ARRAY_BEGIN(reply, "upserted", &array);
    for (size_t i = 0; i < upserted.size(); ++i) {
      std::string key = std::to_string(i);
      bson_t entry;
      BSON_APPEND_DOCUMENT_BEGIN(&array, key.c_str(), &entry);
      BSON_APPEND_INT32(&entry, "index", upserted[i].first);
      bson_iter_t id;
      upserted[i].second.view().Find("_id", &id);
      AppendIter(&entry, "_id", &id);
      bson_append_document_end(&array, &entry);
    }
    bson_append_array_end(reply, &array);
  }
  if (!errors.empty()) CAIRN_RETURN_IF_ERROR(TransientWriteError(ctx, errors.front().status));
  AppendWriteErrors(reply, errors);
  return Status::OK();
}

}  // namespace cairn::server
