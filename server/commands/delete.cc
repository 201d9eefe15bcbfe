// delete: statements {q, limit: 0|1}; each matching document and its index entries removed in
// the statement's atomic write; per-statement writeErrors, ordered or not. A statement's hint
// picks its index; under explain (one statement) the plan is answered under a DELETE stage.
#include <string>

#include "query/collation/collator.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/commands/reply.h"
#include "server/commands/retryable_write.h"
#include "server/commands/write_statements.h"
#include "server/exec/canonical_query.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"
#include "server/write/collection_writer.h"

namespace cairn::server {

namespace {

constexpr size_t kCommitEveryBytes = 16u << 20;

Status RunStatement(CommandContext& ctx, const std::string& ns, BsonView statement,
                    const std::shared_ptr<const query::ExpressionContext>& let,
                    RetryableWrite* retry, size_t index, int64_t* deleted) {
  CAIRN_ASSIGN_OR_RETURN(BsonElement q_field,
                         StatementDocumentField("delete", "deletes", statement, "q"));
  bson_iter_t q = q_field.iter();
  BsonView filter = IterDocument(&q);
  bson_iter_t it;
  if (!statement.Find("limit", &it)) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'delete.deletes.limit' is missing but a required field");
  }
  int64_t limit = 0;
  if (!IterAsInt64(&it, &limit) || (limit != 0 && limit != 1)) {
    return Status(
        ErrorCode::kFailedToParse,
        "The limit field in delete objects must be 0 or 1. Got " + ValueToShellString(&it));
  }
  // The statement's collation, under which its filter compares strings.
  CAIRN_ASSIGN_OR_RETURN(BsonView collation,
                         StatementCollationField("delete", "deletes", statement));
  QueryRequest query_request(ctx);
  query_request.let = let;
  query_request.collation = collation;
  query_request.filter = filter;
  query_request.hint = statement.Find("hint", &it) ? &it : nullptr;
  query_request.limit = limit;
  CAIRN_ASSIGN_OR_RETURN(CanonicalQuery canonical, CanonicalQuery::Parse(query_request));
  if (ctx.explain != nullptr) {
    ExplainTarget target;
    target.ns = ns;
    target.collection = ctx.state.engine().catalog().Find(ns);
    target.root = ExplainTarget::Root::kDelete;
    return canonical.Explain(ctx, *ctx.explain, std::move(target), ctx.explain->reply);
  }
  // A retried single delete that executed already deleted its document: n is 1 again.
  if (retry && limit == 1 && retry->Executed(index)) {
    ++*deleted;
    return Status::OK();
  }
  CAIRN_ASSIGN_OR_RETURN(
      std::unique_ptr<CollectionWriter> writer,
      CollectionWriter::Open(ctx.state.writes(), ns, /*create_if_missing=*/false, WritesFor(ctx)));
  if (!writer->collection()) return Status::OK();
  const bool recorded = retry && limit == 1;  // multi-document deletes are not retryable
  if (recorded) writer->set_statement(retry->Statement(index));
  CAIRN_ASSIGN_OR_RETURN(auto stream,
                         canonical.Run(ReaderFor(ctx), writer->collection(), IdCacheFor(ctx)));
  while (stream->Next()) {
    CAIRN_RETURN_IF_ERROR(writer->Remove(stream->record_id(), stream->document()));
    ++*deleted;
    if (writer->pending_bytes() > kCommitEveryBytes) CAIRN_RETURN_IF_ERROR(writer->Commit());
  }
  ctx.debug.AddPlan(*stream);
  CAIRN_RETURN_IF_ERROR(stream->status());
  return CommitStatement(*writer, recorded ? retry : nullptr, index);
}

}  // namespace

CommandOutcome HandleDelete(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"deletes", kArgArray, true},
                                                      {"ordered", kArgBool},
                                                      {"let", kArgDocument},
                                                      {"stmtIds", kArgArray},
                                                      {"stmtId", kArgNumber}}));
  CAIRN_ASSIGN_OR_RETURN(std::vector<BsonView> statements,
                         WriteStatements(request, "deletes", {"q", "limit", "hint", "collation"}));
  // Like the unknown fields, a mistyped collation fails the whole command (IDL parse).
  for (BsonView statement : statements) {
    CAIRN_RETURN_IF_ERROR(StatementCollationField("delete", "deletes", statement).status());
  }
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  // A transaction stops at its first error, ordered or not (it is aborted then).
  bool ordered = args.GetBool("ordered", true) || ctx.txn != nullptr;
  // The command's `let` variables and $$NOW, shared by every statement's $expr.
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const query::ExpressionContext> let,
                         query::ExpressionContext::Make(args.GetDocument("let")));
  std::string ns = MakeNamespace(request.db, collection);
  int64_t n = 0;
  if (ctx.explain != nullptr) {
    if (statements.size() != 1) {
      return Status(ErrorCode::kInvalidLength, "explained write batches must be of size 1");
    }
    return RunStatement(ctx, ns, statements[0], let, nullptr, 0, &n);
  }
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<RetryableWrite> retry,
                         RetryableWrite::Begin(ctx, request, args));
  std::vector<WriteError> errors;
  for (size_t i = 0; i < statements.size(); ++i) {
    ctx.state.opcounters().remove++;
    Status status = RunStatement(ctx, ns, statements[i], let, retry.get(), i, &n);
    if (!status.ok()) {
      errors.push_back({static_cast<int32_t>(i), status});
      if (ordered) break;
    }
  }
  ctx.debug.n_deleted = n;
  AppendCount(reply, "n", n);
  if (!errors.empty()) CAIRN_RETURN_IF_ERROR(TransientWriteError(ctx, errors.front().status));
  AppendWriteErrors(reply, errors);
  return Status::OK();
}

}  // namespace cairn::server
