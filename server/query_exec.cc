// DocumentStreams: collection scan, _id point lookup, top-k/full sort, skip and limit.
#include "server/query_exec.h"

#include <algorithm>
#include <string>
#include <vector>

#include "index/key_string.h"

namespace cairn::server {

namespace {

class EmptyStream final : public DocumentStream {
 public:
  bool Next() override { return false; }
  BsonView document() const override { return BsonView(); }
  storage::RecordId record_id() const override { return 0; }
};

// Every document of a collection in RecordId order (or reverse), filtered by the matcher.
class CollectionScanStream final : public DocumentStream {
 public:
  CollectionScanStream(std::unique_ptr<storage::RecordCursor> cursor,
                       std::shared_ptr<const query::Matcher> matcher)
      : cursor_(std::move(cursor)), matcher_(std::move(matcher)),
        match_all_(matcher_->MatchesAll()) {}

  bool Next() override {
    while (cursor_->Next()) {
      ++examined_;
      if (match_all_ || matcher_->Matches(cursor_->value())) return true;
    }
    return false;
  }
  BsonView document() const override { return cursor_->value(); }
  storage::RecordId record_id() const override { return cursor_->id(); }
  Status status() const override { return cursor_->status(); }
  int64_t docs_examined() const override { return examined_; }

 private:
  std::unique_ptr<storage::RecordCursor> cursor_;
  std::shared_ptr<const query::Matcher> matcher_;
  bool match_all_;
  int64_t examined_ = 0;
};

// At most one document: the one whose _id index entry matches, if the rest of the filter
// matches it too.
// True when `doc`'s _id encodes to exactly `key`.
bool HasIdKey(BsonView doc, std::string_view key) {
  bson_iter_t id;
  if (!doc.Find("_id", &id)) return false;
  thread_local std::string encoded;
  encoded.clear();
  index::AppendValue(&encoded, &id);
  return encoded == key;
}

class IdLookupStream final : public DocumentStream {
 public:
  IdLookupStream(const storage::Engine& engine, const storage::CollectionEntry& collection,
                 std::shared_ptr<const query::Matcher> matcher, const bson_iter_t* id,
                 IdCache* id_cache) {
    std::string key;
    index::AppendValue(&key, id);
    bool found = false;
    // The cache only names a candidate: it counts when that record exists and carries this
    // _id (a deleted document, a colliding key or a torn slot fall back to the index).
    if (id_cache != nullptr && id_cache->Lookup(collection.prefix, key, &record_id_)) {
      status_ = ReadRecord(engine, collection.prefix, id_cache, &found);
      if (!status_.ok()) return;
      if (found && !HasIdKey(view(), key)) found = false;
    }
    if (!found) {
      std::string value;
      status_ = engine.GetIndexEntry(collection.indexes[0].prefix, key, &value, &found);
      if (!status_.ok() || !found) return;
      record_id_ = storage::DecodeRecordId(value);
      status_ = ReadRecord(engine, collection.prefix, id_cache, &found);
      if (!status_.ok() || !found) return;
      if (id_cache != nullptr) id_cache->Insert(collection.prefix, key, record_id_);
    }
    examined_ = 1;
    ready_ = matcher->Matches(view());
  }

  bool Next() override {
    bool has = ready_;
    ready_ = false;
    return has;
  }
  BsonView document() const override { return view(); }
  storage::RecordId record_id() const override { return record_id_; }
  Status status() const override { return status_; }
  int64_t docs_examined() const override { return examined_; }

 private:
  BsonView view() const {
    return BsonView(reinterpret_cast<const uint8_t*>(document_.data()), document_.size());
  }
  // Reads record_id_ into document_: from the cache's small-document table when it holds it,
  // else from storage (then offered to the cache, under the ticket taken before the read).
  Status ReadRecord(const storage::Engine& engine, storage::Prefix collection, IdCache* cache,
                    bool* found) {
    if (cache == nullptr) return engine.GetRecord(collection, record_id_, &document_, found);
    if (cache->LookupDocument(collection, record_id_, &document_)) {
      *found = true;
      return Status::OK();
    }
    uint64_t ticket = cache->DocumentTicket(collection, record_id_);
    Status status = engine.GetRecord(collection, record_id_, &document_, found);
    if (status.ok() && *found) cache->FillDocument(collection, record_id_, ticket, view());
    return status;
  }
  std::string document_;
  storage::RecordId record_id_ = 0;
  Status status_;
  bool ready_ = false;
  int64_t examined_ = 0;
};

// Drains its child, keeps the documents in sort order (only the first `keep` when keep > 0),
// then yields them.
class SortStream final : public DocumentStream {
 public:
  SortStream(std::unique_ptr<DocumentStream> child, std::shared_ptr<const query::SortPattern> sort,
             int64_t keep)
      : child_(std::move(child)), sort_(std::move(sort)), keep_(keep) {}

