// CursorManager implementation.
#include "server/cursor/cursor_manager.h"
#include <algorithm>
#include "common/mutex.h"

namespace cairn::server {

namespace {

size_t HeldBytes(const Cursor& cursor) {
  return (cursor.prepared ? cursor.prepared->capacity() : 0) + cursor.buffered.capacity();
}

}  // namespace

void CursorManager::CountIdle(Cursor& cursor) {
  size_t held = HeldBytes(cursor);
  if (held > 0 && idle_bytes_.load(std::memory_order_relaxed) + held > kIdleBytesBudget) {
    // Over budget: keep only what holds results (a prepared reply, buffered documents).
    if (cursor.prepared && !cursor.prepared_ready) cursor.prepared.reset();
    if (cursor.buffered_offset >= cursor.buffered.size()) std::string().swap(cursor.buffered);
    held = HeldBytes(cursor);
  }
  cursor.counted_bytes = held;
  idle_bytes_.fetch_add(held, std::memory_order_relaxed);
}

void CursorManager::UncountIdle(Cursor& cursor) {
  idle_bytes_.fetch_sub(cursor.counted_bytes, std::memory_order_relaxed);
  cursor.counted_bytes = 0;
}

int64_t CursorManager::Register(std::unique_ptr<Cursor> cursor) {
  MutexLock lock(&mu_);
  int64_t id;
  do {
    id = static_cast<int64_t>(rng_() & 0x7fffffffffffffffULL);
  } while (id == 0 || idle_.count(id) || checked_out_.count(id));
  cursor->id = id;
  cursor->last_used = Clock::now();
  CountIdle(*cursor);
  idle_.emplace(id, std::move(cursor));
  return id;
}

Result<std::unique_ptr<Cursor>> CursorManager::CheckOut(int64_t id, std::string_view ns) {
  MutexLock lock(&mu_);
  // A read-ahead holds one batch's work; the client that received the last batch may already
  // ask for the next one on another connection.
  while (reading_ahead_.count(id) != 0) read_ahead_ended_.Wait();
  auto it = idle_.find(id);
  if (it == idle_.end()) {
    return Status(ErrorCode::kCursorNotFound, "cursor id " + std::to_string(id) + " not found");
  }
  if (it->second->ns != ns) {
    return Status(ErrorCode::kUnauthorized, "Requested getMore on namespace '" + std::string(ns) +
                                                "', but cursor belongs to a different namespace " +
                                                it->second->ns);
  }
  std::unique_ptr<Cursor> cursor = std::move(it->second);
  idle_.erase(it);
  UncountIdle(*cursor);
  checked_out_.insert(id);
  return cursor;
}

std::unique_ptr<Cursor> CursorManager::TryCheckOut(int64_t id) {
  MutexLock lock(&mu_);
  auto it = idle_.find(id);
  if (it == idle_.end()) return nullptr;
  std::unique_ptr<Cursor> cursor = std::move(it->second);
  idle_.erase(it);
  UncountIdle(*cursor);
  checked_out_.insert(id);
  reading_ahead_.insert(id);
  return cursor;
}

Result<CursorPin> CursorManager::Pin(int64_t id, std::string_view ns) {
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> cursor, CheckOut(id, ns));
  return CursorPin(this, std::move(cursor));
}

CursorPin CursorManager::TryPin(int64_t id) {
  std::unique_ptr<Cursor> cursor = TryCheckOut(id);
  if (cursor == nullptr) return CursorPin();
  return CursorPin(this, std::move(cursor));
}

CursorPin& CursorPin::operator=(CursorPin&& other) noexcept {
  if (this != &other) {
    CheckIn();
    manager_ = other.manager_;
    cursor_ = std::move(other.cursor_);
  }
  return *this;
}

void CursorPin::CheckIn() {
  if (cursor_ != nullptr) manager_->CheckIn(std::move(cursor_));
}

void CursorPin::Discard() {
  if (cursor_ != nullptr) manager_->Discard(std::move(cursor_));
}

void CursorManager::EndReadAhead(int64_t id) {
  if (reading_ahead_.erase(id)) read_ahead_ended_.SignalAll();
}

void CursorManager::CheckIn(std::unique_ptr<Cursor> cursor) {
  MutexLock lock(&mu_);
  checked_out_.erase(cursor->id);
  EndReadAhead(cursor->id);
  if (killed_while_out_.erase(cursor->id)) return;  // destroyed here
  cursor->last_used = Clock::now();
  int64_t id = cursor->id;
  CountIdle(*cursor);
  idle_.emplace(id, std::move(cursor));
}

void CursorManager::Discard(std::unique_ptr<Cursor> cursor) {
  {
    MutexLock lock(&mu_);
    checked_out_.erase(cursor->id);
    killed_while_out_.erase(cursor->id);
    EndReadAhead(cursor->id);
  }
  cursor.reset();  // outside the lock: closing a stream may take a while
}

bool CursorManager::Kill(int64_t id) {
  std::unique_ptr<Cursor> doomed;  // destroyed outside the lock
  MutexLock lock(&mu_);
  auto it = idle_.find(id);
  if (it != idle_.end()) {
    doomed = std::move(it->second);
    idle_.erase(it);
    UncountIdle(*doomed);
    return true;
  }
  if (checked_out_.count(id)) {
    killed_while_out_.insert(id);
    return true;
  }
  return false;
}

void CursorManager::KillTransactionCursors(const void* transaction) {
  std::vector<std::unique_ptr<Cursor>> doomed;  // destroyed outside the lock
  MutexLock lock(&mu_);
  for (auto it = idle_.begin(); it != idle_.end();) {
    if (it->second->transaction == transaction) {
      UncountIdle(*it->second);
      doomed.push_back(std::move(it->second));
      it = idle_.erase(it);
    } else {
      ++it;
    }
  }
}

void CursorManager::KillSessionCursors(const std::vector<std::array<uint8_t, 16>>& sessions) {
  std::vector<std::unique_ptr<Cursor>> doomed;  // destroyed outside the lock
  auto ours = [&sessions](const Cursor& cursor) {
    return cursor.has_session &&
           std::find(sessions.begin(), sessions.end(), cursor.session) != sessions.end();
  };
  MutexLock lock(&mu_);
  for (auto it = idle_.begin(); it != idle_.end();) {
    if (ours(*it->second)) {
      UncountIdle(*it->second);
      doomed.push_back(std::move(it->second));
      it = idle_.erase(it);
    } else {
      ++it;
    }
  }
}

size_t CursorManager::ReapIdle(Clock::duration timeout) {
  std::vector<std::unique_ptr<Cursor>> doomed;
  {
    MutexLock lock(&mu_);
    Clock::time_point now = Clock::now();
    for (auto it = idle_.begin(); it != idle_.end();) {
      if (now - it->second->last_used > timeout) {
        UncountIdle(*it->second);
        doomed.push_back(std::move(it->second));
        it = idle_.erase(it);
      } else {
        ++it;
      }
    }
    timed_out_ += static_cast<int64_t>(doomed.size());
  }
  return doomed.size();
}

size_t CursorManager::open_count() const {
  MutexLock lock(&mu_);
  return idle_.size() + checked_out_.size();
}

int64_t CursorManager::timed_out_total() const {
  MutexLock lock(&mu_);
  return timed_out_;
}

}  // namespace cairn::server
