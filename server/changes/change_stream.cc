// The change stream cursor: an oplog tail, its events, the stages after $changeStream, and the
// postBatchResumeToken of every batch (see change_stream.h).
#include "server/changes/change_stream.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/bson_validate.h"
#include "server/catalog/namespace.h"
#include "server/changes/change_event.h"
#include "server/changes/split_large_event.h"
#include "server/cursor/cursor_batch.h"
#include "server/exec/stream_builder.h"
#include "server/repl/oplog.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

Status HistoryLost() {
  return Status(ErrorCode::kChangeStreamHistoryLost,
                "Resume of change stream was not possible, as the resume point may no longer be "
                "in the oplog.");
}

// The oplog's oldest entry's RecordId (its ts), 0 when it is empty.
Result<storage::RecordId> OldestEntry(const storage::Engine& engine, storage::Prefix oplog) {
  std::unique_ptr<storage::RecordCursor> scan = engine.ScanRecords(oplog, 0);
  if (scan->Next()) return scan->id();
  CAIRN_RETURN_IF_ERROR(scan->status());
  return storage::RecordId{0};
}

// The oplog entries after `position` (a ts), up to the oplog's visible bound, made into the
// events of the stream. Each scan reads one snapshot; when it ends the next Next() opens another
// from the last entry examined, after checking the oplog still holds what follows it.
class ChangeEventSource final : public DocumentStream {
 public:
  // `seen`: the changes of the entry at seen.ts up to seen.op_index were returned before (a
  // resume token's; none when its ts is 0).
  ChangeEventSource(ServerState& state, ChangeStreamSpec spec, storage::RecordId position,
                    ResumePoint seen)
      : state_(state), spec_(std::move(spec)), position_(position), seen_(seen) {
    oplog_ = state_.repl().oplog().prefix();
    reads_.oplog_entry = [this](Timestamp ts, std::string* entry, bool* found) -> Status {
      return state_.engine().GetRecord(oplog_, static_cast<storage::RecordId>(ts.value), entry,
                                       found);
    };
    reads_.document = [this](std::string_view ns, const bson_iter_t* id, std::string* document,
                             bool* found) -> Status {
      *found = false;
      storage::CollectionHandle collection = state_.engine().catalog().Find(ns);
      if (!collection) return Status::OK();
      storage::RecordId record = 0;
      return ReadById(state_.engine(), *collection, id, &state_.id_cache(), document, &record,
                      found);
    };
  }
  ~ChangeEventSource() override { bson_destroy(&event_); }

  bool Next() override {
    if (!status_.ok() || invalidated_) return false;
    if (!invalidating_entry_.empty()) {
      // The event before ended the stream (its collection dropped or renamed, its database
      // dropped): the invalidate event, then nothing more.
      bson_reinit(&event_);
      AppendInvalidateEvent(BsonView(reinterpret_cast<const uint8_t*>(invalidating_entry_.data()),
                                     invalidating_entry_.size()),
                            &event_);
      invalidated_ = true;
      return true;
    }
    if (!scan_) {
      Result<storage::RecordId> oldest = OldestEntry(state_.engine(), oplog_);
      if (!oldest.ok()) {
        status_ = oldest.status();
        return false;
      }
      if (*oldest > position_ + 1 && position_ > 0) {
        status_ = HistoryLost();
        return false;
      }
      // The bound first: every entry below it has committed, so the snapshot the scan takes
      // next holds them all (read after the scan, it could cover an entry the snapshot lacks).
      visible_ = static_cast<storage::RecordId>(state_.repl().oplog().VisibleThrough().value);
      scan_ = state_.engine().ScanRecords(oplog_, position_);
    }
    for (;;) {
      if (!transaction_.empty()) {  // the changes of a committed transaction, one by one
        if (NextTransactionChange()) return true;
        if (!status_.ok()) return false;
        continue;
      }
      if (!scan_->Next()) break;
      if (scan_->id() > visible_) break;  // an entry below it may still be committing
      ++counters_.docs_examined;
      position_ = scan_->id();
      BsonView ops;
      if (IsTransactionEntry(scan_->value(), &ops)) {
        transaction_.assign(reinterpret_cast<const char*>(scan_->value().data()),
                            scan_->value().size());
        transaction_index_ = 0;
        continue;
      }
      if (seen_.ts.value != 0 && static_cast<uint64_t>(position_) == seen_.ts.value) continue;
      bson_reinit(&event_);
      Result<bool> made = BuildChangeEvent(spec_, scan_->value(), reads_, &event_);
      if (!made.ok()) {
        status_ = made.status();
        return false;
      }
      if (!*made) continue;
      if (InvalidatesStream(spec_, scan_->value())) {
        invalidating_entry_.assign(reinterpret_cast<const char*>(scan_->value().data()),
                                   scan_->value().size());
      }
      ++counters_.returned;
      return true;
    }
    status_ = scan_->status();
    scan_.reset();
    return false;
  }
  BsonView document() const override { return BsonView(&event_); }
  storage::RecordId record_id() const override { return 0; }
  Status status() const override { return status_; }

