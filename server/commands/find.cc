// find: filter, projection, sort, skip, limit, batchSize, singleBatch, let, collation,
// showRecordId and returnKey. Streams results through a cursor (first batch 101 documents or
// 16 MiB); a filter pinning _id is a point lookup. The collation applies to the filter, the
// sort and the projection; `let` variables to $expr and projection expressions. tailable and
// awaitData on capped collections: tailable_cursor.h. min/max bound the hinted index's scan, and
// an index holding every projected field answers without reading documents (covered), both in
// server/exec/access_path.h. Under explain, answers with the plan (server/exec/explain.h).
#include <algorithm>
#include <optional>
#include <string>

#include "common/bson_compare.h"
#include "index/key_string.h"
#include "index/min_max_bounds.h"
#include "query/collation/collator.h"
#include "query/expression/expression.h"
#include "query/projection/projection.h"
#include "server/catalog/namespace.h"
#include "server/commands/command_args.h"
#include "server/commands/find_by_id.h"
#include "server/cursor/cursor_batch.h"
#include "server/cursor/tailable_cursor.h"
#include "server/exec/canonical_query.h"
#include "server/exec/sort_stream.h"
#include "server/exec/stream_builder.h"
#include "server/txn/transaction_scope.h"

namespace cairn::server {

namespace {

// The value to return for one field of an index key: the decoded key value, except that the
// key encoding keeps a number's value but not its type, so a number is taken from the document
// (the field's value, or the array element the multikey entry was made from) when one equals it.
void AppendKeyValue(BsonView doc, std::string_view path, const bson_iter_t* decoded, bson_t* out) {
  if (IterIsNumber(decoded)) {
    bson_iter_t root, value;
    doc.Init(&root);
    if (bson_iter_find_descendant(&root, std::string(path).c_str(), &value)) {
      if (IterIsNumber(&value) && CompareValues(&value, decoded) == 0) {
        AppendIter(out, path, &value);
        return;
      }
      bson_iter_t element;
      if (BSON_ITER_HOLDS_ARRAY(&value) && bson_iter_recurse(&value, &element)) {
        while (bson_iter_next(&element)) {
          if (IterIsNumber(&element) && CompareValues(&element, decoded) == 0) {
            AppendIter(out, path, &element);
            return;
          }
        }
      }
    }
  }
  AppendIter(out, path, decoded);
}

// returnKey's document: the index entry the stream read the document through, as
// {<key pattern field>: value, ...} (MongoDB's ReturnKeyStage), or {} when it read none (a
// collection scan).
Status AppendReturnKey(BsonView doc, const IndexKeyRef& key, bson_t* out) {
  if (key.pattern == nullptr) return Status::OK();
  if (key.pattern->kind() != index::IndexKind::kBtree) {
    return Status(ErrorCode::kBadValue,
                  "find option 'returnKey' over a special index is not supported by Cairn yet");
  }
  CAIRN_ASSIGN_OR_RETURN(BsonDoc decoded, index::DecodeKey(key.bytes, key.pattern->descending()));
  bson_iter_t field, value;
  key.pattern->pattern().Init(&field);
  decoded.view().Init(&value);
  while (bson_iter_next(&field) && bson_iter_next(&value)) {
    AppendKeyValue(doc, IterKey(&field), &value, out);
  }
  return Status::OK();
}

// The documents find returns when showRecordId or returnKey change them (MongoDB adds a
// {$recordId: {$meta: "recordId"}} field to the projection for showRecordId, and its
// ReturnKeyStage replaces each document by its index key, ignoring the projection and
// showRecordId). Applies the projection itself, so the cursor gets finished documents. Owns its
// output buffer: document() is valid until the next Next().
class FindOutputStream final : public DocumentStream {
 public:
  FindOutputStream(std::unique_ptr<DocumentStream> child,
                   std::optional<query::Projection> projection, bool show_record_id,
                   bool return_key)
      : child_(std::move(child)),
        projection_(std::move(projection)),
        show_record_id_(show_record_id),
        return_key_(return_key) {}

  bool Next() override {
    if (!status_.ok() || !child_->Next()) return false;
    bson_reinit(out_.get());
    BsonView doc = child_->document();
    if (return_key_) {
      status_ = AppendReturnKey(doc, child_->index_key(), out_.get());
      return status_.ok();
    }
    if (projection_) {
      status_ = projection_->Apply(doc, out_.get());
      if (!status_.ok()) return false;
    } else {
      bson_iter_t it;
      doc.Init(&it);
      while (bson_iter_next(&it)) AppendIter(out_.get(), IterKey(&it), &it);
    }
    if (show_record_id_) {
      BSON_APPEND_INT64(out_.get(), "$recordId", static_cast<int64_t>(child_->record_id()));
    }
    return true;
  }
  BsonView document() const override { return out_.view(); }
  storage::RecordId record_id() const override { return child_->record_id(); }
  Status status() const override { return status_.ok() ? child_->status() : status_; }
  size_t input_count() const override { return 1; }
  const PlanStage* input(size_t) const override { return child_.get(); }

