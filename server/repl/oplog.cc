// Oplog implementation (see oplog.h).
#include "server/repl/oplog.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "common/wall_clock.h"
#include "server/catalog/change_stream_images.h"
#include "server/repl/oplog_entry.h"

namespace cairn::server {

int64_t DefaultOplogBytes(const std::string& dbpath) {
  constexpr int64_t kMin = 990LL * 1024 * 1024, kMax = 50LL * 1024 * 1024 * 1024;
  std::error_code error;
  std::filesystem::space_info space = std::filesystem::space(dbpath, error);
  int64_t bytes = error ? kMin : static_cast<int64_t>(space.available / 20);
  return std::clamp(bytes, kMin, kMax);
}

Oplog::Oplog(WriteContext& writes, LogicalClock& clock) : writes_(writes), clock_(clock) {}

Status Oplog::Open(int64_t max_bytes) {
  max_bytes_ = max_bytes;
  storage::Catalog& catalog = writes_.engine().catalog();
  storage::CollectionHandle collection = catalog.Find(kOplogNs);
  if (!collection) {
    BsonDoc options;
    BSON_APPEND_BOOL(options.get(), "capped", true);
    BSON_APPEND_INT64(options.get(), "size", max_bytes);
    Result<storage::CollectionHandle> created = catalog.CreateCollection(kOplogNs, options.view());
    if (!created.ok() && created.status().code() != ErrorCode::kNamespaceExists) {
      return created.status();
    }
    collection = catalog.Find(kOplogNs);
    if (!collection)
      return Status(ErrorCode::kInternalError, "cannot create " + std::string(kOplogNs));
  }
  std::unique_ptr<storage::RecordCursor> newest =
      writes_.engine().ScanRecordsReverse(collection->prefix);
  if (newest->Next()) {
    newest_at_open_ = {static_cast<uint64_t>(newest->id())};
    clock_.AdvanceTo(newest_at_open_);
  } else if (!newest->status().ok()) {
    return newest->status();
  }
  prefix_.store(collection->prefix, std::memory_order_release);
  return Status::OK();
}

bool Oplog::Logs(std::string_view ns) const {
  if (prefix() == 0) return false;
  if (ns.substr(0, 6) == "local.") return false;
  // The profiler's entries are each member's own, as in mongod.
  if (ns.ends_with(".system.profile")) return false;
  // Derived, per-member state of sessions, as in mongod.
  return ns != "config.transactions" && ns != "config.image_collection";
}

Timestamp Oplog::Take(OplogUnit& pending) {
  if (pending.first_ts != 0) {
    // The unit's first Timestamp, smaller, already holds visibility back: no lock needed.
    Timestamp ts = clock_.Reserve();
    pending.last_ts = ts.value;
    return ts;
  }
  pending.wall_ms = WallClockMillis();
  MutexLock lock(&mu_);
  Timestamp ts = clock_.Reserve();
  pending.first_ts = pending.last_ts = ts.value;
  ++in_flight_[ts.value];
  return ts;
}

bson_t* Oplog::Scratch(OplogUnit& pending) {
  bson_reinit(pending.scratch.get());
  return pending.scratch.get();
}

Timestamp Oplog::VisibleThrough() const {
  MutexLock lock(&mu_);
  if (in_flight_.empty())
    return {newest_taken_ > newest_at_open_.value ? newest_taken_ : newest_at_open_.value};
  return {in_flight_.begin()->first - 1};
}

bool Oplog::AllCommittedThrough(Timestamp ts) const {
  MutexLock lock(&mu_);
  return in_flight_.empty() || in_flight_.begin()->first > ts.value;
}

Status Oplog::Put(storage::WriteUnit& unit, OplogUnit& pending, Timestamp ts, bson_t* entry,
                  const StatementContext* statement) {
  if (statement != nullptr) {
    const bson_t lsid = statement->lsid.AsBson();
    BSON_APPEND_DOCUMENT(entry, "lsid", &lsid);
    BSON_APPEND_INT64(entry, "txnNumber", statement->txn_number);
    BSON_APPEND_INT32(entry, "stmtId", statement->stmt_id);
  }
  bson_append_timestamp(entry, "ts", -1, ts.seconds(), ts.increment());
  BSON_APPEND_INT64(entry, "t", term_.load(std::memory_order_acquire));
  BSON_APPEND_INT64(entry, "v", 2);
  BSON_APPEND_DATE_TIME(entry, "wall", pending.wall_ms);
  if (entry->len > static_cast<uint32_t>(kMaxInternalBsonObjectSize)) {
    return Status(ErrorCode::kBSONObjectTooLarge,
                  "oplog entry too large: " + std::to_string(entry->len) + " bytes");
  }
  unit.AdjustCounts(prefix(), 1, entry->len);
  pending.entries.append(reinterpret_cast<const char*>(bson_get_data(entry)), entry->len);
  pending.entry_sizes.emplace_back(ts.value, entry->len);
  return Status::OK();
}

void Oplog::Flush(storage::WriteUnit& unit, OplogUnit& pending) {
  const storage::Prefix oplog = prefix();
  size_t offset = 0;
  for (const auto& [ts, size] : pending.entry_sizes) {
    unit.PutRecord(
        oplog, static_cast<storage::RecordId>(ts),
        BsonView(reinterpret_cast<const uint8_t*>(pending.entries.data()) + offset, size));
    offset += size;
  }
  pending.entries.clear();
  pending.entry_sizes.clear();
}

Status Oplog::LogInsert(storage::WriteUnit& unit, OplogUnit& pending,
                        const storage::CollectionEntry& collection, BsonView doc,
                        const StatementContext* statement) {
  bson_t* entry = Scratch(pending);
  AppendInsertOp(entry, collection, doc);
  return Put(unit, pending, Take(pending), entry, statement);
}

Result<std::optional<Timestamp>> Oplog::PutPreImage(storage::WriteUnit& unit, OplogUnit& pending,
                                                    const storage::CollectionEntry& collection,
                                                    BsonView old_doc) {
  if (!PreAndPostImagesEnabled(collection.options.view())) return std::optional<Timestamp>();
  bson_t* entry = Scratch(pending);
  BeginCollectionOp(entry, "n", collection);
  const bson_t o = old_doc.AsBson();
  BSON_APPEND_DOCUMENT(entry, "o", &o);
  const Timestamp ts = Take(pending);
  CAIRN_RETURN_IF_ERROR(Put(unit, pending, ts, entry, nullptr));
  return std::optional<Timestamp>(ts);
}

void Oplog::AppendPreImageOpTime(bson_t* entry, const std::optional<Timestamp>& pre_image) const {
  if (pre_image) {
    AppendOpTime(entry, "preImageOpTime", *pre_image, term_.load(std::memory_order_acquire));
  }
}

Status Oplog::LogUpdate(storage::WriteUnit& unit, OplogUnit& pending,
                        const storage::CollectionEntry& collection, BsonView old_doc,
                        BsonView new_doc, bool replacement, const StatementContext* statement) {
  CAIRN_ASSIGN_OR_RETURN(std::optional<Timestamp> pre_image,
                         PutPreImage(unit, pending, collection, old_doc));
  bson_t* entry = Scratch(pending);
  AppendUpdateOp(entry, collection, old_doc, new_doc, replacement);
  AppendPreImageOpTime(entry, pre_image);
  return Put(unit, pending, Take(pending), entry, statement);
}

Status Oplog::LogDelete(storage::WriteUnit& unit, OplogUnit& pending,
                        const storage::CollectionEntry& collection, BsonView old_doc,
                        const StatementContext* statement) {
  CAIRN_ASSIGN_OR_RETURN(std::optional<Timestamp> pre_image,
                         PutPreImage(unit, pending, collection, old_doc));
  bson_t* entry = Scratch(pending);
  AppendDeleteOp(entry, collection, old_doc);
  AppendPreImageOpTime(entry, pre_image);
  return Put(unit, pending, Take(pending), entry, statement);
}

Status Oplog::LogNoop(storage::WriteUnit& unit, OplogUnit& pending,
                      const storage::CollectionEntry& collection, BsonView o, BsonView o2,
                      const StatementContext* statement) {
  bson_t* entry = Scratch(pending);
  AppendNoopOp(entry, collection, o, o2);
  return Put(unit, pending, Take(pending), entry, statement);
}

Status Oplog::LogCommand(storage::WriteUnit& unit, OplogUnit& pending, std::string_view db,
                         const uint8_t* uuid, BsonView o, BsonView o2) {
  bson_t* entry = Scratch(pending);
  AppendCommandOp(entry, db, uuid, o, o2);
  return Put(unit, pending, Take(pending), entry, nullptr);
}

Status Oplog::LogTransaction(storage::WriteUnit& unit, OplogUnit& pending, BsonView ops,
                             BsonView lsid, int64_t txn_number) {
  bson_t* entry = Scratch(pending);
  const bson_t lsid_doc = lsid.AsBson();
  BSON_APPEND_DOCUMENT(entry, "lsid", &lsid_doc);
  BSON_APPEND_INT64(entry, "txnNumber", txn_number);
  BSON_APPEND_UTF8(entry, "op", "c");
  BSON_APPEND_UTF8(entry, "ns", "admin.$cmd");
  bson_t o;
  BSON_APPEND_DOCUMENT_BEGIN(entry, "o", &o);
  const bson_t ops_array = ops.AsBson();
  BSON_APPEND_ARRAY(&o, "applyOps", &ops_array);
  bson_append_document_end(entry, &o);
  // The first (and only) entry of the transaction: nothing before it (mongod's null optime).
  AppendOpTime(entry, "prevOpTime", Timestamp{0}, -1);
  return Put(unit, pending, Take(pending), entry, nullptr);
}

Result<Timestamp> Oplog::LogNoop(BsonView o) {
  storage::WriteUnit unit = writes_.engine().BeginWrite();
  OplogUnit pending;
  bson_t* entry = Scratch(pending);
  BSON_APPEND_UTF8(entry, "op", "n");
  BSON_APPEND_UTF8(entry, "ns", "");
  const bson_t o_doc = o.AsBson();
  BSON_APPEND_DOCUMENT(entry, "o", &o_doc);
  const Timestamp ts = Take(pending);
  Status status = Put(unit, pending, ts, entry, nullptr);
  if (status.ok()) {
    Flush(unit, pending);
    status = unit.Commit();
  }
  UnitDone(pending, status.ok());
  if (!status.ok()) return status;
  return ts;
}

void Oplog::UnitDone(OplogUnit& pending, bool committed) {
  if (pending.first_ts == 0) return;
  {
    MutexLock lock(&mu_);
    auto it = in_flight_.find(pending.first_ts);
    if (it != in_flight_.end() && --it->second == 0) in_flight_.erase(it);
    if (pending.last_ts > newest_taken_) newest_taken_ = pending.last_ts;
  }
  pending.first_ts = pending.last_ts = 0;
  pending.entries.clear();  // a dropped unit's
  pending.entry_sizes.clear();
  if (!committed) return;
  last_commit_wall_ms_.store(WallClockMillis(), std::memory_order_release);
  writes_.capped().NotifyInsert(prefix());  // tailable awaitData readers of the oplog
  if (writes_.engine().DataSize(prefix()) > max_bytes_) Truncate();
}

void Oplog::Truncate() {
  if (!truncate_mu_.TryLock()) return;  // another writer is truncating
  const storage::Prefix oplog = prefix();
  storage::Engine& engine = writes_.engine();
  int64_t size = engine.DataSize(oplog);
  int64_t count = engine.RecordCount(oplog);
  storage::WriteUnit unit = engine.BeginWrite();
  std::unique_ptr<storage::RecordCursor> cursor = engine.ScanRecords(oplog, oldest_hint_);
  storage::RecordId last = 0;
  // The newest entry always stays: it is where the clock restarts from.
  while (size > max_bytes_ && count > 1 && cursor->Next()) {
    const int64_t bytes = static_cast<int64_t>(cursor->value().size());
    unit.DeleteRecord(oplog, cursor->id());
    unit.AdjustCounts(oplog, -1, -bytes);
    size -= bytes;
    --count;
    last = cursor->id();
  }
  cursor.reset();
  if (last != 0 && unit.Commit().ok()) oldest_hint_ = last;
  truncate_mu_.Unlock();
}

}  // namespace cairn::server
