// CappedRegistry: the in-memory state Cairn keeps per capped collection, shared by every
// connection: where its oldest live record is known to start (so eviction seeks there instead of
// rescanning the tombstones of records already evicted), and the insert notifications that wake
// tailable awaitData getMores (tailable_cursor.h). Document count and total size need no state
// here: the engine keeps them exact and persisted (Engine::RecordCount/DataSize), and a writer
// adds its unit's pending deltas. After a restart the registry is empty: the first eviction seeds
// the oldest position from a scan.
//
// Thread-safety: one mutex over the table. The oldest-record hint is only read and advanced
// under the collection's write lock (CollectionWriter), so it needs no more than the table lock.
// Wake callbacks run outside the lock, on the committing thread: they must only post work.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "common/mutex.h"
#include "storage/engine.h"

namespace cairn::server {

class CappedRegistry {
 public:
  // A registered wake-up; unregister it before what the callback touches goes away.
  struct Waiter;
  using WaiterHandle = std::shared_ptr<Waiter>;

  // The smallest RecordId that may still be live (0 when unknown: scan from the start).
  storage::RecordId OldestHint(storage::Prefix collection);
  // Records below `id` are gone (called after an eviction commits).
  void AdvanceOldestHint(storage::Prefix collection, storage::RecordId id);

  // How many insert commits the collection has seen (read before looking for new documents).
  uint64_t InsertVersion(storage::Prefix collection);
  // After inserts into the collection commit: bumps its version and calls every waiter's wake.
  void NotifyInsert(storage::Prefix collection);
  // Registers `wake` until Unregister; false (nothing registered) when the version is already
  // past `seen_version`, so the caller need not wait.
  bool Register(storage::Prefix collection, uint64_t seen_version, std::function<void()> wake,
                WaiterHandle* handle);
  void Unregister(const WaiterHandle& handle);

 private:
  struct Entry {
    storage::RecordId oldest_hint = 0;
    uint64_t insert_version = 0;
    std::list<WaiterHandle> waiters;
  };
  Entry& EntryFor(storage::Prefix collection) REQUIRES(mu_);

  Mutex mu_;
  std::unordered_map<storage::Prefix, Entry> entries_ GUARDED_BY(mu_);
};

struct CappedRegistry::Waiter {
  storage::Prefix collection = 0;
  std::function<void()> wake;
};

}  // namespace cairn::server