  // The next change of the transaction entry held in transaction_ that makes an event, built
  // into event_; false (and the entry let go) once none is left.
  bool NextTransactionChange() {
    const BsonView entry(reinterpret_cast<const uint8_t*>(transaction_.data()),
                         transaction_.size());
    BsonView ops;
    bson_iter_t lsid, txn_number, ts, wall, op;
    if (!IsTransactionEntry(entry, &ops) || !entry.Find("lsid", &lsid) ||
        !BSON_ITER_HOLDS_DOCUMENT(&lsid) || !entry.Find("txnNumber", &txn_number) ||
        !entry.Find("ts", &ts) || !ops.Init(&op)) {
      transaction_.clear();
      return false;
    }
    TransactionOrigin origin;
    origin.lsid = IterDocument(&lsid);
    IterAsInt64(&txn_number, &origin.txn_number);
    const bool has_wall = entry.Find("wall", &wall);
    uint32_t index = 0;
    while (bson_iter_next(&op)) {
      const uint32_t this_index = index++;
      if (this_index < transaction_index_ || !BSON_ITER_HOLDS_DOCUMENT(&op)) continue;
      transaction_index_ = this_index + 1;
      if (seen_.ts.value != 0 && static_cast<uint64_t>(position_) == seen_.ts.value &&
          this_index <= seen_.op_index) {
        continue;  // returned before the stream was resumed
      }
      // The change as an entry of its own: the operation, with the transaction's ts and wall.
      bson_reinit(change_.get());
      const bson_t op_doc = IterDocument(&op).AsBson();
      bson_concat(change_.get(), &op_doc);
      AppendIter(change_.get(), "ts", &ts);
      if (has_wall) AppendIter(change_.get(), "wall", &wall);
      origin.op_index = this_index;
      bson_reinit(&event_);
      Result<bool> made = BuildChangeEvent(spec_, change_.view(), reads_, &event_, &origin);
      if (!made.ok()) {
        status_ = made.status();
        return false;
      }
      if (*made) {
        ++counters_.returned;
        return true;
      }
    }
    transaction_.clear();
    return false;
  }

  // The newest entry examined (a ts): what a high-water-mark token stands at.
  storage::RecordId position() const { return position_; }
  // The invalidate event was handed out: the stream has ended.
  bool invalidated() const { return invalidated_; }

 private:
  ServerState& state_;
  const ChangeStreamSpec spec_;
  ChangeEventReads reads_;
  storage::Prefix oplog_ = 0;
  storage::RecordId position_;
  const ResumePoint seen_;
  storage::RecordId visible_ = 0;
  // The transaction entry whose changes are being returned (empty: none), and the index of the
  // next change to look at.
  std::string transaction_;
  uint32_t transaction_index_ = 0;
  BsonDoc change_;  // the change being made into an event (its buffer reused)
  std::unique_ptr<storage::RecordCursor> scan_;
  bson_t event_ = BSON_INITIALIZER;
  std::string invalidating_entry_;  // the entry whose event invalidates the stream
  bool invalidated_ = false;
  Status status_;
};

