// Top: per-namespace time and count of the operations that read or wrote each collection, as
// mongod's Top reports them (the `top` command): total, readLock, writeLock, queries, getmore,
// insert, update, remove, commands, each {time, count} in microseconds. Fed by OpScope as each
// command ends: one lock of an uncontended-in-practice mutex and a map lookup; a namespace's
// entry is allocated once, on its first command. Thread-safe.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/mutex.h"

namespace cairn::server {

class Top {
 public:
  // What a command counts as (mongod's LogicalOp) and the lock it took (none: not recorded).
  enum class Op : uint8_t { kNone, kQuery, kGetMore, kInsert, kUpdate, kRemove, kCommand };
  enum class Lock : uint8_t { kRead, kWrite };

  // How command `name` is counted: kNone for commands mongod does not record in Top.
  static Op Classify(std::string_view name, Lock* lock);

  void Record(std::string_view ns, Op op, Lock lock, int64_t micros);
  // A dropped collection's (or database's: every "db." namespace) counters go with it.
  void CollectionDropped(std::string_view ns);
  void DatabaseDropped(std::string_view db);

  // Appends one {total, readLock, ...} document per namespace, in name order.
  void Append(bson_t* totals) const;

 private:
  struct Usage {
    int64_t time = 0;
    int64_t count = 0;
    void Add(int64_t micros) {
      time += micros;
      ++count;
    }
  };
  struct Collection {
    Usage total, read_lock, write_lock, queries, getmore, insert, update, remove, commands;
  };
  mutable Mutex mu_;
  std::map<std::string, Collection, std::less<>> usage_ GUARDED_BY(mu_);
};

}  // namespace cairn::server
