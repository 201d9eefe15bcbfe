// DocumentStreams: collection scan, _id point lookup, skip and limit; the query stream built
// from them (the sort is sort_stream.cc).
#include "server/exec/stream_builder.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/interrupt.h"
#include "index/key_string.h"
#include "index/planner.h"
#include "server/catalog/collection_indexes.h"
#include "server/exec/access_path.h"
#include "server/exec/sort_stream.h"
#include "server/exec/text_search.h"

namespace cairn::server {

namespace {

// A collection that does not exist (explain's EOF).
class EmptyStream final : public DocumentStream {
 public:
  EmptyStream() : DocumentStream(StageType::kEof) {}
  bool Next() override { return false; }
  BsonView document() const override { return BsonView(); }
  storage::RecordId record_id() const override { return 0; }
};

// Every document of a collection in RecordId order (or reverse), filtered by the matcher.
class CollectionScanStream final : public DocumentStream {
 public:
  CollectionScanStream(std::unique_ptr<storage::RecordCursor> cursor,
                       std::shared_ptr<const query::Matcher> matcher, bool reverse,
                       std::shared_ptr<const InterruptSlot> interrupt)
      : DocumentStream(StageType::kCollScan),
        cursor_(std::move(cursor)),
        matcher_(std::move(matcher)),
        interrupt_(std::move(interrupt)),
        match_all_(matcher_->MatchesAll()),
        reverse_(reverse) {}

  bool Next() override {
    while (cursor_->Next()) {
      // A safe point: maxTimeMS, killOp, shutdown and a client gone stop a scan here.
      if (Status interrupted = CheckInterrupt(interrupt_.get()); !interrupted.ok()) {
        error_ = std::move(interrupted);
        return false;
      }
      ++counters_.docs_examined;
      if (match_all_) return Returned();
      Result<bool> matched = matcher_->Matches(cursor_->value());
      if (!matched.ok()) {  // a $expr evaluation error ends the query
        error_ = matched.status();
        return false;
      }
      if (*matched) return Returned();
    }
    return false;
  }
  BsonView document() const override { return cursor_->value(); }
  storage::RecordId record_id() const override { return cursor_->id(); }
  Status status() const override { return error_.ok() ? cursor_->status() : error_; }
  void AppendPlanFields(bson_t* out) const override {
    AppendExplainFilter(*matcher_, "filter", out);
    AppendUtf8(out, "direction", reverse_ ? "backward" : "forward");
  }

 private:
  bool Returned() {
    ++counters_.returned;
    return true;
  }
  std::unique_ptr<storage::RecordCursor> cursor_;
  std::shared_ptr<const query::Matcher> matcher_;
  std::shared_ptr<const InterruptSlot> interrupt_;
  bool match_all_;
  bool reverse_;
  Status error_;
};

// True when `doc`'s _id encodes to exactly `key`.
bool HasIdKey(BsonView doc, std::string_view key) {
  bson_iter_t id;
  if (!doc.Find("_id", &id)) return false;
  thread_local std::string encoded;
  encoded.clear();
  index::AppendValue(&encoded, &id);
  return encoded == key;
}

}  // namespace

Status ReadById(const storage::Reader& reader, const storage::CollectionEntry& collection,
                const bson_iter_t* id, IdCache* id_cache, std::string* document,
                storage::RecordId* record_id, bool* found) {
  thread_local std::string key;
  key.clear();
  index::AppendValue(&key, id);
  *found = false;
  // The cache only names a candidate: it counts when that record exists and carries this
  // _id (a deleted document, a colliding key or a torn slot fall back to the index).
  if (id_cache != nullptr && id_cache->Lookup(collection.prefix, key, record_id)) {
    CAIRN_RETURN_IF_ERROR(
        ReadRecordThroughCache(reader, collection.prefix, *record_id, id_cache, document, found));
    if (*found &&
        HasIdKey(BsonView(reinterpret_cast<const uint8_t*>(document->data()), document->size()),
                 key)) {
      return Status::OK();
    }
    *found = false;
  }
  std::string value;
  CAIRN_RETURN_IF_ERROR(reader.GetIndexEntry(collection.indexes[0].prefix, key, &value, found));
  if (!*found) return Status::OK();
  *record_id = storage::DecodeRecordId(value);
  CAIRN_RETURN_IF_ERROR(
      ReadRecordThroughCache(reader, collection.prefix, *record_id, id_cache, document, found));
  if (*found && id_cache != nullptr) id_cache->Insert(collection.prefix, key, *record_id);
  return Status::OK();
}

namespace {

// At most one document: the one whose _id index entry matches, if the rest of the filter
// matches it too.
class IdLookupStream final : public DocumentStream {
 public:
  IdLookupStream(const storage::Reader& reader, const storage::CollectionEntry& collection,
                 std::shared_ptr<const query::Matcher> matcher, const bson_iter_t* id,
                 IdCache* id_cache, std::shared_ptr<const CollectionIndexes> indexes)
      : DocumentStream(StageType::kIdHack), indexes_(std::move(indexes)) {
    bool found = false;
    status_ = ReadById(reader, collection, id, id_cache, &document_, &record_id_, &found);
    if (!status_.ok() || !found) return;
    counters_.keys_examined = counters_.docs_examined = 1;
    Result<bool> matched = matcher->Matches(view());
    if (!matched.ok()) {  // a $expr evaluation error
      status_ = matched.status();
      return;
    }
    ready_ = *matched;
    if (ready_ && indexes_ != nullptr) index::AppendValue(&key_, id);
  }

