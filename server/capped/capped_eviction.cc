// Capped eviction: the oldest documents leave in the same WriteUnit as the insert that
// overflows the collection.
#include "server/capped/capped_eviction.h"

#include "server/write/write_context.h"

namespace cairn::server {

std::unique_ptr<CappedEvictor> CappedEvictor::For(WriteContext& state,
                                                  const storage::CollectionEntry& collection) {
  std::optional<CappedLimits> limits = CappedLimitsOf(collection);
  if (!limits) return nullptr;
  return std::make_unique<CappedEvictor>(state, collection.prefix, *limits);
}

Status CappedEvictor::CheckFits(BsonView doc) const {
  if (static_cast<int64_t>(doc.size()) > limits_.max_bytes) {
    return Status(ErrorCode::kBadValue, "object to insert exceeds cappedMaxSize");
  }
  return Status::OK();
}

Status CappedEvictor::AfterInsert(EvictingWriter& writer, storage::RecordId id, BsonView doc) {
  inserted_ = true;
  pending_.emplace_back(id, std::string(reinterpret_cast<const char*>(doc.data()), doc.size()));
  int64_t count_delta = 0, size_delta = 0;
  writer.PendingCounts(collection_, &count_delta, &size_delta);
  const storage::Engine& engine = state_.engine();
  int64_t count = engine.RecordCount(collection_) + count_delta;
  int64_t bytes = engine.DataSize(collection_) + size_delta;
  while (limits_.Exceeded(count, bytes)) {
    int64_t evicted_bytes = 0;
    CAIRN_ASSIGN_OR_RETURN(bool evicted, EvictOldest(writer, id, &evicted_bytes));
    if (!evicted) break;
    --count;
    bytes -= evicted_bytes;
  }
  return Status::OK();
}

Result<bool> CappedEvictor::EvictOldest(EvictingWriter& writer, storage::RecordId keep,
                                        int64_t* bytes) {
  while (!scan_done_) {
    if (!scan_) {
      storage::RecordId hint = state_.capped().OldestHint(collection_);
      scan_ = state_.engine().ScanRecords(collection_, hint > 0 ? hint - 1 : 0);
    }
    if (!scan_->Next()) {
      CAIRN_RETURN_IF_ERROR(scan_->status());
      scan_done_ = true;
      break;
    }
    storage::RecordId rid = scan_->id();
    if (removed_.count(rid)) continue;  // removed earlier in this unit: already uncounted
    BsonView doc = scan_->value();
    std::string newest;
    if (auto it = replaced_.find(rid); it != replaced_.end()) {
      newest = std::move(it->second);
      replaced_.erase(it);
      doc = BsonView(reinterpret_cast<const uint8_t*>(newest.data()), newest.size());
    }
    CAIRN_RETURN_IF_ERROR(writer.RemoveForEviction(rid, doc));
    evicted_upto_ = rid + 1;
    *bytes = static_cast<int64_t>(doc.size());
    return true;
  }
  // The unit's own inserts, oldest first; the document just inserted always stays (it fits).
  while (!pending_.empty() && pending_.front().first != keep) {
    auto [rid, bytes_copy] = std::move(pending_.front());
    pending_.pop_front();
    if (removed_.count(rid)) continue;
    BsonView doc(reinterpret_cast<const uint8_t*>(bytes_copy.data()), bytes_copy.size());
    CAIRN_RETURN_IF_ERROR(writer.RemoveForEviction(rid, doc));
    *bytes = static_cast<int64_t>(doc.size());
    return true;
  }
  return false;
}

void CappedEvictor::OnReplace(storage::RecordId id, BsonView new_doc) {
  std::string bytes(reinterpret_cast<const char*>(new_doc.data()), new_doc.size());
  for (auto& [rid, pending_bytes] : pending_) {
    if (rid == id) {
      pending_bytes = std::move(bytes);
      return;
    }
  }
  replaced_[id] = std::move(bytes);
}

void CappedEvictor::OnRemove(storage::RecordId id) { removed_.insert(id); }

void CappedEvictor::AfterCommit(bool committed) {
  if (committed) {
    if (evicted_upto_ > 0) state_.capped().AdvanceOldestHint(collection_, evicted_upto_);
    if (inserted_) state_.capped().NotifyInsert(collection_);
  }
  scan_.reset();
  scan_done_ = false;
  evicted_upto_ = 0;
  inserted_ = false;
  pending_.clear();
  replaced_.clear();
  removed_.clear();
}

}  // namespace cairn::server
