// CappedRegistry: per capped collection oldest-record hints and insert notifications.
#include "server/capped/capped_registry.h"
#include "common/mutex.h"

#include <algorithm>
#include <vector>

namespace cairn::server {

CappedRegistry::Entry& CappedRegistry::EntryFor(storage::Prefix collection) {
  return entries_[collection];
}

storage::RecordId CappedRegistry::OldestHint(storage::Prefix collection) {
  MutexLock lock(&mu_);
  auto it = entries_.find(collection);
  return it == entries_.end() ? 0 : it->second.oldest_hint;
}

void CappedRegistry::AdvanceOldestHint(storage::Prefix collection, storage::RecordId id) {
  MutexLock lock(&mu_);
  Entry& entry = EntryFor(collection);
  entry.oldest_hint = std::max(entry.oldest_hint, id);
}

uint64_t CappedRegistry::InsertVersion(storage::Prefix collection) {
  MutexLock lock(&mu_);
  auto it = entries_.find(collection);
  return it == entries_.end() ? 0 : it->second.insert_version;
}

void CappedRegistry::NotifyInsert(storage::Prefix collection) {
  std::vector<std::function<void()>> wakes;
  {
    MutexLock lock(&mu_);
    Entry& entry = EntryFor(collection);
    ++entry.insert_version;
    for (const WaiterHandle& waiter : entry.waiters) wakes.push_back(waiter->wake);
  }
  for (const auto& wake : wakes) wake();
}

bool CappedRegistry::Register(storage::Prefix collection, uint64_t seen_version,
                              std::function<void()> wake, WaiterHandle* handle) {
  MutexLock lock(&mu_);
  Entry& entry = EntryFor(collection);
  if (entry.insert_version != seen_version) return false;
  auto waiter = std::make_shared<Waiter>();
  waiter->collection = collection;
  waiter->wake = std::move(wake);
  entry.waiters.push_back(waiter);
  *handle = std::move(waiter);
  return true;
}

void CappedRegistry::Unregister(const WaiterHandle& handle) {
  if (!handle) return;
  MutexLock lock(&mu_);
  auto it = entries_.find(handle->collection);
  if (it == entries_.end()) return;
  it->second.waiters.remove(handle);
}

}  // namespace cairn::server
