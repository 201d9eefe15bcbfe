// insert: documents from the body or an OP_MSG kind-1 sequence; _id generated first when
// missing; ordered stops at the first error, unordered goes on; every error reported in
// writeErrors with its index. All accepted documents commit in one atomic WriteBatch.
#include <string>

#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/commands/reply.h"
#include "server/commands/retryable_write.h"
#include "server/commands/write_statements.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"
#include "server/write/collection_writer.h"

namespace cairn::server {

CommandOutcome HandleInsert(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"documents", kArgArray, true},
                                                      {"ordered", kArgBool},
                                                      {"bypassDocumentValidation", kArgBool},
                                                      {"let", kArgDocument},
                                                      {"stmtIds", kArgArray},
                                                      {"stmtId", kArgNumber}}));
  CAIRN_ASSIGN_OR_RETURN(std::vector<BsonView> documents, WriteStatements(request, "documents"));
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  // A transaction stops at its first error, ordered or not (it is aborted then).
  bool ordered = args.GetBool("ordered", true) || ctx.txn != nullptr;
  std::string ns = MakeNamespace(request.db, collection);
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<RetryableWrite> retry,
                         RetryableWrite::Begin(ctx, request, args));

  Result<std::unique_ptr<CollectionWriter>> opened =
      CollectionWriter::Open(ctx.state.writes(), ns, /*create_if_missing=*/true, WritesFor(ctx));
  if (!opened.ok() && opened.status().code() == ErrorCode::kOperationNotSupportedInTransaction) {
    // A capped collection in a transaction: mongod refuses the first statement as a write error.
    AppendCount(reply, "n", 0);
    AppendWriteErrors(reply, {{0, opened.status()}});
    return Status::OK();
  }
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<CollectionWriter> writer, std::move(opened));
  writer->set_bypass_document_validation(args.GetBool("bypassDocumentValidation", false));
  // Shape every document first, then probe all their _ids in one batched read (valid for the
  // whole command: it commits once, at the end).
  std::vector<std::optional<BsonDoc>> rewritten(documents.size());
  std::vector<Result<BsonView>> prepared;
  prepared.reserve(documents.size());
  std::vector<BsonView> ready;
  ready.reserve(documents.size());
  for (size_t i = 0; i < documents.size(); ++i) {
    prepared.push_back(PrepareForInsert(documents[i], &rewritten[i]));
    if (prepared.back().ok()) ready.push_back(prepared.back().value());
  }
  CAIRN_ASSIGN_OR_RETURN(CollectionWriter::IdProbes probes, writer->ProbeIds(ready));
  size_t next_ready = 0;  // `probes` follows the order of `ready`

  std::vector<WriteError> errors;
  int64_t inserted = 0;
  for (size_t i = 0; i < documents.size(); ++i) {
    ctx.state.opcounters().insert++;
    if (retry && retry->Executed(i)) {  // a retried statement: inserted before, not again
      if (prepared[i].ok()) ++next_ready;
      ++inserted;
      continue;
    }
    if (retry) writer->set_statement(retry->Statement(i));
    Status status = prepared[i].ok() ? writer->Insert(prepared[i].value(), probes, next_ready++)
                                     : prepared[i].status();
    if (retry && status.ok()) retry->Note(i, writer->last_oplog_ts());
    if (!status.ok()) {
      errors.push_back({static_cast<int32_t>(i), status});
      if (ordered) break;
      continue;
    }
    ++inserted;
  }
  if (retry && retry->has_noted()) CAIRN_RETURN_IF_ERROR(retry->OnPrimaryWrite());
  CAIRN_RETURN_IF_ERROR(writer->Commit());
  if (retry) retry->Committed();
  ctx.debug.n_inserted = inserted;
  AppendCount(reply, "n", inserted);
  if (!errors.empty()) CAIRN_RETURN_IF_ERROR(TransientWriteError(ctx, errors.front().status));
  AppendWriteErrors(reply, errors);
  return Status::OK();
}

}  // namespace cairn::server