// The cursor's stream: the stages after $changeStream over the events. It keeps the _id (the
// resume token) of the last two documents it handed out, for postBatchResumeToken, and refuses
// a document whose _id the stages changed: the stream could not be resumed from it.
class ChangeStreamOutput final : public DocumentStream, public BatchFields {
 public:
  // `split_large_events`: the pipeline ends with $changeStreamSplitLargeEvent. `resume_fragment`:
  // the stream resumes from this fragment's token; the fragments up to it are left out.
  ChangeStreamOutput(std::unique_ptr<query::Pipeline> pipeline,
                     std::unique_ptr<ChangeEventSource> source, bool split_large_events,
                     std::optional<ResumePoint> resume_fragment)
      : pipeline_(std::move(pipeline)),
        source_(source.get()),
        split_large_events_(split_large_events),
        resume_fragment_(resume_fragment) {
    output_ = pipeline_ ? pipeline_->Bind(std::move(source), /*skip_leading_match=*/false)
                        : std::unique_ptr<query::DocumentSource>(std::move(source));
  }

  bool Next() override {
    if (!status_.ok()) return false;
    if (next_fragment_ < fragments_.size()) return NextFragment();
    fragments_.clear();
    next_fragment_ = 0;
    if (!output_->Next()) return false;
    bson_iter_t id;
    BsonView doc = output_->document();
    BsonView event = source_->document();
    bson_iter_t event_id;
    if (!doc.Find("_id", &id) || !BSON_ITER_HOLDS_DOCUMENT(&id) || !event.Find("_id", &event_id) ||
        IterDocument(&id).size() != IterDocument(&event_id).size() ||
        std::memcmp(IterDocument(&id).data(), IterDocument(&event_id).data(),
                    IterDocument(&id).size()) != 0) {
      status_ = Status(ErrorCode::kChangeStreamFatalError,
                       "Encountered an event whose _id field, which contains the resume token, "
                       "was modified by the pipeline. Modifying the _id field of an event makes it "
                       "impossible to resume the stream from that point. Only transformations "
                       "that retain the unmodified _id field are allowed.");
      return false;
    }
    const std::optional<ResumePoint> resume_fragment = resume_fragment_;
    resume_fragment_.reset();  // only the first event can be the one resumed from
    if (split_large_events_ && ChangeEventSize(doc) > kMaxChangeEventSize) {
      Result<ResumePoint> parsed = ParseResumeToken(&event_id);
      if (!parsed.ok()) {
        status_ = parsed.status();
        return false;
      }
      const ResumePoint point = *parsed;
      size_t skip = 0;
      if (resume_fragment && resume_fragment->ts.value == point.ts.value &&
          resume_fragment->op_index == point.op_index) {
        skip = *resume_fragment->fragment + 1;
      }
      size_t total = 0;
      status_ = SplitChangeEvent(doc, point, skip, &fragments_, &total);
      // Resumed from the event's last fragment: the stream goes on after the event.
      if (status_.ok() && skip == total) return Next();
      if (status_.ok() && fragments_.empty()) {
        status_ = Status(ErrorCode::kChangeStreamFatalError,
                         "Attempted to resume from a split event, but the resumed stream produced "
                         "a different split. Ensure that the pipeline used to resume is the same "
                         "as the original");
      }
      if (!status_.ok()) return false;
      return NextFragment();
    }
    if (!split_large_events_ && doc.size() > static_cast<size_t>(kMaxInternalBsonObjectSize)) {
      status_ = ObjectTooLarge(doc.size(), doc.data(), doc.size());
      return false;
    }
    RecordToken(IterDocument(&id));
    return true;
  }
  BsonView document() const override {
    return next_fragment_ > 0 ? fragments_[next_fragment_ - 1].view() : output_->document();
  }
  storage::RecordId record_id() const override { return 0; }
  Status status() const override { return status_.ok() ? output_->status() : status_; }

