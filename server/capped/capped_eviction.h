// CappedEvictor: keeps a capped collection within its limits (capped_options.h). After each
// insert it removes the oldest documents — with their index entries, through
// CollectionWriter::Remove, so the _id cache is invalidated as for any removal — in the SAME
// WriteUnit as the insert, so readers never see the collection over its limits nor a document
// gone without its replacement. Oldest first means: committed records from the registry's
// oldest-record hint on (one forward scan per unit), then the unit's own earlier inserts (an
// insertMany larger than the cap keeps only its newest documents, as MongoDB). The running
// count and size are the engine's persisted counters plus the unit's pending deltas, so nothing
// is rescanned per insert. A document larger than the cap is refused, as MongoDB 7.0 does
// (BadValue "object to insert exceeds cappedMaxSize"). Updates may change a document's size
// (allowed since MongoDB 6.0): they adjust the counters and, as in MongoDB, evict nothing until
// the next insert.
//
// Owned by one CollectionWriter (null for uncapped collections) and used under its collection
// lock. Not thread-safe.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/capped/capped_options.h"
#include "storage/engine.h"

namespace cairn::server {

class WriteContext;

// What eviction needs of the writer that owns the evictor (write/collection_writer.h implements
// it): removing a record in its uncommitted unit, and what that unit adds to the collection.
class EvictingWriter {
 public:
  virtual Status RemoveForEviction(storage::RecordId id, BsonView doc) = 0;
  virtual void PendingCounts(storage::Prefix collection, int64_t* count_delta,
                             int64_t* size_delta) const = 0;

 protected:
  ~EvictingWriter() = default;
};

class CappedEvictor {
 public:
  // An evictor when the collection is capped; null otherwise.
  static std::unique_ptr<CappedEvictor> For(WriteContext& state,
                                            const storage::CollectionEntry& collection);

  CappedEvictor(WriteContext& state, storage::Prefix collection, CappedLimits limits)
      : state_(state), collection_(collection), limits_(limits) {}

  const CappedLimits& limits() const { return limits_; }

  // Before an insert: BadValue 2 "object to insert exceeds cappedMaxSize" when the document
  // alone is larger than the cap.
  Status CheckFits(BsonView doc) const;
  // After `writer` added `doc` under `id`: removes the oldest documents while the collection
  // (committed + pending) is over its limits. Never removes `id` itself.
  Status AfterInsert(EvictingWriter& writer, storage::RecordId id, BsonView doc);
  // The writer replaced or removed a record in the current unit (evicting it later must use
  // its newest bytes, or skip it).
  void OnReplace(storage::RecordId id, BsonView new_doc);
  void OnRemove(storage::RecordId id);
  // After the writer's unit was committed (`committed`) or failed: publishes the new oldest
  // position and wakes tailable cursors waiting for inserts; resets the unit's state.
  void AfterCommit(bool committed);

 private:
  // Evicts the oldest live document of the unit's view; false when none is left to evict.
  Result<bool> EvictOldest(EvictingWriter& writer, storage::RecordId keep, int64_t* bytes);

  WriteContext& state_;
  storage::Prefix collection_;
  CappedLimits limits_;
  // Per unit:
  std::unique_ptr<storage::RecordCursor> scan_;  // committed records, oldest first
  bool scan_done_ = false;
  storage::RecordId evicted_upto_ = 0;  // every committed record below this is evicted
  bool inserted_ = false;
  // This unit's inserts, oldest first, with their bytes (their records cannot be read back
  // before the unit commits). Kept only for capped collections.
  std::deque<std::pair<storage::RecordId, std::string>> pending_;
  std::unordered_map<storage::RecordId, std::string> replaced_;  // newest bytes
  std::unordered_set<storage::RecordId> removed_;
};

}  // namespace cairn::server
