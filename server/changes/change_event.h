// Change events: what a $changeStream stage is asked for (ChangeStreamSpec, parsed from the
// stage as mongod's DocumentSourceChangeStreamSpec), the resume tokens that mark a position in
// the oplog, and the event MongoDB 7.0 makes of an oplog entry (insert, update with its
// updateDescription from the $v:2 diff, replace, delete). Pure BSON: reading the oplog and the
// collections is change_stream.h's.
//
// A resume token is {_data: "<hex>"}, opaque to drivers as MongoDB's is: the entry's Timestamp,
// the event's index inside the entry (an applyOps entry holds many) and a from-invalidate flag,
// big-endian so tokens compare as strings in stream order. A fragment of an event split by
// $changeStreamSplitLargeEvent adds its fragment number, so it sorts after its event's token and
// before the next event's.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/bson_doc.h"
#include "common/status.h"
#include "server/repl/logical_clock.h"

namespace cairn::server {

struct ResumePoint {
  Timestamp ts;
  // The change's index in its transaction's applyOps (0 outside transactions); a high-water
  // mark (nothing of the entry at ts is left to return) holds kWholeEntry.
  uint32_t op_index = 0;
  bool from_invalidate = false;
  // A fragment's token: its index among its event's fragments (mongod's fragmentNum, from 0).
  std::optional<uint32_t> fragment;
  static constexpr uint32_t kWholeEntry = 0xFFFFFFFFu;
};

// The committed transaction a change belongs to: its event carries lsid and txnNumber, and its
// resume token the change's index in the transaction's applyOps.
struct TransactionOrigin {
  BsonView lsid;
  int64_t txn_number = 0;
  uint32_t op_index = 0;
};

// Appends `key`: {_data: "<hex>"}.
void AppendResumeToken(bson_t* out, const char* key, const ResumePoint& point);
// A token made by AppendResumeToken; FailedToParse "Bad resume token: ..." otherwise.
Result<ResumePoint> ParseResumeToken(const bson_iter_t* token);

enum class ChangeStreamScope { kCollection, kDatabase, kCluster };
enum class FullDocumentMode { kDefault, kUpdateLookup, kWhenAvailable, kRequired };
enum class BeforeChangeMode { kOff, kWhenAvailable, kRequired };

struct ChangeStreamSpec {
  ChangeStreamScope scope = ChangeStreamScope::kCollection;
  std::string db;
  std::string collection;  // kCollection
  FullDocumentMode full_document = FullDocumentMode::kDefault;
  BeforeChangeMode before_change = BeforeChangeMode::kOff;
  bool show_expanded_events = false;
  std::optional<ResumePoint> resume_after, start_after;
  std::optional<Timestamp> start_at_operation_time;
};

// The $changeStream stage's argument, for an aggregate on `db` (`collection` empty: {aggregate:
// 1}). Errors as mongod's: the stage's own fields (unknown field 40415, enumerations BadValue,
// types TypeMismatch), more than one start point (40674), and the namespaces a stream cannot
// watch (InvalidNamespace 73).
Result<ChangeStreamSpec> ParseChangeStreamSpec(const bson_iter_t* stage, std::string_view db,
                                               std::string_view collection);

// Whether an entry of namespace `ns` ("db.coll") belongs to the stream.
bool InScope(const ChangeStreamSpec& spec, std::string_view ns);

// What an event may read besides its entry: the current version of a document (fullDocument:
// "updateLookup") and the oplog entry at a Timestamp (a pre-image's, from preImageOpTime).
using LookupDocument = std::function<Status(std::string_view ns, const bson_iter_t* id,
                                            std::string* document, bool* found)>;
using LookupOplogEntry = std::function<Status(Timestamp ts, std::string* entry, bool* found)>;
struct ChangeEventReads {
  LookupDocument document;
  LookupOplogEntry oplog_entry;
};

// Appends to `event` the change event of the oplog entry `entry` (in scope), or returns false
// when the entry makes none (no-ops, entries Cairn does not turn into events yet). Catalog
// entries make drop, rename and dropDatabase events. A change of a transaction is one operation
// of its applyOps entry with the entry's ts and wall, and `txn` set.
Result<bool> BuildChangeEvent(const ChangeStreamSpec& spec, BsonView entry,
                              const ChangeEventReads& reads, bson_t* event,
                              const TransactionOrigin* txn = nullptr);

// Whether `entry` is a committed transaction's {op: "c", o: {applyOps: [...]}} entry; *ops is
// then its operations.
bool IsTransactionEntry(BsonView entry, BsonView* ops);

// Whether the event of `entry` ends the stream with an invalidate event: a collection's stream
// at the drop or rename of its collection, a database's at the drop of its database.
bool InvalidatesStream(const ChangeStreamSpec& spec, BsonView entry);

// Appends the invalidate event that follows `entry`'s event: {_id (a token startAfter resumes
// from), operationType: "invalidate", clusterTime, wallTime}.
void AppendInvalidateEvent(BsonView entry, bson_t* event);

}  // namespace cairn::server
