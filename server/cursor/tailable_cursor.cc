// Tailable cursors: a natural-order scan that resumes after its last RecordId on every getMore.
#include "server/cursor/tailable_cursor.h"

#include <chrono>
#include <string>

#include "server/capped/capped_options.h"
#include "server/cursor/cursor_batch.h"
#include "server/exec/document_stream.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

// Reads a capped collection in insertion order from after its last examined record. When the
// scan ends, the next Next() opens a new one (a RocksDB iterator sees only its snapshot) after
// checking that the last examined record still exists.
class TailableScanStream final : public DocumentStream {
 public:
  // `oplog`: set when the collection is the oplog, whose reads stop at its visible bound (an
  // entry committed later below an entry read would otherwise be skipped for good).
  TailableScanStream(const storage::Engine& engine, storage::Prefix collection,
                     std::shared_ptr<const query::Matcher> filter, int64_t skip,
                     const OplogSink* oplog)
      : DocumentStream(StageType::kCollScan),
        engine_(engine),
        collection_(collection),
        filter_(std::move(filter)),
        skip_(skip),
        oplog_(oplog) {}

  bool Next() override {
    if (!status_.ok()) return false;
    if (!scan_) {
      if (last_seen_ != 0) {
        std::string ignored;
        bool found = false;
        status_ = engine_.GetRecord(collection_, last_seen_, &ignored, &found);
        if (status_.ok() && !found) {
          status_ = Status(ErrorCode::kCappedPositionLost,
                           "CollectionScan died due to position in capped collection being "
                           "deleted. Last seen record id: RecordId(" +
                               std::to_string(last_seen_) + ")");
        }
        if (!status_.ok()) return false;
      }
      // The bound first: every entry below it has committed, so the snapshot the scan takes
      // next holds them all (read after the scan, it could cover an entry the snapshot lacks).
      visible_ = oplog_ != nullptr ? oplog_->VisibleRecordBound() : INT64_MAX;
      scan_ = engine_.ScanRecords(collection_, last_seen_);
    }
    while (scan_->Next()) {
      if (scan_->id() > visible_) break;  // not every entry below it has committed yet
      ++counters_.docs_examined;
      last_seen_ = scan_->id();
      BsonView doc = scan_->value();
      if (filter_) {
        Result<bool> matched = filter_->Matches(doc);
        if (!matched.ok()) {
          status_ = matched.status();
          return false;
        }
        if (!*matched) continue;
      }
      if (skip_ > 0) {
        --skip_;
        continue;
      }
      current_ = doc;
      ++counters_.returned;
      return true;
    }
    status_ = scan_->status();
    scan_.reset();
    return false;
  }
  BsonView document() const override { return current_; }
  storage::RecordId record_id() const override { return last_seen_; }
  Status status() const override { return status_; }

 private:
  const storage::Engine& engine_;
  storage::Prefix collection_;
  std::shared_ptr<const query::Matcher> filter_;
  int64_t skip_;
  const OplogSink* oplog_;
  storage::RecordId visible_ = INT64_MAX;
  std::unique_ptr<storage::RecordCursor> scan_;
  storage::RecordId last_seen_ = 0;
  BsonView current_;
  Status status_;
};

bool IsForwardNatural(BsonView sort) {
  bson_iter_t it;
  if (!sort.Init(&it) || !bson_iter_next(&it) || IterKey(&it) != "$natural") return false;
  double direction = 0;
  if (!IterAsDouble(&it, &direction) || direction != 1) return false;
  return !bson_iter_next(&it);
}

bool LimitReached(const Cursor& cursor) {
  return cursor.limit > 0 && cursor.returned >= cursor.limit && cursor.buffered.empty();
}

}  // namespace

Status CheckTailableFindOptions(bool tailable, bool await_data, BsonView sort, bool single_batch) {
  if (await_data && !tailable) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot set 'awaitData' without also setting 'tailable'");
  }
  if (!tailable) return Status::OK();
  if (!sort.empty() && !IsForwardNatural(sort)) {
    return Status(ErrorCode::kBadValue,
                  "cannot use tailable option with a sort other than {$natural: 1}");
  }
  if (single_batch) {
    return Status(ErrorCode::kBadValue, "cannot use tailable option with the 'singleBatch' option");
  }
  return Status::OK();
}

