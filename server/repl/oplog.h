// Oplog: local.oplog.rs, the replica set's log of every change, in MongoDB's entry format
// ({op, ns, ui, o, o2, ts, t, v, wall} plus lsid/txnNumber/stmtId for retryable writes). It is
// the OplogSink of the write path (server/write/oplog_sink.h): each entry is added to the
// writer's own WriteUnit and commits atomically with the change it records.
//
// An entry's RecordId is its Timestamp (ts as an integer), as WiredTiger keys the oplog by ts:
// the collection's natural order is ts order and an entry is found by its ts with one read. The
// oplog is a capped collection of --oplogSize MB; the oldest entries are truncated, in a batch of
// their own, once it is larger (mongod's oplog truncation runs apart from writes too).
//
// Timestamps come from the LogicalClock when an entry is added; writers of different collections
// may commit out of ts order, so VisibleThrough() says up to where every entry has committed
// (mongod's "all durable" timestamp): what readers that must not skip an entry read up to.
//
// Thread-safety: safe from any thread; a writer's OplogUnit is its own.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/mutex.h"
#include "server/repl/logical_clock.h"
#include "server/write/oplog_sink.h"
#include "server/write/write_context.h"

namespace cairn::server {

inline constexpr std::string_view kOplogNs = "local.oplog.rs";

class Oplog final : public OplogSink {
 public:
  Oplog(WriteContext& writes, LogicalClock& clock);

  // Opens local.oplog.rs, creating it (capped at `max_bytes`) when absent, and moves the clock
  // past its newest entry, so Timestamps keep increasing across restarts.
  Status Open(int64_t max_bytes);
  // The term entries are written in (from the ReplicationCoordinator, at each election).
  void set_term(int64_t term) { term_.store(term, std::memory_order_release); }
  // The newest entry's Timestamp found by Open (none: 0).
  Timestamp newest_at_open() const { return newest_at_open_; }

  // Adds a committed transaction's entry to `unit`: {lsid, txnNumber, op: "c", ns: "admin.$cmd",
  // o: {applyOps: `ops`}, prevOpTime}, mongod's shape for a transaction that fits one entry.
  Status LogTransaction(storage::WriteUnit& unit, OplogUnit& pending, BsonView ops, BsonView lsid,
                        int64_t txn_number);

  // Writes a no-op entry {op: "n", o: `o`} in a batch of its own (the "new primary" entry).
  Result<Timestamp> LogNoop(BsonView o);

  // Every entry with ts <= this has committed; none above it will appear below it later.
  Timestamp VisibleThrough() const;
  // Whether every entry with ts <= `ts` has committed (entries not yet taken included: they
  // will have later Timestamps once the clock is past `ts`).
  bool AllCommittedThrough(Timestamp ts) const;
  storage::Prefix prefix() const { return prefix_.load(std::memory_order_acquire); }
  // When the newest unit with entries committed (ms since the epoch).
  int64_t last_commit_wall_ms() const {
    return last_commit_wall_ms_.load(std::memory_order_acquire);
  }

  // OplogSink.
  storage::Prefix LogPrefix() const override { return prefix(); }
  storage::RecordId VisibleRecordBound() const override {
    return static_cast<storage::RecordId>(VisibleThrough().value);
  }
  bool Logs(std::string_view ns) const override;
  Status LogInsert(storage::WriteUnit& unit, OplogUnit& pending,
                   const storage::CollectionEntry& collection, BsonView doc,
                   const StatementContext* statement) override;
  Status LogUpdate(storage::WriteUnit& unit, OplogUnit& pending,
                   const storage::CollectionEntry& collection, BsonView old_doc, BsonView new_doc,
                   bool replacement, const StatementContext* statement) override;
  Status LogDelete(storage::WriteUnit& unit, OplogUnit& pending,
                   const storage::CollectionEntry& collection, BsonView old_doc,
                   const StatementContext* statement) override;
  Status LogNoop(storage::WriteUnit& unit, OplogUnit& pending,
                 const storage::CollectionEntry& collection, BsonView o, BsonView o2,
                 const StatementContext* statement) override;
  Status LogCommand(storage::WriteUnit& unit, OplogUnit& pending, std::string_view db,
                    const uint8_t* uuid, BsonView o, BsonView o2) override;
  void Flush(storage::WriteUnit& unit, OplogUnit& pending) override;
  void UnitDone(OplogUnit& pending, bool committed) override;

 private:
  // Takes the next Timestamp for an entry of `pending`'s unit.
  Timestamp Take(OplogUnit& pending);
  // Finishes `entry` (ts, t, v, wall, session fields) and adds it to `unit`.
  Status Put(storage::WriteUnit& unit, OplogUnit& pending, Timestamp ts, bson_t* entry,
             const StatementContext* statement);
  // With changeStreamPreAndPostImages enabled on `collection`: a no-op entry holding `old_doc`
  // (the document before an update or delete, as mongod 4.4's pre-image entries), whose ts the
  // change's entry names in preImageOpTime. None otherwise.
  Result<std::optional<Timestamp>> PutPreImage(storage::WriteUnit& unit, OplogUnit& pending,
                                               const storage::CollectionEntry& collection,
                                               BsonView old_doc);
  void AppendPreImageOpTime(bson_t* entry, const std::optional<Timestamp>& pre_image) const;
  // `pending`'s scratch document, emptied.
  static bson_t* Scratch(OplogUnit& pending);
  // Removes the oldest entries while the oplog is larger than its cap.
  void Truncate();

  WriteContext& writes_;
  LogicalClock& clock_;
  std::atomic<storage::Prefix> prefix_{0};
  std::atomic<int64_t> term_{1};
  std::atomic<int64_t> last_commit_wall_ms_{0};
  int64_t max_bytes_ = 0;
  Timestamp newest_at_open_;

  // The first Timestamp of every unit not yet committed (a multiset: count per ts), and the
  // newest Timestamp of the units done.
  mutable Mutex mu_;
  std::map<uint64_t, int> in_flight_ GUARDED_BY(mu_);
  uint64_t newest_taken_ GUARDED_BY(mu_) = 0;

  Mutex truncate_mu_;
  storage::RecordId oldest_hint_ GUARDED_BY(truncate_mu_) = 0;
};

// --oplogSize's default: 5% of the free space of `dbpath`, at least 990 MB and at most 50 GB
// (mongod's rule).
int64_t DefaultOplogBytes(const std::string& dbpath);

}  // namespace cairn::server
