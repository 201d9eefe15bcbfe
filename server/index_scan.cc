// IndexScanStream (index_scan.h): key ranges → RecordIds → documents → the matcher.
#include "server/index_scan.h"

#include "server/collection_indexes.h"

namespace cairn::server {

namespace {

// Above every key's first byte (type bytes, inverted or not, stay below 0xFF): a reverse seek
// target for "from the end of the index".
constexpr std::string_view kAboveEveryKey = "\xff";

class IndexScanStream final : public DocumentStream {
 public:
  IndexScanStream(const storage::Engine& engine, IndexScanSpec spec)
      : engine_(engine),
        spec_(std::move(spec)),
        counters_(spec_.counters != nullptr ? spec_.counters : &own_counters_),
        match_all_(spec_.matcher->MatchesAll()),
        point_lookups_(spec_.unique && spec_.ranges.exact_keys()) {
    if (!point_lookups_ && !spec_.ranges.ranges().empty()) {
      cursor_ = spec_.reverse ? engine_.ScanIndexReverse(spec_.index, "", "")
                              : engine_.ScanIndex(spec_.index, "", "");
      SeekRange();
    }
  }

  bool Next() override {
    while (true) {
      storage::RecordId id = 0;
      if (!NextEntry(&id)) return false;
      if (spec_.dedup) {
        ++counters_->dups_tested;
        if (!seen_.insert(id).second) {
          ++counters_->dups_dropped;
          continue;
        }
      }
      ++counters_->keys_returned;
      bool found = false;
      status_ = engine_.GetRecord(spec_.collection, id, &document_, &found);
      if (!status_.ok()) return false;
      ++counters_->docs_examined;
      if (!found) continue;  // deleted since the key was read
      if (!match_all_) {
        Result<bool> matched = spec_.matcher->MatchesChecked(view());
        if (!matched.ok()) {  // a $expr evaluation error ends the query
          status_ = matched.status();
          return false;
        }
        if (!*matched) continue;
      }
      record_id_ = id;
      return true;
    }
  }

  BsonView document() const override { return view(); }
  storage::RecordId record_id() const override { return record_id_; }
  Status status() const override { return status_; }
  int64_t docs_examined() const override { return counters_->docs_examined; }
  int64_t keys_examined() const override { return counters_->keys_examined; }

 private:
  BsonView view() const {
    return BsonView(reinterpret_cast<const uint8_t*>(document_.data()), document_.size());
  }

  void SeekRange() {
    const index::IndexScanRanges::Range& r = spec_.ranges.ranges()[range_];
    ++counters_->seeks;
    if (!spec_.reverse) {
      cursor_->Seek(r.start);
    } else {
      cursor_->Seek(r.end.empty() ? kAboveEveryKey : std::string_view(r.end));
    }
  }

  // The RecordId of the next index entry within the bounds.
  bool NextEntry(storage::RecordId* id) {
    const auto& ranges = spec_.ranges.ranges();
    if (point_lookups_) {
      while (range_ < ranges.size()) {
        const std::string& key = ranges[range_++].start;
        ++counters_->seeks;
        bool found = false;
        status_ = engine_.GetIndexEntry(spec_.index, key, &value_, &found);
        if (!status_.ok()) return false;
        if (!found) continue;
        ++counters_->keys_examined;
        *id = storage::DecodeRecordId(value_);
        return true;
      }
      return false;
    }
    if (!cursor_) return false;
    while (range_ < ranges.size()) {
      if (!cursor_->Next()) {
        status_ = cursor_->status();
        return false;  // the index has no more entries in this direction
      }
      std::string_view key = cursor_->key();
      const index::IndexScanRanges::Range& r = ranges[range_];
      const bool past = spec_.reverse ? key < std::string_view(r.start)
                                      : !r.end.empty() && key >= std::string_view(r.end);
      if (past) {
        if (++range_ < ranges.size()) SeekRange();
        continue;
      }
      ++counters_->keys_examined;
      if (spec_.ranges.needs_key_check() &&
          !spec_.ranges.KeyInBounds(IndexEntryKeyBytes(spec_.unique, key), &scratch_)) {
        continue;
      }
      *id = IndexEntryRecordId(spec_.unique, key, cursor_->value());
      return true;
    }
    return false;
  }

  const storage::Engine& engine_;
  IndexScanSpec spec_;
  IndexScanCounters own_counters_;
  IndexScanCounters* counters_;
  bool match_all_;
  bool point_lookups_;
  std::unique_ptr<storage::IndexCursor> cursor_;
  size_t range_ = 0;
  std::vector<std::string_view> scratch_;
  std::unordered_set<storage::RecordId> seen_;
  std::string value_;
  std::string document_;
  storage::RecordId record_id_ = 0;
  Status status_;
};

}  // namespace

std::unique_ptr<DocumentStream> MakeIndexScanStream(const storage::Engine& engine,
                                                    IndexScanSpec spec) {
  return std::make_unique<IndexScanStream>(engine, std::move(spec));
}

}  // namespace cairn::server