  // postBatchResumeToken for the batch just filled: the last document returned (the one before
  // a document pulled but left for the next batch), or the high-water mark when the oplog had
  // nothing more.
  bool Closed(const Cursor& cursor) const override {
    return source_->invalidated() && cursor.buffered_offset >= cursor.buffered.size();
  }

  void Append(const Cursor& cursor, bool exhausted, bson_t* cursor_doc) const override {
    const bool one_left = cursor.buffered_offset < cursor.buffered.size();
    const std::string& token = one_left ? previous_token_ : last_token_;
    if ((exhausted && !one_left) || token.empty()) {
      ResumePoint point;
      point.ts = Timestamp{static_cast<uint64_t>(source_->position())};
      point.op_index = ResumePoint::kWholeEntry;  // everything of that entry was examined
      AppendResumeToken(cursor_doc, "postBatchResumeToken", point);
      return;
    }
    bson_t doc;
    bson_init_static(&doc, reinterpret_cast<const uint8_t*>(token.data()), token.size());
    BSON_APPEND_DOCUMENT(cursor_doc, "postBatchResumeToken", &doc);
  }

 private:
  // Hands out the next fragment of the event split last.
  bool NextFragment() {
    BsonView fragment = fragments_[next_fragment_++].view();
    bson_iter_t id;
    fragment.Find("_id", &id);
    RecordToken(IterDocument(&id));
    return true;
  }

  void RecordToken(BsonView token) {
    previous_token_.swap(last_token_);  // both buffers are reused: no allocation per event
    last_token_.assign(reinterpret_cast<const char*>(token.data()), token.size());
  }

  std::unique_ptr<query::Pipeline> pipeline_;
  ChangeEventSource* source_;  // owned by output_
  std::unique_ptr<query::DocumentSource> output_;
  const bool split_large_events_;
  std::optional<ResumePoint> resume_fragment_;
  // The fragments of the event split last, and how many of them were handed out.
  std::vector<BsonDoc> fragments_;
  size_t next_fragment_ = 0;
  std::string last_token_, previous_token_;
  Status status_;
};

bool AllowedAfterChangeStream(std::string_view stage) {
  return stage == "$match" || stage == "$project" || stage == "$addFields" || stage == "$set" ||
         stage == "$unset" || stage == "$replaceRoot" || stage == "$replaceWith" ||
         stage == "$redact" || stage == "$changeStreamSplitLargeEvent";
}

}  // namespace

