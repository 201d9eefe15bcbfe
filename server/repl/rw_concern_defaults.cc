// RwConcernDefaults implementation (see rw_concern_defaults.h).
#include "server/repl/rw_concern_defaults.h"

#include <chrono>
#include <optional>
#include <utility>

#include "common/wall_clock.h"
#include "server/write/collection_writer.h"
#include "storage/engine.h"

namespace cairn::server {

namespace {

bool IsDefaultsDocument(BsonView doc) {
  bson_iter_t id;
  return doc.Find("_id", &id) && BSON_ITER_HOLDS_UTF8(&id) && IterUtf8(&id) == kRwConcernDefaultsId;
}

bool FindDocument(const BsonDoc& doc, std::string_view field, bson_iter_t* it) {
  return !doc.view().empty() && doc.view().Find(field, it) && BSON_ITER_HOLDS_DOCUMENT(it);
}

bool SetsAny(const RwConcernDefaultValues& values) {
  bson_iter_t it;
  return values.FindReadConcern(&it) || values.FindWriteConcern(&it);
}

}  // namespace

bool RwConcernDefaultValues::FindReadConcern(bson_iter_t* it) const {
  return FindDocument(doc, "defaultReadConcern", it);
}

bool RwConcernDefaultValues::FindWriteConcern(bson_iter_t* it) const {
  return FindDocument(doc, "defaultWriteConcern", it);
}

RwConcernDefaults::RwConcernDefaults() {
  auto values = std::make_shared<Values>();
  values->local_update_wall_ms = WallClockMillis();
  MutexLock lock(&mu_);
  current_ = std::move(values);
}

std::shared_ptr<const RwConcernDefaultValues> RwConcernDefaults::current() const {
  MutexLock lock(&mu_);
  return current_;
}

void RwConcernDefaults::Publish(std::shared_ptr<const Values> next) {
  const bool any = SetsAny(*next);
  MutexLock lock(&mu_);
  current_ = std::move(next);
  any_set_.store(any, std::memory_order_release);
}

Status RwConcernDefaults::Load(storage::Engine& engine) {
  auto values = std::make_shared<Values>();
  values->local_update_wall_ms = WallClockMillis();
  if (storage::CollectionHandle settings = engine.catalog().Find(kConfigSettingsNs)) {
    std::unique_ptr<storage::RecordCursor> cursor = engine.ScanRecords(settings->prefix);
    while (cursor->Next()) {
      if (IsDefaultsDocument(cursor->value())) {
        values->doc = BsonDoc(cursor->value());
        break;
      }
    }
    if (!cursor->status().ok()) return cursor->status();
  }
  Publish(std::move(values));
  return Status::OK();
}

Result<std::shared_ptr<const RwConcernDefaultValues>> RwConcernDefaults::Update(
    WriteContext& writes, const Maker& make) {
  MutexLock serial(&update_mu_);
  std::shared_ptr<const Values> before = current();
  CAIRN_ASSIGN_OR_RETURN(BsonDoc doc, make(*before));
  // The stored document is replaced whole (mongod upserts it by _id).
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<CollectionWriter> writer,
                         CollectionWriter::Open(writes, kConfigSettingsNs,
                                                /*create_if_missing=*/true));
  std::unique_ptr<storage::RecordCursor> cursor =
      writes.engine().ScanRecords(writer->collection()->prefix);
  while (cursor->Next()) {
    if (IsDefaultsDocument(cursor->value())) {
      CAIRN_RETURN_IF_ERROR(writer->Remove(cursor->id(), cursor->value()));
      break;
    }
  }
  CAIRN_RETURN_IF_ERROR(cursor->status());
  cursor.reset();
  std::optional<BsonDoc> shaped;
  CAIRN_ASSIGN_OR_RETURN(BsonView prepared, PrepareForInsert(doc.view(), &shaped));
  CAIRN_RETURN_IF_ERROR(writer->Insert(prepared));
  CAIRN_RETURN_IF_ERROR(writer->Commit());
  auto next = std::make_shared<Values>();
  next->doc = std::move(doc);
  next->local_update_wall_ms = WallClockMillis();
  Publish(next);
  return std::shared_ptr<const Values>(std::move(next));
}

void RwConcernDefaults::AppendReply(const Values& values, bool implicit_majority, bool in_memory,
                                    bson_t* out) {
  bson_iter_t read_concern, write_concern, it;
  const bool global_read = values.FindReadConcern(&read_concern);
  const bool global_write = values.FindWriteConcern(&write_concern);
  if (global_read) {
    AppendIter(out, "defaultReadConcern", &read_concern);
  } else {
    bson_t implicit;
    BSON_APPEND_DOCUMENT_BEGIN(out, "defaultReadConcern", &implicit);
    AppendUtf8(&implicit, "level", "local");
    bson_append_document_end(out, &implicit);
  }
  if (global_write) {
    AppendIter(out, "defaultWriteConcern", &write_concern);
  } else if (implicit_majority) {
    bson_t implicit;
    BSON_APPEND_DOCUMENT_BEGIN(out, "defaultWriteConcern", &implicit);
    AppendUtf8(&implicit, "w", "majority");
    BSON_APPEND_INT64(&implicit, "wtimeout", 0);
    bson_append_document_end(out, &implicit);
  }
  const BsonView doc = values.doc.view();
  if (!doc.empty() && doc.Find("updateOpTime", &it)) AppendIter(out, "updateOpTime", &it);
  if (!doc.empty() && doc.Find("updateWallClockTime", &it)) {
    AppendIter(out, "updateWallClockTime", &it);
  }
  AppendUtf8(out, "defaultWriteConcernSource", global_write ? "global" : "implicit");
  AppendUtf8(out, "defaultReadConcernSource", global_read ? "global" : "implicit");
  if (in_memory) BSON_APPEND_BOOL(out, "inMemory", true);
  BSON_APPEND_DATE_TIME(out, "localUpdateWallClockTime", values.local_update_wall_ms);
}

}  // namespace cairn::server
