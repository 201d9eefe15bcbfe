// IndexScanStream (index_scan.h): key ranges → RecordIds → documents → the matcher; or keys →
// covered documents; or keys counted.
#include "server/exec/index_scan.h"

#include "common/field_path.h"
#include "common/interrupt.h"
#include "index/key_string.h"
#include "server/catalog/collection_indexes.h"

namespace cairn::server {

namespace {

// Above every key's first byte (type bytes, inverted or not, stay below 0xFF): a reverse seek
// target for "from the end of the index".
constexpr std::string_view kAboveEveryKey = "\xff";

// Walks one index's ranges: the entries within the bounds, in scan order.
class KeyWalker {
 public:
  KeyWalker(const storage::Reader& reader, IndexScanBranch branch, StageCounters* counters)
      : reader_(reader),
        branch_(std::move(branch)),
        counters_(counters),
        point_lookups_(branch_.unique && branch_.ranges.exact_keys()) {
    if (!point_lookups_ && !branch_.ranges.ranges().empty()) {
      cursor_ = branch_.reverse ? reader_.ScanIndexReverse(branch_.index, "", "")
                                : reader_.ScanIndex(branch_.index, "", "");
      SeekRange();
    }
  }

  // The next entry within the bounds: its RecordId, and its key bytes (without a RecordId
  // suffix; valid until the next call). False at the end or on error (status()).
  bool Next(storage::RecordId* id, std::string_view* key_bytes) {
    const auto& ranges = branch_.ranges.ranges();
    if (point_lookups_) {
      while (range_ < ranges.size()) {
        const std::string& key = ranges[range_++].start;
        ++counters_->seeks;
        bool found = false;
        status_ = reader_.GetIndexEntry(branch_.index, key, &value_, &found);
        if (!status_.ok()) return false;
        if (!found) continue;
        ++counters_->keys_examined;
        *id = storage::DecodeRecordId(value_);
        *key_bytes = key;
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
      const bool past = branch_.reverse ? key < std::string_view(r.start)
                                        : !r.end.empty() && key >= std::string_view(r.end);
      if (past) {
        if (++range_ < ranges.size()) SeekRange();
        continue;
      }
      ++counters_->keys_examined;
      std::string_view bytes = IndexEntryKeyBytes(branch_.unique, key);
      if (branch_.ranges.needs_key_check() && !branch_.ranges.KeyInBounds(bytes, &scratch_)) {
        continue;
      }
      *id = IndexEntryRecordId(branch_.unique, key, cursor_->value());
      *key_bytes = bytes;
      return true;
    }
    return false;
  }

  // Moves on past every key that starts with `prefix` (a key's first field bytes): the next
  // entry returned has another value in that field.
  void SkipPast(std::string_view prefix) {
    if (point_lookups_ || !cursor_) return;  // each lookup is its own key already
    if (branch_.reverse) {
      cursor_->Seek(prefix);
      return;
    }
    std::string next = index::PrefixSuccessor(prefix);
    if (next.empty()) {
      range_ = branch_.ranges.ranges().size();  // nothing sorts after it
      return;
    }
    ++counters_->seeks;
    cursor_->Seek(next);
  }

  Status status() const { return status_; }
  StageCounters* counters() const { return counters_; }
  const index::KeyPattern* pattern() const {
    return branch_.descriptor ? &branch_.descriptor->key_pattern() : nullptr;
  }

 private:
  void SeekRange() {
    const index::IndexScanRanges::Range& r = branch_.ranges.ranges()[range_];
    ++counters_->seeks;
    if (!branch_.reverse) {
      cursor_->Seek(r.start);
    } else {
      cursor_->Seek(r.end.empty() ? kAboveEveryKey : std::string_view(r.end));
    }
  }

  const storage::Reader& reader_;
  IndexScanBranch branch_;
  StageCounters* counters_;
  bool point_lookups_;
  std::unique_ptr<storage::IndexCursor> cursor_;
  size_t range_ = 0;
  std::vector<std::string_view> scratch_;
  std::string value_;
  Status status_;
};

// Whether a decoded key value has the BSON type the document held: the encoding keeps a number's
// value but not its type, and null also stands for a missing field.
bool TypeRecoverable(const bson_iter_t* value) {
  switch (bson_iter_type(value)) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128:
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
      return false;
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY: {
      bson_iter_t child;
      if (!bson_iter_recurse(value, &child)) return false;
      while (bson_iter_next(&child)) {
        if (!TypeRecoverable(&child)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

class IndexScanStream final : public DocumentStream {
 public:
  IndexScanStream(const storage::Reader& reader, IndexScanSpec spec)
      : DocumentStream(StageType::kFetch),
        reader_(reader),
        spec_(std::move(spec)),
        match_all_(spec_.output != IndexScanOutput::kFetch || spec_.matcher->MatchesAll()) {
    const bool is_or = spec_.branches.size() > 1;
    if (is_or) spec_.dedup = true;  // an OR stage drops RecordIds an earlier branch returned
    // The stages above the branches, and who counts what (index_scan.h).
    FusedStage* parent = nullptr;  // where the branches' stages hang (null: this stream)
    switch (spec_.output) {
      case IndexScanOutput::kFetch:
        if (spec_.subplan) {
          set_stage_type(StageType::kSubplan);
          input_ = std::make_unique<FusedStage>(StageType::kFetch, spec_.fetch_fields);
          fetch_stage_ = input_.get();
          parent = input_.get();
        }
        fetch_ = fetch_stage_ != nullptr ? &fetch_stage_->mutable_counters() : &counters_;
        break;
      case IndexScanOutput::kDistinct:
        set_stage_type(StageType::kProjectionCovered);
        break;
      case IndexScanOutput::kCovered:
      case IndexScanOutput::kCountOnly:
        set_stage_type(spec_.branches[0].stage);  // the stream is the index scan itself
        branch_is_self_ = true;
        break;
    }
    if (is_or) {
      auto or_stage = std::make_unique<FusedStage>(StageType::kOr);
      dedup_ = &or_stage->mutable_counters();
      if (parent != nullptr) {
        parent = parent->AddInput(std::move(or_stage));
      } else {
        input_ = std::move(or_stage);
        parent = input_.get();
      }
    }
    for (IndexScanBranch& branch : spec_.branches) {
      StageCounters* counters = &counters_;
      if (!branch_is_self_) {
        auto stage = std::make_unique<FusedStage>(branch.stage, std::move(branch.describe));
        counters = &stage->mutable_counters();
        if (parent != nullptr) {
          parent->AddInput(std::move(stage));
        } else {
          input_ = std::move(stage);
        }
      } else {
        self_fields_ = std::move(branch.describe);
      }
      walkers_.emplace_back(reader_, std::move(branch), counters);
    }
    if (dedup_ == nullptr) dedup_ = walkers_[0].counters();
    if (fetch_ == nullptr) fetch_ = walkers_[0].counters();
  }

  bool Next() override {
    while (true) {
      storage::RecordId id = 0;
      std::string_view key;
      // A safe point (common/interrupt.h), once per index entry.
      status_ = CheckInterrupt(spec_.interrupt.get());
      if (!status_.ok()) return false;
      if (!NextEntry(&id, &key)) return false;
      if (spec_.dedup) {
        ++dedup_->dups_tested;
        if (!seen_.insert(id).second) {
          ++dedup_->dups_dropped;
          continue;
        }
      }
      ++dedup_->returned;
      record_id_ = id;
      key_ = key;
      if (spec_.output == IndexScanOutput::kCountOnly) {
        document_.clear();
        return true;  // the stream is the scan: counted above
      }
      if (spec_.output == IndexScanOutput::kDistinct) {
        bool built = false;
        status_ = BuildDistinct(key, &built);
        if (!status_.ok()) return false;
        if (built) return Returned();
        // A value whose type the key lost: its document is read instead.
      }
      if (spec_.output == IndexScanOutput::kCovered) {
        bool covered = false;
        status_ = BuildCovered(key, &covered);
        if (!status_.ok()) return false;
        if (covered) return true;  // the stream is the scan: counted above
        // A value whose type the key lost: this document is read instead.
      }
      bool found = false;
      status_ = ReadRecordThroughCache(reader_, spec_.collection, id, spec_.record_cache,
                                       &document_, &found);
      if (!status_.ok()) return false;
      ++fetch_->docs_examined;
      if (!found) continue;  // deleted since the key was read
      if (!match_all_) {
        Result<bool> matched = spec_.matcher->Matches(FetchedView());
        if (!matched.ok()) {  // a $expr evaluation error ends the query
          status_ = matched.status();
          return false;
        }
        if (!*matched) continue;
      }
      covered_now_ = false;
      return branch_is_self_ ? true : Returned();
    }
  }

  BsonView document() const override {
    if (covered_now_) return covered_.view();
    return FetchedView();
  }
  storage::RecordId record_id() const override { return record_id_; }
  Status status() const override { return status_; }
  IndexKeyRef index_key() const override {
    if (walker_ >= walkers_.size()) return IndexKeyRef();
    return IndexKeyRef{walkers_[walker_].pattern(), key_};
  }
  void AppendPlanFields(bson_t* out) const override {
    const FusedStage::Describe& fields = branch_is_self_ ? self_fields_
                                         : spec_.output == IndexScanOutput::kFetch && !spec_.subplan
                                             ? spec_.fetch_fields
                                             : spec_.top_fields;
    if (fields) fields(out);
  }
  size_t input_count() const override { return input_ ? 1 : 0; }
  const PlanStage* input(size_t) const override { return input_.get(); }

 private:
  // A document passed on by this stream (and by the FETCH below a SUBPLAN).
  bool Returned() {
    ++counters_.returned;
    if (fetch_stage_ != nullptr) ++fetch_stage_->mutable_counters().returned;
    return true;
  }

  BsonView FetchedView() const {
    return BsonView(reinterpret_cast<const uint8_t*>(document_.data()), document_.size());
  }

  // The next entry of the current branch, moving on to the next branch at its end.
  bool NextEntry(storage::RecordId* id, std::string_view* key) {
    while (walker_ < walkers_.size()) {
      KeyWalker& walker = walkers_[walker_];
      if (walker.Next(id, key)) {
        // An OR branch's IXSCAN passes on every key; the OR stage counts what survives dedup.
        if (walkers_.size() > 1) ++walker.counters()->returned;
        return true;
      }
      status_ = walker.status();
      if (!status_.ok()) return false;
      ++walker_;
    }
    return false;
  }

  // Builds the covered document from `key` into covered_; *covered false when a returned value's
  // type cannot be told from the key.
  Status BuildCovered(std::string_view key, bool* covered) {
    CAIRN_ASSIGN_OR_RETURN(BsonDoc decoded, index::DecodeKey(key, spec_.descending));
    bson_reinit(covered_.get());
    bson_iter_t it;
    decoded.view().Init(&it);
    for (size_t i = 0; bson_iter_next(&it) && i < spec_.covered_fields.size(); ++i) {
      const std::string& field = spec_.covered_fields[i];
      if (field.empty()) continue;
      if (!TypeRecoverable(&it)) return Status::OK();
      AppendIter(covered_.get(), field, &it);
    }
    *covered = covered_now_ = true;
    return Status::OK();
  }

  // Builds {distinct_field: value} from the first field of `key` into covered_ and skips past
  // that value; *built false when the document must be read (and for null, not skipped: a key
  // of null also stands for documents missing the field).
  Status BuildDistinct(std::string_view key, bool* built) {
    if (!index::SplitKey(key, spec_.descending, &key_fields_) || key_fields_.empty()) {
      return Status(ErrorCode::kInvalidBSON, "malformed index key");
    }
    std::string first(key_fields_[0]);  // the seek below invalidates the key's bytes
    CAIRN_ASSIGN_OR_RETURN(BsonDoc decoded, index::DecodeKey(first, {spec_.descending[0]}));
    bson_iter_t value;
    if (!decoded.view().Init(&value) || !bson_iter_next(&value)) {
      return Status(ErrorCode::kInvalidBSON, "malformed index key");
    }
    const bool recoverable = TypeRecoverable(&value);
    const bool null = BSON_ITER_HOLDS_NULL(&value) || BSON_ITER_HOLDS_UNDEFINED(&value);
    if (recoverable) {
      bson_reinit(covered_.get());
      AppendAtPath(covered_.get(), 0, &value);
      covered_now_ = true;
    }
    if (!null) walkers_[walker_].SkipPast(first);
    *built = recoverable;
    return Status::OK();
  }

  void AppendAtPath(bson_t* out, size_t part, const bson_iter_t* value) {
    if (distinct_parts_.empty()) distinct_parts_ = SplitDottedPath(spec_.distinct_field);
    const std::string& name = distinct_parts_[part];
    if (part + 1 == distinct_parts_.size()) {
      AppendIter(out, name, value);
      return;
    }
    bson_t child;
    bson_append_document_begin(out, name.c_str(), static_cast<int>(name.size()), &child);
    AppendAtPath(&child, part + 1, value);
    bson_append_document_end(out, &child);
  }

  const storage::Reader& reader_;
  IndexScanSpec spec_;
  bool match_all_;
  std::unique_ptr<FusedStage> input_;  // the stages below this one (index_scan.h)
  FusedStage* fetch_stage_ = nullptr;  // FETCH below a SUBPLAN
  StageCounters* fetch_ = nullptr;     // counts documents read (FETCH's, or the scan's)
  StageCounters* dedup_ = nullptr;     // counts RecordIds passed on and duplicates (OR or scan)
  bool branch_is_self_ = false;        // kCovered/kCountOnly: this stream is the index scan
  FusedStage::Describe self_fields_;   // ... and these are its fields
  std::string_view key_;               // the current entry's key bytes
  std::vector<KeyWalker> walkers_;
  size_t walker_ = 0;
  std::unordered_set<storage::RecordId> seen_;
  std::string document_;
  BsonDoc covered_;
  bool covered_now_ = false;
  std::vector<std::string_view> key_fields_;  // kDistinct
  std::vector<std::string> distinct_parts_;   // kDistinct
  storage::RecordId record_id_ = 0;
  Status status_;
};

}  // namespace

std::unique_ptr<DocumentStream> MakeIndexScanStream(const storage::Reader& reader,
                                                    IndexScanSpec spec) {
  return std::make_unique<IndexScanStream>(reader, std::move(spec));
}

}  // namespace cairn::server
