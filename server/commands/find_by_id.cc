// The fast path of find for the most common query there is: `{_id: <value>}` on an existing
// collection, with no option that changes the answer (only limit, batchSize >= 1 and singleBatch,
// which cannot matter for at most one document). It answers the same reply HandleFind would —
// {cursor: {firstBatch: [doc?], id: 0, ns}} — without parsing a Matcher, building an expression
// context, planning or creating a Cursor: tools/bench point-read spent ~6k of its ~18k
// instructions per find there. Anything else (another argument, an operator in the filter, a
// missing collection, explain) returns "not handled" and takes the general path, which owns
// every error.
#include "server/commands/find_by_id.h"

#include <string>

#include "query/matcher/matcher.h"
#include "server/catalog/namespace.h"
#include "server/exec/stream_builder.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// A count argument (limit, batchSize) that is a whole number >= min.
bool IsWholeAtLeast(const bson_iter_t* value, int64_t min) {
  switch (bson_iter_type(value)) {
    case BSON_TYPE_INT32:
      return bson_iter_int32(value) >= min;
    case BSON_TYPE_INT64:
      return bson_iter_int64(value) >= min;
    case BSON_TYPE_DOUBLE: {
      double d = bson_iter_double(value);
      return d >= static_cast<double>(min) && d <= 1e15 &&
             d == static_cast<double>(static_cast<int64_t>(d));
    }
    default:
      return false;
  }
}

}  // namespace

std::optional<Status> TryFindById(CommandContext& ctx, const CommandRequest& request,
                                  bson_t* reply) {
  if (ctx.explain != nullptr) return std::nullopt;
  bson_iter_t it;
  if (!request.body.Init(&it) || !bson_iter_next(&it) || !BSON_ITER_HOLDS_UTF8(&it)) {
    return std::nullopt;
  }
  std::string_view collection_name = IterUtf8(&it);
  if (collection_name.empty()) return std::nullopt;
  bson_iter_t id;
  bool has_filter = false;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "filter") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return std::nullopt;
      bson_iter_t filter;
      if (!bson_iter_recurse(&it, &filter) || !bson_iter_next(&filter) ||
          IterKey(&filter) != "_id" || !query::IsIdPointLookupValue(&filter, nullptr)) {
        return std::nullopt;
      }
      id = filter;
      if (bson_iter_next(&filter)) return std::nullopt;  // more than _id
      has_filter = true;
    } else if (key == "limit") {
      if (!IsWholeAtLeast(&it, 0)) return std::nullopt;
    } else if (key == "batchSize") {
      if (!IsWholeAtLeast(&it, 1)) return std::nullopt;  // 0 keeps an open cursor
    } else if (key == "singleBatch") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return std::nullopt;
    } else if (key != "$db" && key != "lsid" && key != "$clusterTime" && key != "$readPreference") {
      return std::nullopt;
    }
  }
  if (!has_filter) return std::nullopt;

  std::string ns = MakeNamespace(request.db, collection_name);
  storage::CollectionHandle collection = ctx.state.engine().catalog().Find(ns);
  if (!collection) return std::nullopt;  // a missing collection or an invalid name
  ctx.state.opcounters().query++;

  thread_local std::string document;
  storage::RecordId record_id = 0;
  bool found = false;
  Status status = ReadById(ctx.state.engine(), *collection, &id, &ctx.state.id_cache(), &document,
                           &record_id, &found);
  if (!status.ok()) return status;
  // As the IDHACK stage counts: one key, and the document when the key found one.
  ctx.debug.keys_examined = 1;
  ctx.debug.docs_examined = found ? 1 : 0;
  ctx.debug.n_returned = found ? 1 : 0;
  ctx.debug.cursor_id = 0;
  ctx.debug.plan_summary = StageName(StageType::kIdHack);  // no allocation: short
  bson_t cursor, batch;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "cursor", &cursor);
  bson_append_array_begin(&cursor, "firstBatch", -1, &batch);
  if (found) {
    bson_t doc;
    if (!bson_init_static(&doc, reinterpret_cast<const uint8_t*>(document.data()),
                          document.size())) {
      return Status(ErrorCode::kInternalError, "stored document " + std::to_string(record_id) +
                                                   " of " + ns + " is not valid BSON");
    }
    bson_append_document(&batch, "0", 1, &doc);
  }
  bson_append_array_end(&cursor, &batch);
  BSON_APPEND_INT64(&cursor, "id", 0);
  AppendUtf8(&cursor, "ns", ns);
  bson_append_document_end(reply, &cursor);
  return Status::OK();
}

}  // namespace cairn::server