Status ReplyWithTailableFind(CommandContext& ctx, const storage::CollectionHandle& collection,
                             std::unique_ptr<Cursor> cursor,
                             std::shared_ptr<const query::Matcher> filter, BsonView filter_doc,
                             int64_t skip, bool await_data, int64_t batch_size, bson_t* reply) {
  if (!CappedLimitsOf(*collection)) {
    // MongoDB prints its canonical query here; an empty filter is the tree "$and".
    std::string tree = filter_doc.empty() ? "$and" : ToShellString(filter_doc);
    return Status(ErrorCode::kBadValue, "error processing query: ns=" + collection->ns +
                                            "Tree: " + tree + "\nSort: {}\nProj: {}\n" +
                                            " tailable cursor requested on non capped collection");
  }
  storage::Engine& engine = ctx.state.engine();
  const storage::Prefix prefix = collection->prefix;
  cursor->tailable = true;
  cursor->await_data = await_data;
  cursor->collection_prefix = prefix;
  if (filter && filter->MatchesAll()) filter.reset();
  const OplogSink* oplog = ctx.state.writes().oplog();
  if (oplog != nullptr && oplog->LogPrefix() != prefix) oplog = nullptr;
  cursor->stream =
      std::make_unique<TailableScanStream>(engine, prefix, std::move(filter), skip, oplog);
  const int64_t max_docs = batch_size > 0 ? batch_size : kDefaultFirstBatchDocs;
  cursor->interrupt = ctx.interrupt;
  return AppendCursorBatch(reply, std::move(cursor), ctx.interrupt->op(), "firstBatch", max_docs,
                           batch_size == 0, [&](std::unique_ptr<Cursor> done, bool) -> int64_t {
                             if (!done->stream->status().ok() || LimitReached(*done)) return 0;
                             // As MongoDB: no cursor on an empty collection (SERVER-13955).
                             if (engine.RecordCount(prefix) == 0) return 0;
                             return RegisterCursor(ctx, std::move(done));
                           });
}

namespace {

// One getMore batch of a tailable cursor (checked out). With awaitData, nothing new and
// `deadline` not passed yet, the reply (an empty batch) comes with a kAwaitInsert continuation
// whose resume runs this again after the wait.
CommandOutcome TailableBatch(CommandContext& ctx, CursorPin cursor, std::string ns,
                             int64_t batch_size, std::chrono::steady_clock::time_point deadline,
                             bson_t* reply) {
  using Clock = std::chrono::steady_clock;
  const bool await_data = cursor->await_data;
  const storage::Prefix prefix = cursor->collection_prefix;
  const int64_t id = cursor->id;
  // Read before looking for documents: an insert committing meanwhile moves it, and the wait
  // then ends at once.
  const uint64_t version = ctx.state.capped().InsertVersion(prefix);
  const int64_t returned_before = cursor->returned;
  bool wait = false;
  Status status = AppendCursorBatch(
      reply, std::move(cursor), ctx.interrupt->op(), "nextBatch", batch_size,
      /*empty=*/false, [&](CursorPin done, bool) -> int64_t {
        if (!done->stream->status().ok() || LimitReached(*done) ||
            (done->batch_fields != nullptr && done->batch_fields->Closed(*done))) {
          done.Discard();
          return 0;
        }
        const bool empty = done->returned == returned_before;
        done.CheckIn();
        wait = await_data && empty && Clock::now() < deadline;
        return id;
      });
  if (!status.ok() && status.code() == ErrorCode::kCappedPositionLost) {
    return Status(status.code(),
                  "Executor error during getMore :: caused by :: " + status.reason());
  }
  if (!status.ok() || !wait) return status;
  Continuation next;
  next.kind = Continuation::Kind::kAwaitInsert;
  next.cursor_id = id;
  next.collection = prefix;
  next.version = version;
  next.deadline = deadline;
  next.ns = std::move(ns);
  next.batch_size = batch_size;
  next.resume = [](CommandContext& ctx, const Continuation& self, bson_t* reply) -> CommandOutcome {
    // The cursor was checked in for the wait: another getMore or killCursors may have taken it.
    Result<CursorPin> cursor = ctx.state.cursors().Pin(self.cursor_id, self.ns);
    if (!cursor.ok()) return cursor.status();
    return TailableBatch(ctx, std::move(cursor).value(), self.ns, self.batch_size, self.deadline,
                         reply);
  };
  return next;
}

}  // namespace

CommandOutcome ReplyWithTailableGetMore(CommandContext& ctx, CursorPin cursor, std::string ns,
                                        int64_t batch_size, int64_t max_time_ms, bson_t* reply) {
  const std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::now() +
      std::chrono::milliseconds(max_time_ms > 0 ? max_time_ms : 1000);
  return TailableBatch(ctx, std::move(cursor), std::move(ns), batch_size, deadline, reply);
}

}  // namespace cairn::server