  bool Next() override {
    bool has = ready_;
    ready_ = false;
    if (has) ++counters_.returned;
    return has;
  }
  BsonView document() const override { return view(); }
  storage::RecordId record_id() const override { return record_id_; }
  Status status() const override { return status_; }
  IndexKeyRef index_key() const override {
    if (indexes_ == nullptr) return IndexKeyRef();
    return IndexKeyRef{&indexes_->all()[0].descriptor->key_pattern(), key_};
  }

 private:
  BsonView view() const {
    return BsonView(reinterpret_cast<const uint8_t*>(document_.data()), document_.size());
  }
  std::string document_;
  storage::RecordId record_id_ = 0;
  Status status_;
  bool ready_ = false;
  // returnKey: the collection's indexes (the _id index is the first) and the entry's key.
  std::shared_ptr<const CollectionIndexes> indexes_;
  std::string key_;
};

// SKIP and LIMIT: each passes on its input's documents, less the first `skip_` / past `limit_`.
class SkipStream final : public DocumentStream {
 public:
  SkipStream(std::unique_ptr<DocumentStream> child, int64_t skip)
      : DocumentStream(StageType::kSkip), child_(std::move(child)), skip_(skip) {}

  bool Next() override {
    for (; skipped_ < skip_; ++skipped_) {
      if (!child_->Next()) return false;
    }
    if (!child_->Next()) return false;
    ++counters_.returned;
    return true;
  }
  BsonView document() const override { return child_->document(); }
  storage::RecordId record_id() const override { return child_->record_id(); }
  Status status() const override { return child_->status(); }
  IndexKeyRef index_key() const override { return child_->index_key(); }
  std::optional<double> text_score() const override { return child_->text_score(); }
  void AppendPlanFields(bson_t* out) const override { AppendCount(out, "skipAmount", skip_); }
  size_t input_count() const override { return 1; }
  const PlanStage* input(size_t) const override { return child_.get(); }

 private:
  std::unique_ptr<DocumentStream> child_;
  int64_t skip_;
  int64_t skipped_ = 0;
};

class LimitStream final : public DocumentStream {
 public:
  LimitStream(std::unique_ptr<DocumentStream> child, int64_t limit)
      : DocumentStream(StageType::kLimit), child_(std::move(child)), limit_(limit) {}

  bool Next() override {
    if (counters_.returned >= limit_ || !child_->Next()) return false;
    ++counters_.returned;
    return true;
  }
  BsonView document() const override { return child_->document(); }
  storage::RecordId record_id() const override { return child_->record_id(); }
  Status status() const override { return child_->status(); }
  IndexKeyRef index_key() const override { return child_->index_key(); }
  std::optional<double> text_score() const override { return child_->text_score(); }
  void AppendPlanFields(bson_t* out) const override { AppendCount(out, "limitAmount", limit_); }
  size_t input_count() const override { return 1; }
  const PlanStage* input(size_t) const override { return child_.get(); }

