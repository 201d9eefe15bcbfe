// WriteGate: the fsync lock's count and the writes it holds back (write_gate.h).
#include "server/write/write_gate.h"

#include <chrono>
#include <utility>
#include <vector>

namespace cairn::server {

bool WriteGate::TryEnter() {
  inside_.fetch_add(1);
  if (!closed_.load()) return true;
  Exit();
  return false;
}

void WriteGate::Exit() {
  if (inside_.fetch_sub(1) == 1 && closed_.load()) {
    MutexLock lock(&mu_);
    drained_.SignalAll();
  }
}

Result<int64_t> WriteGate::Lock(const std::function<Status()>& freeze) {
  MutexLock serial(&command_mu_);
  {
    MutexLock lock(&mu_);
    if (lock_count_ > 0) return ++lock_count_;
    closed_.store(true);
    // Exit signals under mu_, but a write may leave between the load and the wait: the timed
    // wait covers that without a lost wake-up.
    while (inside_.load() != 0) {
      drained_.WaitUntil(std::chrono::steady_clock::now() + std::chrono::milliseconds(10));
    }
  }
  Status frozen = freeze();
  std::vector<WaiterHandle> wake;
  {
    MutexLock lock(&mu_);
    if (frozen.ok()) return lock_count_ = 1;
    closed_.store(false);
    wake.assign(waiters_.begin(), waiters_.end());
    waiters_.clear();
  }
  for (const WaiterHandle& waiter : wake) (*waiter)();
  return frozen;
}

Result<int64_t> WriteGate::Unlock(const std::function<Status()>& thaw) {
  MutexLock serial(&command_mu_);
  {
    MutexLock lock(&mu_);
    if (lock_count_ == 0) {
      return Status(ErrorCode::kIllegalOperation, "fsyncUnlock called when not locked");
    }
    if (lock_count_ > 1) return --lock_count_;
  }
  Status thawed = thaw();
  std::vector<WaiterHandle> wake;
  {
    MutexLock lock(&mu_);
    lock_count_ = 0;
    closed_.store(false);
    wake.assign(waiters_.begin(), waiters_.end());
    waiters_.clear();
  }
  for (const WaiterHandle& waiter : wake) (*waiter)();
  if (!thawed.ok()) return thawed;
  return int64_t{0};
}

int64_t WriteGate::lock_count() const {
  MutexLock lock(&mu_);
  return lock_count_;
}

bool WriteGate::Register(std::function<void()> wake, WaiterHandle* handle) {
  MutexLock lock(&mu_);
  if (!closed_.load()) return false;
  *handle = std::make_shared<std::function<void()>>(std::move(wake));
  waiters_.push_back(*handle);
  return true;
}

void WriteGate::Unregister(const WaiterHandle& handle) {
  if (handle == nullptr) return;
  MutexLock lock(&mu_);
  waiters_.remove(handle);
}

}  // namespace cairn::server
