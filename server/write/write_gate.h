// WriteGate: fsyncLock's hold on writes. Every command that writes (and each TTL pass) runs
// inside the gate; fsync {lock: true} closes it, waits for the writes inside to finish and then
// has storage flush and freeze its files (Engine::BeginBackup), so the data files on disk stay a
// consistent copy until fsyncUnlock reopens it. Reads never pass through the gate. A write that
// finds the gate closed does not hold its thread: its connection registers a waiter and runs the
// command again when the gate opens (Continuation::Kind::kAwaitUnlock). Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>

#include "common/mutex.h"
#include "common/status.h"

namespace cairn::server {

class WriteGate {
 public:
  // A write's passage: entered while it lives (false when the gate was closed: nothing held).
  class Entered {
   public:
    Entered() = default;
    explicit Entered(WriteGate& gate) : gate_(gate.TryEnter() ? &gate : nullptr) {}
    Entered(Entered&& other) noexcept : gate_(other.gate_) { other.gate_ = nullptr; }
    Entered& operator=(Entered&& other) noexcept {
      if (this != &other) {
        Release();
        gate_ = other.gate_;
        other.gate_ = nullptr;
      }
      return *this;
    }
    ~Entered() { Release(); }
    explicit operator bool() const { return gate_ != nullptr; }

   private:
    void Release() {
      if (gate_ != nullptr) gate_->Exit();
      gate_ = nullptr;
    }
    WriteGate* gate_ = nullptr;
  };

  // Two atomic operations per write: sequentially consistent, so a write entering and a lock
  // closing at once each see the other (the write backs out, or the lock waits for it).
  bool TryEnter();
  void Exit();

  // fsync {lock: true}: the lock count after it. The first lock closes the gate, waits until no
  // write is inside, then runs `freeze` (the flush); if that fails the gate reopens and its error
  // is returned, the count back at 0.
  Result<int64_t> Lock(const std::function<Status()>& freeze);
  // fsyncUnlock: the lock count after it; the last unlock runs `thaw` and reopens the gate.
  // IllegalOperation when not locked, as mongod answers.
  Result<int64_t> Unlock(const std::function<Status()>& thaw);

  bool locked() const { return closed_.load(); }
  int64_t lock_count() const;

  // A connection's wait for the gate to open: `wake` runs (from the unlocking thread) when it
  // does. False, registering nothing, when the gate is open already.
  using WaiterHandle = std::shared_ptr<std::function<void()>>;
  bool Register(std::function<void()> wake, WaiterHandle* handle);
  void Unregister(const WaiterHandle& handle);

 private:
  std::atomic<bool> closed_{false};
  std::atomic<int64_t> inside_{0};
  // Serialises fsync lock and unlock commands (mongod's fsyncSingleCommandExclusionMutex).
  Mutex command_mu_;
  mutable Mutex mu_;  // after command_mu_
  CondVar drained_{&mu_};
  int64_t lock_count_ GUARDED_BY(mu_) = 0;
  std::list<WaiterHandle> waiters_ GUARDED_BY(mu_);
};

}  // namespace cairn::server
