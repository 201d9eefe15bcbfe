// PerHandleCache<T>: something compiled from an immutable catalog handle (a collection's
// validator, ...), kept per handle so commands compile it only after the catalog changed. A
// handle never changes, so its entry never goes stale; entries of handles nobody holds any more
// are pruned as the map grows. Thread-safe (one mutex); values are shared and immutable.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "common/mutex.h"
#include "common/status.h"
#include "storage/catalog.h"

namespace cairn::server {

template <typename T>
class PerHandleCache {
 public:
  // The value for `handle`, made by `make(handle)` (a Result<std::shared_ptr<const T>>) the
  // first time. Errors are not cached.
  template <typename Make>
  Result<std::shared_ptr<const T>> Get(const storage::CollectionHandle& handle, Make make) {
    {
      MutexLock lock(&mu_);
      auto it = slots_.find(handle.get());
      if (it != slots_.end() && it->second.handle.lock() == handle) return it->second.value;
    }
    Result<std::shared_ptr<const T>> made = make(handle);
    if (!made.ok()) return made;
    MutexLock lock(&mu_);
    if (slots_.size() >= prune_at_) {
      for (auto it = slots_.begin(); it != slots_.end();) {
        it = it->second.handle.expired() ? slots_.erase(it) : std::next(it);
      }
      prune_at_ = std::max<size_t>(64, slots_.size() * 2);
    }
    slots_[handle.get()] = {handle, made.value()};
    return made;
  }

 private:
  struct Slot {
    std::weak_ptr<const storage::CollectionEntry> handle;
    std::shared_ptr<const T> value;
  };
  Mutex mu_;
  std::unordered_map<const storage::CollectionEntry*, Slot> slots_ GUARDED_BY(mu_);
  size_t prune_at_ GUARDED_BY(mu_) = 64;
};

}  // namespace cairn::server