Status ReplyWithChangeStream(CommandContext& ctx, std::string_view db, std::string_view collection,
                             BsonView pipeline, const query::PipelineOptions& options,
                             int64_t batch_size, bson_t* reply) {
  bson_iter_t stage_it;
  pipeline.Init(&stage_it);
  bson_iter_next(&stage_it);  // the caller found $changeStream first
  bson_iter_t spec_it;
  IterDocument(&stage_it).Init(&spec_it);
  bson_iter_next(&spec_it);
  CAIRN_ASSIGN_OR_RETURN(ChangeStreamSpec spec, ParseChangeStreamSpec(&spec_it, db, collection));

  // The stages after $changeStream, as a pipeline of their own; $changeStreamSplitLargeEvent,
  // the last, is the output's.
  BsonDoc rest;
  uint32_t count = 0;
  bool split_large_events = false;
  while (bson_iter_next(&stage_it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&stage_it)) break;  // Pipeline::Parse reports it
    bson_iter_t name;
    IterDocument(&stage_it).Init(&name);
    if (bson_iter_next(&name)) {
      std::string_view stage = IterKey(&name);
      if (stage == "$changeStream") {
        return Status(ErrorCode::kLocation40602,
                      "$changeStream is only valid as the first stage in a pipeline");
      }
      if (!AllowedAfterChangeStream(stage)) {
        return Status(ErrorCode::kIllegalOperation,
                      std::string(stage) + " is not permitted in a $changeStream pipeline");
      }
      if (stage == "$changeStreamSplitLargeEvent") {
        bson_iter_t after = stage_it;
        CAIRN_RETURN_IF_ERROR(CheckSplitLargeEventStage(&name, !bson_iter_next(&after)));
        split_large_events = true;
        continue;
      }
    }
    AppendIter(rest.get(), std::to_string(count++), &stage_it);
  }
  std::unique_ptr<query::Pipeline> stages;
  if (count > 0) {
    CAIRN_ASSIGN_OR_RETURN(query::Pipeline parsed, query::Pipeline::Parse(rest.view(), options));
    stages = std::make_unique<query::Pipeline>(std::move(parsed));
  }

  // Where the stream starts: after the resume token's entry, at startAtOperationTime, or after
  // the newest entry committed now.
  ReplicationCoordinator& repl = ctx.state.repl();
  storage::RecordId position = static_cast<storage::RecordId>(repl.last_applied().value);
  const std::optional<ResumePoint>& token =
      spec.resume_after ? spec.resume_after : spec.start_after;
  std::optional<Timestamp> resume_ts;
  ResumePoint seen;
  std::optional<ResumePoint> resume_fragment;
  if (token) {
    // The token's entry is read again: a transaction's changes after the token's follow.
    resume_ts = token->ts;
    position = static_cast<storage::RecordId>(token->ts.value) - 1;
    seen = *token;
    if (token->fragment) {
      // A fragment's: its event is made again, and the output leaves out the fragments up to it.
      if (!split_large_events) {
        return Status(ErrorCode::kChangeStreamFatalError,
                      "To resume from a split event, the $changeStream pipeline must include a "
                      "$changeStreamSplitLargeEvent stage");
      }
      resume_fragment = *token;
      if (seen.op_index == 0) {
        seen = ResumePoint{};  // nothing of the entry was returned whole
      } else {
        --seen.op_index;
        seen.fragment.reset();
      }
    }
  } else if (spec.start_at_operation_time) {
    resume_ts = *spec.start_at_operation_time;
    position = static_cast<storage::RecordId>(spec.start_at_operation_time->value) - 1;
  }
  const storage::Prefix oplog = repl.oplog().prefix();
  if (resume_ts) {
    CAIRN_ASSIGN_OR_RETURN(storage::RecordId oldest, OldestEntry(ctx.state.engine(), oplog));
    if (oldest == 0 || static_cast<uint64_t>(oldest) > resume_ts->value) return HistoryLost();
  }

  auto source = std::make_unique<ChangeEventSource>(ctx.state, std::move(spec), position, seen);
  auto output = std::make_unique<ChangeStreamOutput>(std::move(stages), std::move(source),
                                                     split_large_events, resume_fragment);
  auto cursor = std::make_unique<Cursor>();
  cursor->batch_fields = output.get();
  const BatchFields* output_fields = output.get();
  cursor->ns =
      collection.empty() ? MakeNamespace(db, "$cmd.aggregate") : MakeNamespace(db, collection);
  cursor->stream = std::move(output);
  cursor->tailable = true;
  cursor->await_data = true;
  cursor->collection_prefix = oplog;
  cursor->interrupt = ctx.interrupt;
  const int64_t max_docs = batch_size > 0 ? batch_size : kDefaultFirstBatchDocs;
  return AppendCursorBatch(reply, std::move(cursor), ctx.interrupt->op(), "firstBatch", max_docs,
                           batch_size == 0, [&](std::unique_ptr<Cursor> done, bool) -> int64_t {
                             if (!done->stream->status().ok() || output_fields->Closed(*done)) {
                               return 0;
                             }
                             return RegisterCursor(ctx, std::move(done));
                           });
}

}  // namespace cairn::server