  bool Next() override {
    if (!sorted_) {
      if (!Fill()) return false;
      sorted_ = true;
    } else {
      ++position_;
    }
    return position_ < rows_.size();
  }
  BsonView document() const override { return rows_[position_].view(); }
  storage::RecordId record_id() const override { return rows_[position_].id; }
  Status status() const override { return status_; }
  int64_t docs_examined() const override { return child_->docs_examined(); }

 private:
  // A kept document: its bytes in a plain buffer (a BsonDoc would cost an over-aligned bson_t
  // allocation per document).
  struct Row {
    storage::RecordId id;
    std::string bytes;
    BsonView view() const {
      return BsonView(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
  };

  bool Less(const Row& a, const Row& b) const {
    int c = sort_->Compare(a.view(), b.view());
    return c != 0 ? c < 0 : a.id < b.id;  // stable: ties keep insertion order
  }

  bool Fill() {
    auto less = [this](const Row& a, const Row& b) { return Less(a, b); };
    int64_t bytes = 0;
    while (child_->Next()) {
      BsonView doc = child_->document();
      Row row{child_->record_id(),
              std::string(reinterpret_cast<const char*>(doc.data()), doc.size())};
      if (keep_ > 0) {
        // A max-heap of the best `keep_` rows: the worst kept row is on top.
        if (static_cast<int64_t>(rows_.size()) < keep_) {
          bytes += static_cast<int64_t>(row.bytes.size());
          rows_.push_back(std::move(row));
          std::push_heap(rows_.begin(), rows_.end(), less);
        } else if (Less(row, rows_.front())) {
          bytes += static_cast<int64_t>(row.bytes.size()) -
                   static_cast<int64_t>(rows_.front().bytes.size());
          std::pop_heap(rows_.begin(), rows_.end(), less);
          rows_.back() = std::move(row);
          std::push_heap(rows_.begin(), rows_.end(), less);
        }
      } else {
        bytes += static_cast<int64_t>(row.bytes.size());
        rows_.push_back(std::move(row));
      }
      if (bytes > kMaxBlockingSortBytes) {
        status_ = Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                         "Executor error during find command :: caused by :: Sort exceeded memory "
                         "limit of 104857600 bytes, but did not opt in to external sorting.");
        rows_.clear();
        return false;
      }
    }
    status_ = child_->status();
    if (!status_.ok()) return false;
    if (keep_ > 0) {
      std::sort_heap(rows_.begin(), rows_.end(), less);
    } else {
      std::sort(rows_.begin(), rows_.end(), less);
    }
    return true;
  }

  std::unique_ptr<DocumentStream> child_;
  std::shared_ptr<const query::SortPattern> sort_;
  int64_t keep_;
  std::vector<Row> rows_;
  size_t position_ = 0;
  bool sorted_ = false;
  Status status_;
};

class SkipLimitStream final : public DocumentStream {
 public:
  SkipLimitStream(std::unique_ptr<DocumentStream> child, int64_t skip, int64_t limit)
      : child_(std::move(child)), skip_(skip), limit_(limit) {}

  bool Next() override {
    if (limit_ > 0 && returned_ >= limit_) return false;
    while (skip_ > 0) {
      if (!child_->Next()) return false;
      --skip_;
    }
    if (!child_->Next()) return false;
    ++returned_;
    return true;
  }
  BsonView document() const override { return child_->document(); }
  storage::RecordId record_id() const override { return child_->record_id(); }
  Status status() const override { return child_->status(); }
  int64_t docs_examined() const override { return child_->docs_examined(); }

 private:
  std::unique_ptr<DocumentStream> child_;
  int64_t skip_;
  int64_t limit_;
  int64_t returned_ = 0;
};

}  // namespace

std::unique_ptr<DocumentStream> BuildQueryStream(const storage::Engine& engine,
                                                 const storage::CollectionHandle& collection,
                                                 const QuerySpec& spec, IdCache* id_cache) {
  if (!collection) return std::make_unique<EmptyStream>();
  std::unique_ptr<DocumentStream> stream;
  bson_iter_t id;
  if (spec.matcher->IdEquality(&id)) {
    stream = std::make_unique<IdLookupStream>(engine, *collection, spec.matcher, &id, id_cache);
  } else {
    auto cursor = spec.reverse_natural ? engine.ScanRecordsReverse(collection->prefix)
                                       : engine.ScanRecords(collection->prefix);
    stream = std::make_unique<CollectionScanStream>(std::move(cursor), spec.matcher);
  }
  if (spec.sort && !spec.sort->empty()) {
    int64_t keep = spec.limit > 0 ? spec.skip + spec.limit : 0;
    stream = std::make_unique<SortStream>(std::move(stream), spec.sort, keep);
  }
  if (spec.skip > 0 || spec.limit > 0) {
    stream = std::make_unique<SkipLimitStream>(std::move(stream), spec.skip, spec.limit);
  }
  return stream;
}

}  // namespace cairn::server
