// delete: statements {q, limit: 0|1}; each matching document and its index entries removed in
// the statement's atomic write; per-statement writeErrors, ordered or not.
#include <string>

#include "query/matcher/matcher.h"
#include "server/collection_writer.h"
#include "server/commands/command_args.h"
#include "server/namespace.h"
#include "server/query_exec.h"
#include "server/reply.h"
#include "server/write_batch.h"

namespace cairn::server {

namespace {

constexpr size_t kCommitEveryBytes = 16u << 20;

Status RunStatement(CommandContext& ctx, const std::string& ns, BsonView statement,
                    int64_t* deleted) {
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
    return Status(ErrorCode::kFailedToParse,
                  "The limit field in delete objects must be 0 or 1. Got " + ValueToShellString(&it));
  }
  if (statement.Find("collation", &it) && BSON_ITER_HOLDS_DOCUMENT(&it) &&
      !IterDocument(&it).empty()) {
    return Status(ErrorCode::kBadValue, "collation is not supported by Cairn yet");
  }
  CAIRN_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter));
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<CollectionWriter> writer,
                         CollectionWriter::Open(ctx.state, ns, /*create_if_missing=*/false));
  if (!writer->collection()) return Status::OK();
  QuerySpec spec;
  spec.matcher = std::make_shared<const query::Matcher>(std::move(matcher));
  spec.limit = limit;
  auto stream = BuildQueryStream(ctx.state.engine(), writer->collection(), spec, &ctx.state.id_cache());
  while (stream->Next()) {
    CAIRN_RETURN_IF_ERROR(writer->Remove(stream->record_id(), stream->document()));
    ++*deleted;
    if (writer->pending_bytes() > kCommitEveryBytes) CAIRN_RETURN_IF_ERROR(writer->Commit());
  }
  CAIRN_RETURN_IF_ERROR(stream->status());
  return writer->Commit();
}

}  // namespace

Status HandleDelete(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(
      CommandArgs args,
      CommandArgs::Parse(request, {{"deletes", kArgArray, true}, {"ordered", kArgBool},
                                   {"let", kArgDocument}, {"stmtIds", kArgArray},
                                   {"stmtId", kArgNumber}}));
  CAIRN_ASSIGN_OR_RETURN(std::vector<BsonView> statements, WriteStatements(
      request, "deletes", {"q", "limit", "hint", "collation"}));
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  bool ordered = args.GetBool("ordered", true);
  std::string ns = MakeNamespace(request.db, collection);
  int64_t n = 0;
  std::vector<WriteError> errors;
  for (size_t i = 0; i < statements.size(); ++i) {
    ctx.state.opcounters().remove++;
    Status status = RunStatement(ctx, ns, statements[i], &n);
    if (!status.ok()) {
      errors.push_back({static_cast<int32_t>(i), status});
      if (ordered) break;
    }
  }
  AppendCount(reply, "n", n);
  AppendWriteErrors(reply, errors);
  return Status::OK();
}

}  // namespace cairn::server