 private:
  std::unique_ptr<DocumentStream> child_;
  std::optional<query::Projection> projection_;
  bool show_record_id_;
  bool return_key_;
  BsonDoc out_;
  Status status_;
};

}  // namespace

CommandOutcome HandleFind(CommandContext& ctx, const CommandRequest& request, bson_t* reply) {
  if (std::optional<Status> answered = TryFindById(ctx, request, reply)) return *answered;
  CAIRN_ASSIGN_OR_RETURN(std::string_view collection, CollectionNameArg(request));
  CAIRN_ASSIGN_OR_RETURN(CommandArgs args,
                         CommandArgs::Parse(request, {{"filter", kArgDocument},
                                                      {"projection", kArgDocument},
                                                      {"sort", kArgDocument},
                                                      {"hint", kArgDocument | kArgString},
                                                      {"skip", kArgNumber},
                                                      {"limit", kArgNumber},
                                                      {"batchSize", kArgNumber},
                                                      {"singleBatch", kArgBool},
                                                      {"max", kArgDocument},
                                                      {"min", kArgDocument},
                                                      {"returnKey", kArgBool},
                                                      {"showRecordId", kArgBool},
                                                      {"tailable", kArgBool},
                                                      {"oplogReplay", kArgBool},
                                                      {"noCursorTimeout", kArgBool},
                                                      {"awaitData", kArgBool},
                                                      {"allowPartialResults", kArgBool},
                                                      {"collation", kArgDocument},
                                                      {"allowDiskUse", kArgBool},
                                                      {"let", kArgDocument},
                                                      {"readOnce", kArgBool},
                                                      {"term", kArgNumber}}));
  ctx.state.opcounters().query++;
  CAIRN_RETURN_IF_ERROR(ValidateReadableCollectionName(request.db, collection));
  CAIRN_RETURN_IF_ERROR(CheckNonNegative("skip", args.GetInt("skip", 0)));
  CAIRN_RETURN_IF_ERROR(CheckNonNegative("limit", args.GetInt("limit", 0)));
  CAIRN_RETURN_IF_ERROR(CheckNonNegative("batchSize", args.GetInt("batchSize", 0)));
  // min/max bound the hinted index's scan (server/exec/access_path.h): 51176, 51173 here.
  CAIRN_RETURN_IF_ERROR(index::ValidateFindMinMax(args.GetDocument("min"), args.GetDocument("max"),
                                                  args.Has("hint")));
  const bool tailable = args.GetBool("tailable", false);
  const bool await_data = args.GetBool("awaitData", false);
  CAIRN_RETURN_IF_ERROR(CheckTailableFindOptions(tailable, await_data, args.GetDocument("sort"),
                                                 args.GetBool("singleBatch", false)));
  const bool show_record_id = args.GetBool("showRecordId", false);
  const bool return_key = args.GetBool("returnKey", false);

  // The command's `let` variables and $$NOW, for $expr; the rest parsed once.
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const query::ExpressionContext> let,
                         query::ExpressionContext::Make(args.GetDocument("let")));
  bson_iter_t hint;
  QueryRequest query_request(ctx);
  query_request.let = let;
  query_request.collation = args.GetDocument("collation");
  query_request.filter = args.GetDocument("filter");
  query_request.sort = args.GetDocument("sort");
  query_request.hint = args.Get("hint", &hint) ? &hint : nullptr;
  query_request.skip = args.GetInt("skip", 0);
  query_request.limit = args.GetInt("limit", 0);
  CAIRN_ASSIGN_OR_RETURN(CanonicalQuery canonical, CanonicalQuery::Parse(query_request));
  let = canonical.context();
  QuerySpec& spec = canonical.spec();
  spec.return_key = return_key;
  std::string ns = MakeNamespace(request.db, collection);
  storage::CollectionHandle handle = ctx.state.engine().catalog().Find(ns);
  spec.min = args.GetDocument("min");
  spec.max = args.GetDocument("max");
  if (args.GetBool("allowDiskUse", true))
    spec.spill_dir = SpillDirectory(ctx.state.options().dbpath);
  spec.max_sort_memory_bytes =
      ctx.state.parameters().internal_query_max_blocking_sort_memory_usage_bytes.load();

  auto cursor = std::make_unique<Cursor>();
  cursor->ns = ns;
  BsonView projection = args.GetDocument("projection");
  if (!projection.empty()) {
    CAIRN_ASSIGN_OR_RETURN(query::Projection parsed,
                           query::Projection::ParseFind(projection, spec.matcher, let));
    cursor->projection.emplace(std::move(parsed));
    // An index holding every returned field may answer it (covered); returnKey and showRecordId
    // need what the scan read, not the projected fields.
    if (!return_key && !show_record_id) spec.projection = projection;
  }
  if (ctx.explain != nullptr) {
    ExplainTarget target;
    target.ns = ns;
    target.collection = handle;
    target.projection = projection;
    return canonical.Explain(ctx, *ctx.explain, std::move(target), reply);
  }
  bool single_batch = args.GetBool("singleBatch", false);
  int64_t batch_size = args.Has("batchSize") ? args.GetInt("batchSize", 0) : -1;
  cursor->limit = spec.limit;
  if (spec.limit > 0) {
    if (batch_size < 0) batch_size = std::min(kDefaultFirstBatchDocs, spec.limit);
    if (batch_size > spec.limit) batch_size = spec.limit;
  }
  if (tailable && handle) {
    // A capped collection read from its last position on each getMore (tailable_cursor.h).
    return ReplyWithTailableFind(ctx, handle, std::move(cursor), spec.matcher,
                                 args.GetDocument("filter"), spec.skip, await_data, batch_size,
                                 reply);
  }
  CAIRN_ASSIGN_OR_RETURN(cursor->stream, canonical.Run(ReaderFor(ctx), handle, IdCacheFor(ctx)));
  if (show_record_id || return_key) {
    cursor->stream = std::make_unique<FindOutputStream>(
        std::move(cursor->stream), std::move(cursor->projection), show_record_id, return_key);
    cursor->projection.reset();
  }

  // An error while the first batch runs carries MongoDB's context (find_cmd.cpp).
  Status status = ReplyWithFirstBatch(ctx, std::move(cursor), batch_size, single_batch, reply);
  if (!status.ok()) return status.WithContext("Executor error during find command");
  return status;
}

}  // namespace cairn::server
