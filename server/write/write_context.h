// WriteContext: what the write path needs of the server, and nothing more: the storage engine,
// the point-read cache every write goes through (exec/id_cache.h), the capped collections'
// shared state, and the per-collection write state (the lock that serialises a collection's
// writers and what they know under it). ServerState owns one; the TTL monitor, index builds,
// capped copies and $out/$merge take it instead of the whole ServerState (as LevelDB's DBImpl
// takes Options and Env). Outlives every writer. Thread-safe: the write-state table has its own
// mutex; each entry's `lock` guards the entry.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/mutex.h"
#include "server/capped/capped_registry.h"
#include "server/exec/id_cache.h"
#include "server/write/oplog_sink.h"
#include "server/write/write_gate.h"
#include "storage/engine.h"

namespace cairn::server {

// What writers of one collection share: the lock that serialises them (dup-key check through
// commit), and what they know under it. Keyed by the collection's prefix, which is never
// reused, so the table only grows with collections made.
struct CollectionWriteState {
  Mutex lock;
  // An upper bound of the collection's _id index keys, so an insert whose
  // _id key sorts above it skips the storage probe for a duplicate. Ascending _ids (counters,
  // the ObjectIds a driver generates) always do. Writers raise it as their inserts commit;
  // removals leave it, which keeps it a bound. Unset until read from storage; empty when the
  // index is (an encoded key is never empty, so every key sorts above it).
  std::optional<std::string> id_bound GUARDED_BY(lock);
};

class WriteContext {
 public:
  WriteContext(storage::Engine& engine, IdCache& id_cache, CappedRegistry& capped)
      : engine_(engine), id_cache_(id_cache), capped_(capped) {}
  WriteContext(const WriteContext&) = delete;
  WriteContext& operator=(const WriteContext&) = delete;

  storage::Engine& engine() { return engine_; }
  IdCache& id_cache() { return id_cache_; }
  // Capped collections' oldest-record hints and insert notifications (tailable awaitData).
  CappedRegistry& capped() { return capped_; }

  // The replica set's oplog, which every replicated change is logged to in its own batch; null on
  // a standalone (and before initiation). Set once, before writes that must be logged start.
  OplogSink* oplog() const { return oplog_.load(std::memory_order_acquire); }
  void set_oplog(OplogSink* oplog) { oplog_.store(oplog, std::memory_order_release); }

  // fsyncLock's hold on writes: every command that writes, and the TTL monitor, pass it.
  WriteGate& gate() { return gate_; }

  CollectionWriteState& CollectionWrite(storage::Prefix collection);
  Mutex& CollectionLock(storage::Prefix collection) { return CollectionWrite(collection).lock; }

 private:
  storage::Engine& engine_;
  IdCache& id_cache_;
  CappedRegistry& capped_;
  std::atomic<OplogSink*> oplog_{nullptr};
  WriteGate gate_;
  Mutex states_mu_;
  std::unordered_map<storage::Prefix, std::unique_ptr<CollectionWriteState>> states_
      GUARDED_BY(states_mu_);
};

}  // namespace cairn::server
