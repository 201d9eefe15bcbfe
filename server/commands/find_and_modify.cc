// findAndModify: finds the first document (by sort) matching query and removes it, or updates
// it (operator or replacement document) returning the old or new version (`new`), with upsert;
// fields projects the returned document. Reply {lastErrorObject: {n, updatedExisting,
// upserted}, value}.
#include <string>

#include "query/collation/collator.h"
#include "query/expression/expression.h"
#include "query/matcher/matcher.h"
#include "query/projection/projection.h"
#include "query/sort/sort_pattern.h"
#include "query/update/update.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/commands/retryable_write.h"
#include "server/commands/write_statements.h"
#include "server/exec/canonical_query.h"
#include "server/server_state.h"
#include "server/txn/transaction_scope.h"
#include "server/write/collection_writer.h"
#include "server/write/write_ops.h"

namespace cairn::server {

namespace {

Status FailedToParse(std::string message) {
  return Status(ErrorCode::kFailedToParse, std::move(message));
}

// The document to return, projected by `fields`. A positional projection can fail (51246):
// that happens before the write commits, so the write is undone as in MongoDB.
Status ProjectValue(const std::optional<query::Projection>& fields, BsonDoc* doc) {
  if (!fields || fields->IsIdentity()) return Status::OK();
  BsonDoc projected;
  CAIRN_RETURN_IF_ERROR(fields->Apply(doc->view(), projected.get()));
  *doc = std::move(projected);
  return Status::OK();
}

}  // namespace

CommandOutcome HandleFindAndModify(CommandContext& ctx, const CommandRequest& request,
                                   bson_t* reply) {
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"query", kArgDocument | kArgNull},
                                                      {"sort", kArgDocument | kArgNull},
                                                      {"remove", kArgBool},
                                                      {"update", kArgDocument | kArgArray},
                                                      {"new", kArgBool},
                                                      {"fields", kArgDocument | kArgNull},
                                                      {"upsert", kArgBool},
                                                      {"bypassDocumentValidation", kArgBool},
                                                      {"collation", kArgDocument},
                                                      {"arrayFilters", kArgArray},
                                                      {"hint", kArgDocument | kArgString},
                                                      {"let", kArgDocument},
                                                      {"stmtId", kArgNumber}}));
  CAIRN_RETURN_IF_ERROR(ValidateCollectionName(request.db, collection));
  bool remove = args.GetBool("remove", false);
  bool return_new = args.GetBool("new", false);
  bool upsert = args.GetBool("upsert", false);
  bson_iter_t update_it;
  bool has_update = args.Get("update", &update_it);
  if (remove && has_update) return FailedToParse("Cannot specify both an update and remove=true");
  if (!remove && !has_update)
    return FailedToParse("Either an update or remove=true must be specified");
  if (remove && upsert) return FailedToParse("Cannot specify both upsert=true and remove=true ");
  if (remove && return_new) {
    return FailedToParse(
        "Cannot specify both new=true and remove=true; 'remove' always returns the deleted "
        "document");
  }
  bson_iter_t it;
  BsonView array_filters;
  if (args.Get("arrayFilters", &it)) {
    CAIRN_ASSIGN_OR_RETURN(array_filters, ArrayFiltersField("findAndModify.arrayFilters", &it));
  }
  // The command's `let` variables and $$NOW, for $expr and pipeline-style updates.
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const query::ExpressionContext> let,
                         query::ExpressionContext::Make(args.GetDocument("let")));
  // Its collation, under which the query and the sort compare strings.
  bson_iter_t hint;
  QueryRequest query_request(ctx);
  query_request.let = let;
  query_request.collation = args.GetDocument("collation");
  BsonView filter = args.GetDocument("query");
  query_request.filter = filter;
  query_request.sort = args.GetDocument("sort");
  query_request.hint = args.Get("hint", &hint) ? &hint : nullptr;
  query_request.limit = 1;
  CAIRN_ASSIGN_OR_RETURN(CanonicalQuery canonical, CanonicalQuery::Parse(query_request));
  let = canonical.context();
  const QuerySpec& spec = canonical.spec();
  std::optional<query::Projection> fields;
  BsonView fields_spec = args.GetDocument("fields");
  if (!fields_spec.empty()) {
    CAIRN_ASSIGN_OR_RETURN(query::Projection parsed,
                           query::Projection::ParseFind(fields_spec, spec.matcher, let));
    fields.emplace(std::move(parsed));
  }
  std::optional<query::Update> update;
  if (has_update && BSON_ITER_HOLDS_ARRAY(&update_it)) {
    CAIRN_ASSIGN_OR_RETURN(query::Update parsed, query::Update::ParsePipeline(
                                                     IterDocument(&update_it), array_filters, let));
    update.emplace(std::move(parsed));
    ctx.state.opcounters().update++;
  } else if (has_update) {
    CAIRN_ASSIGN_OR_RETURN(query::Update parsed,
                           query::Update::Parse(IterDocument(&update_it), array_filters, let));
    update.emplace(std::move(parsed));
    ctx.state.opcounters().update++;
  } else {
    ctx.state.opcounters().remove++;
  }

  std::string ns = MakeNamespace(request.db, collection);
  if (ctx.explain != nullptr) {
    ExplainTarget target;
    target.ns = ns;
    target.collection = ctx.state.engine().catalog().Find(ns);
    target.root = remove ? ExplainTarget::Root::kDelete : ExplainTarget::Root::kUpdate;
    target.update = update ? &*update : nullptr;
    target.upsert = upsert;
    return canonical.Explain(ctx, *ctx.explain, std::move(target), reply);
  }
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<RetryableWrite> retry,
                         RetryableWrite::Begin(ctx, request, args));
  if (retry) {
    if (std::optional<BsonDoc> entry = retry->ExecutedEntry(0)) {
      // Executed before: its reply again, from the no-op entry it logged with its result.
      bson_iter_t o, o2, last_error, has_value;
      if (!entry->view().Find("o", &o) || !entry->view().Find("o2", &o2) ||
          !BSON_ITER_HOLDS_DOCUMENT(&o2) ||
          !IterDocument(&o2).Find("lastErrorObject", &last_error)) {
        return Status(ErrorCode::kIncompleteTransactionHistory,
                      "Incomplete history detected for this retryable write: the oplog no longer "
                      "holds its result");
      }
      AppendIter(reply, "lastErrorObject", &last_error);
      if (IterDocument(&o2).Find("hasValue", &has_value) && bson_iter_as_bool(&has_value)) {
        AppendIter(reply, "value", &o);
      } else {
        BSON_APPEND_NULL(reply, "value");
      }
      return Status::OK();
    }
  }
  CAIRN_ASSIGN_OR_RETURN(
      std::unique_ptr<CollectionWriter> writer,
      CollectionWriter::Open(ctx.state.writes(), ns, /*create_if_missing=*/upsert, WritesFor(ctx)));
  writer->set_bypass_document_validation(args.GetBool("bypassDocumentValidation", false));
  if (retry) writer->set_statement(retry->Statement(0));
  bool found = false;
  BsonDoc result;  // the document to return
  if (writer->collection()) {
    CAIRN_ASSIGN_OR_RETURN(auto stream,
                           canonical.Run(ReaderFor(ctx), writer->collection(), IdCacheFor(ctx)));
    if (stream->Next()) {
      found = true;
      BsonView doc = stream->document();
      if (remove) {
        CAIRN_RETURN_IF_ERROR(writer->Remove(stream->record_id(), doc));
        result = BsonDoc(doc);
      } else {
        BsonDoc new_doc;
        CAIRN_ASSIGN_OR_RETURN(bool modified, UpdateDocument(*writer, *update, stream->record_id(),
                                                             doc, &new_doc, spec.matcher.get()));
        ctx.debug.n_matched = 1;
        ctx.debug.n_modified = modified ? 1 : 0;
        result = return_new ? std::move(new_doc) : BsonDoc(doc);
      }
    }
    if (remove) ctx.debug.n_deleted = found ? 1 : 0;
    ctx.debug.AddPlan(*stream);
    CAIRN_RETURN_IF_ERROR(stream->status());
  }
  BsonDoc upserted_id;
  bool upserted = false;
  if (!found && upsert) {
    CAIRN_ASSIGN_OR_RETURN(BsonDoc inserted, UpsertDocument(*writer, *update, filter));
    bson_iter_t id;
    inserted.view().Find("_id", &id);
    AppendIter(upserted_id.get(), "upserted", &id);
    upserted = true;
    if (return_new) {
      result = std::move(inserted);
      found = true;
    }
  }
  if (found) CAIRN_RETURN_IF_ERROR(ProjectValue(fields, &result));
  BsonDoc last_error_doc;
  bson_t* last_error = last_error_doc.get();
  BSON_APPEND_INT32(last_error, "n", (found || upserted) ? 1 : 0);
  if (!remove) {
    BSON_APPEND_BOOL(last_error, "updatedExisting", found && !upserted);
    if (upserted) {
      bson_iter_t id;
      upserted_id.view().Find("upserted", &id);
      AppendIter(last_error, "upserted", &id);
    }
  }
  if (retry && writer->last_oplog_ts() != 0) {
    // The reply a retry answers with, logged with the change (MongoDB keeps the document image
    // for this in config.image_collection).
    BsonDoc o2;
    BSON_APPEND_DOCUMENT(o2.get(), "lastErrorObject", last_error);
    BSON_APPEND_BOOL(o2.get(), "hasValue", found);
    CAIRN_RETURN_IF_ERROR(writer->LogNoop(found ? result.view() : BsonView(), o2.view()));
  }
  CAIRN_RETURN_IF_ERROR(CommitStatement(*writer, retry.get(), 0));
  BSON_APPEND_DOCUMENT(reply, "lastErrorObject", last_error);
  if (found) {
    BSON_APPEND_DOCUMENT(reply, "value", result.get());
  } else {
    BSON_APPEND_NULL(reply, "value");
  }
  return Status::OK();
}

}  // namespace cairn::server
