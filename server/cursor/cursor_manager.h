// CursorManager: the open cursors of all connections, by id. A cursor is checked out for the
// duration of one getMore (so two getMores never run one cursor at once) and checked back in.
// Idle cursors are reaped after the timeout (10 minutes) so memory stays bounded, and the memory
// they hold between getMores (read-ahead replies and buffers) is budgeted across all of them: a
// client opening cursor after cursor cannot make the server hold a batch for each.
// Thread-safe (one mutex guards the map). A getMore for a cursor the server is reading ahead
// (TryCheckOut) waits for that read-ahead to check it back in: the optimisation is invisible.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/bson_doc.h"
#include "common/interrupt.h"
#include "common/mutex.h"
#include "common/status.h"
#include "query/projection/projection.h"
#include "server/exec/document_stream.h"
#include "server/exec/op_debug.h"
#include "wire/reply_buffer.h"

namespace cairn::server {

struct Cursor;

// What a cursor's stream adds to each batch reply after the documents, given whether the stream
// ran out during the batch.
class BatchFields {
 public:
  virtual ~BatchFields() = default;
  virtual void Append(const Cursor& cursor, bool exhausted, bson_t* cursor_doc) const = 0;
  // Whether the stream has ended for good (a change stream after its invalidate event): the
  // cursor closes after this batch, tailable or not.
  virtual bool Closed(const Cursor& cursor) const { return false; }
};

struct Cursor {
  int64_t id = 0;
  std::string ns;
  std::unique_ptr<DocumentStream> stream;
  std::optional<query::Projection> projection;
  // Documents pulled from the stream but not yet returned, as concatenated BSON from
  // buffered_offset on: the one that did not fit the last batch, and those read ahead while the
  // client was consuming the last batch (ReadAhead in cursor_batch.h). Batches drain it first.
  std::string buffered;
  size_t buffered_offset = 0;
  bool stream_done = false;  // the stream ended during a read-ahead; its status is stream_status
  Status stream_status;
  // The next getMore's whole reply, {cursor: {nextBatch, id, ns}, ok: 1}, built by a read-ahead
  // when `prepared_ready` (ReadAhead in cursor_batch.h): a getMore without batchSize sends it as
  // is. Its `prepared_docs` documents are already counted in `returned`. The buffer is kept, and
  // swapped with the connection's reply buffer, so batches reuse memory.
  std::unique_ptr<wire::ReplyBuffer> prepared;
  bool prepared_ready = false;
  bool prepared_exhausted = false;  // the prepared reply ends the cursor (its id is 0)
  int64_t prepared_docs = 0;
  int64_t returned = 0;  // documents returned so far
  // What the stream had examined when the last batch was reported (OpDebug: each command
  // reports what its batch, read-ahead included, examined).
  OpDebug::PlanProgress reported;
  int64_t limit = 0;  // the query's limit (0 = none): reaching it closes the cursor
  // A tailable cursor on a capped collection stays open when exhausted (tailable_cursor.h);
  // with await_data its getMore waits for inserts into `collection_prefix`.
  bool tailable = false;
  bool await_data = false;
  storage::Prefix collection_prefix = 0;
  std::chrono::steady_clock::time_point last_used;
  // What is left of the maxTimeMS of the find or aggregate that opened the cursor: MongoDB
  // counts every batch against it. None without a limit.
  std::optional<std::chrono::steady_clock::duration> time_left;
  // The memory this cursor was counted for while idle (CursorManager's budget).
  size_t counted_bytes = 0;
  // Fields the cursor adds to every batch reply after the documents (a change stream's
  // postBatchResumeToken: changes/change_stream.h); part of its stream. Null: none.
  const BatchFields* batch_fields = nullptr;
  // The multi-document transaction the cursor was opened in (server/txn/session_transaction.h;
  // null: none), and its number: only that transaction's getMores read it, and it is killed when
  // the transaction ends (its streams read the transaction's snapshot).
  const void* transaction = nullptr;
  int64_t txn_number = 0;
  // The session of the command that opened it (lsid.id; none: has_session false): killSessions.
  std::array<uint8_t, 16> session{};
  bool has_session = false;
  // The slot its streams check for interruption (the command's, common/interrupt.h): each batch
  // points it at the operation pulling it (FillBatch). Null: nothing in the streams checks.
  std::shared_ptr<InterruptSlot> interrupt;
};

class CursorManager;

// A cursor checked out of its manager, as MongoDB's ClientCursorPin: it goes back to the
// manager when the pin ends — on every path, an early error return included — unless CheckIn()
// returned it or Discard() closed it first. An empty pin holds nothing. Move-only.
class CursorPin {
 public:
  CursorPin() = default;
  CursorPin(CursorManager* manager, std::unique_ptr<Cursor> cursor)
      : manager_(manager), cursor_(std::move(cursor)) {}
  CursorPin(CursorPin&& other) noexcept = default;
  CursorPin& operator=(CursorPin&& other) noexcept;
  CursorPin(const CursorPin&) = delete;
  CursorPin& operator=(const CursorPin&) = delete;
  ~CursorPin() { CheckIn(); }