 private:
  std::unique_ptr<DocumentStream> child_;
  int64_t limit_;
};

}  // namespace

void AppendExplainFilter(const query::Matcher& matcher, const char* key, bson_t* out) {
  if (matcher.MatchesAll()) return;
  BsonDoc parsed;
  if (!index::AppendFilter(matcher.root(), parsed.get())) parsed = BsonDoc(matcher.filter());
  BSON_APPEND_DOCUMENT(out, key, parsed.get());
}

Result<QueryPlan> PlanQuery(const storage::Reader& reader,
                            const storage::CollectionHandle& collection, const QuerySpec& spec,
                            IdCache* id_cache, bool with_rejected) {
  QueryPlan plan;
  if (!collection) {
    plan.root = std::make_unique<EmptyStream>();
    return plan;
  }
  std::unique_ptr<DocumentStream> stream;
  bool sorted = false;
  bson_iter_t id;
  CAIRN_ASSIGN_OR_RETURN(const query::TextMatchExpression* text,
                         query::FindTextClause(spec.matcher->root()));
  const bool text_score_sort = spec.sort && spec.sort->needs_text_score();
  if (text_score_sort && text == nullptr) return query::TextScoreNotAvailable();
  if (text != nullptr) {  // $text: the text index decides (server/exec/text_search.h)
    CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<TextSearchStream> searched,
                           MakeTextSearchStream(reader, collection, *text, spec));
    stream = text_score_sort ? WithTextScoreField(std::move(searched)) : std::move(searched);
  } else if (spec.hint.empty() && spec.matcher->IdEquality(&id)) {
    std::shared_ptr<const CollectionIndexes> indexes;
    if (spec.return_key) {
      CAIRN_ASSIGN_OR_RETURN(indexes, IndexesOf(collection));
    }
    stream = std::make_unique<IdLookupStream>(reader, *collection, spec.matcher, &id, id_cache,
                                              std::move(indexes));
  } else {
    CAIRN_ASSIGN_OR_RETURN(AccessPath path,
                           PlanAccessPath(reader, collection, spec, id_cache, with_rejected));
    if (path.stream) {
      stream = std::move(path.stream);
      sorted = path.provides_sort;
      plan.covered = path.covered;
      plan.rejected = std::move(path.rejected);
    } else {
      auto cursor = spec.reverse_natural ? reader.ScanRecordsReverse(collection->prefix)
                                         : reader.ScanRecords(collection->prefix);
      stream = std::make_unique<CollectionScanStream>(std::move(cursor), spec.matcher,
                                                      spec.reverse_natural, spec.interrupt);
    }
  }
  const bool blocking_sort = spec.sort && !spec.sort->empty() && !sorted;
  if (blocking_sort) {
    // With a limit it keeps (and returns) only the first skip + limit: no LIMIT above it.
    int64_t keep = spec.limit > 0 ? spec.skip + spec.limit : 0;
    stream = MakeSortStream(std::move(stream), spec.sort, keep, spec.spill_dir,
                            spec.max_sort_memory_bytes, spec.return_key);
  }
  if (text_score_sort) stream = WithoutTextScoreField(std::move(stream));
  if (spec.skip > 0) stream = std::make_unique<SkipStream>(std::move(stream), spec.skip);
  if (spec.limit > 0 && !blocking_sort) {
    stream = std::make_unique<LimitStream>(std::move(stream), spec.limit);
  }
  plan.root = std::move(stream);
  return plan;
}

Result<std::unique_ptr<DocumentStream>> BuildQueryStream(
    const storage::Reader& reader, const storage::CollectionHandle& collection,
    const QuerySpec& spec, IdCache* id_cache) {
  CAIRN_ASSIGN_OR_RETURN(QueryPlan plan,
                         PlanQuery(reader, collection, spec, id_cache, /*with_rejected=*/false));
  return std::move(plan.root);
}

}  // namespace cairn::server
