// OplogSink: what the write path tells a replica set's oplog (server/repl/oplog.h). Every change
// a CollectionWriter makes to a replicated namespace is described to the sink, which adds the
// oplog entry to the writer's own storage::WriteUnit, so the entry commits in the same atomic
// RocksDB batch as the change, or not at all. A standalone has no sink.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/bson_doc.h"
#include "storage/catalog.h"
#include "storage/engine.h"

namespace cairn::server {

// The retryable-write statement a change belongs to (lsid, txnNumber, stmtId), when the command
// carried one. Its oplog entries link to the session's previous one (prevOpTime).
struct StatementContext {
  BsonView lsid;  // the command's lsid document
  int64_t txn_number = 0;
  int32_t stmt_id = 0;
};

// One writer's entries not yet committed: the first Timestamp they took holds back what oplog
// readers may see until the unit commits or is dropped (readers never see a gap fill later).
struct OplogUnit {
  uint64_t first_ts = 0;  // 0: no entry yet
  uint64_t last_ts = 0;
  int64_t wall_ms = 0;  // the entries' wall time: when the unit's first entry was made
  BsonDoc scratch;      // where each entry is built (its buffer is reused: no allocation each)
  // The unit's entries, added to its WriteUnit together just before it commits (Flush): a run of
  // ascending oplog keys after the run of the collection's own, so RocksDB's memtable inserts
  // each run where the previous key went instead of searching for every key (interleaved, the
  // two runs made every insert a full skip-list search: half the insert throughput).
  std::string entries;
  std::vector<std::pair<uint64_t, uint32_t>> entry_sizes;  // (ts, bytes) in `entries` order
};

class OplogSink {
 public:
  virtual ~OplogSink() = default;

  // The oplog collection's prefix, and the greatest RecordId (an entry's ts) below which every
  // entry has committed: what a reader that must not skip an entry may read up to (entries of
  // concurrent writers can commit out of ts order).
  virtual storage::Prefix LogPrefix() const = 0;
  virtual storage::RecordId VisibleRecordBound() const = 0;

  // Whether changes to `ns` are logged (not those of the local database, as in mongod).
  virtual bool Logs(std::string_view ns) const = 0;

  // Adds an entry to `unit`: an insert of `doc`; an update of the document whose _id is `id`
  // (a replacement logs `new_doc` whole, an update its $v: 2 diff from `old_doc`); a delete.
  virtual Status LogInsert(storage::WriteUnit& unit, OplogUnit& pending,
                           const storage::CollectionEntry& collection, BsonView doc,
                           const StatementContext* statement) = 0;
  virtual Status LogUpdate(storage::WriteUnit& unit, OplogUnit& pending,
                           const storage::CollectionEntry& collection, BsonView old_doc,
                           BsonView new_doc, bool replacement,
                           const StatementContext* statement) = 0;
  virtual Status LogDelete(storage::WriteUnit& unit, OplogUnit& pending,
                           const storage::CollectionEntry& collection, BsonView old_doc,
                           const StatementContext* statement) = 0;

  // Adds a no-op entry {op: "n", ns, ui, o, o2} to `unit` (a retryable findAndModify's result,
  // which its retry answers with).
  virtual Status LogNoop(storage::WriteUnit& unit, OplogUnit& pending,
                         const storage::CollectionEntry& collection, BsonView o, BsonView o2,
                         const StatementContext* statement) = 0;

  // Adds a command entry {op: "c", ns: "<db>.$cmd", ui, o, o2} to `unit`: a catalog change
  // (create, createIndexes, dropIndexes, drop, renameCollection, dropDatabase) that commits with
  // it. `uuid` (16 bytes, the collection's: ui) may be null, `o2` empty (none).
  virtual Status LogCommand(storage::WriteUnit& unit, OplogUnit& pending, std::string_view db,
                            const uint8_t* uuid, BsonView o, BsonView o2) = 0;
  // Adds `pending`'s entries to `unit`: called right before the unit commits.
  virtual void Flush(storage::WriteUnit& unit, OplogUnit& pending) = 0;

  // After the unit holding `pending`'s entries committed (ok) or was dropped.
  virtual void UnitDone(OplogUnit& pending, bool committed) = 0;
};

}  // namespace cairn::server