  explicit operator bool() const { return cursor_ != nullptr; }
  Cursor& operator*() const { return *cursor_; }
  Cursor* operator->() const { return cursor_.get(); }

  // Returns the cursor to the manager now, idle for the next getMore (destroyed there if it was
  // killed meanwhile). Nothing when the pin is empty.
  void CheckIn();
  // Closes the cursor (exhausted or failed): the manager forgets it. Nothing when empty.
  void Discard();

 private:
  CursorManager* manager_ = nullptr;
  std::unique_ptr<Cursor> cursor_;
};

class CursorManager {
 public:
  using Clock = std::chrono::steady_clock;

  // Stores the cursor under a fresh non-zero id (set into cursor->id) and returns the id.
  int64_t Register(std::unique_ptr<Cursor> cursor);
  // Takes the cursor out for a getMore, first waiting for a read-ahead of it to end. CursorNotFound
  // 43 "cursor id N not found" when absent; Unauthorized 13 when `ns` is not the cursor's
  // namespace (as MongoDB answers).
  Result<std::unique_ptr<Cursor>> CheckOut(int64_t id, std::string_view ns);
  // Takes the cursor out if it is idle (no namespace check; for the server's own read-ahead):
  // null when absent or in use.
  std::unique_ptr<Cursor> TryCheckOut(int64_t id);
  // CheckOut and TryCheckOut as pins (CursorPin), which return the cursor on every path.
  Result<CursorPin> Pin(int64_t id, std::string_view ns);
  CursorPin TryPin(int64_t id);
  // Returns a checked-out cursor (unless it was killed meanwhile, then it is destroyed).
  void CheckIn(std::unique_ptr<Cursor> cursor);
  // Destroys a checked-out cursor that is done (exhausted or failed).
  void Discard(std::unique_ptr<Cursor> cursor);
  // Kills a cursor: true if it existed (idle or checked out).
  bool Kill(int64_t id);
  // Kills the cursors opened in `transaction`, which has ended. (None of them is checked out: a
  // transaction's cursor is read only by its own commands, which hold its session.)
  void KillTransactionCursors(const void* transaction);
  // Kills the cursors opened by commands of these sessions (killSessions).
  void KillSessionCursors(const std::vector<std::array<uint8_t, 16>>& sessions);
  // Destroys cursors idle longer than `timeout`; returns how many.
  size_t ReapIdle(Clock::duration timeout);
  size_t open_count() const;
  // What the idle cursors hold in read-ahead replies and buffers, in bytes.
  size_t idle_bytes() const { return idle_bytes_.load(std::memory_order_relaxed); }
  // The budget of idle_bytes(): past it, cursors keep no read-ahead memory and no read-ahead
  // is started.
  static constexpr size_t kIdleBytesBudget = size_t{256} << 20;
  int64_t timed_out_total() const;

 private:
  // Counts `cursor` into idle_bytes_ as it becomes idle, first releasing what it need not keep
  // when the budget is spent. Called under mu_.
  void CountIdle(Cursor& cursor);
  void UncountIdle(Cursor& cursor);
  // Marks a read-ahead of `id` ended (if one was running) and wakes the getMores waiting for it.
  // Called under mu_.
  void EndReadAhead(int64_t id) REQUIRES(mu_);

  std::atomic<size_t> idle_bytes_{0};
  mutable Mutex mu_;
  std::unordered_map<int64_t, std::unique_ptr<Cursor>> idle_ GUARDED_BY(mu_);
  std::unordered_set<int64_t> checked_out_ GUARDED_BY(mu_);
  std::unordered_set<int64_t> killed_while_out_ GUARDED_BY(mu_);
  std::unordered_set<int64_t> reading_ahead_ GUARDED_BY(mu_);  // checked out by TryCheckOut
  CondVar read_ahead_ended_{&mu_};  // signalled as one of reading_ahead_ leaves
  std::mt19937_64 rng_ GUARDED_BY(mu_){std::random_device{}()};
  int64_t timed_out_ GUARDED_BY(mu_) = 0;
};

}  // namespace cairn::server
