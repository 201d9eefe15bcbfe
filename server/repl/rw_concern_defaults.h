// RwConcernDefaults: the cluster-wide default read and write concerns of a replica set
// (setDefaultRWConcern / getDefaultRWConcern), kept as mongod's ReadWriteConcernDefaults keeps
// them: persisted as the document {_id: "ReadWriteConcernDefaults"} of config.settings, loaded
// when the member starts, and published as an immutable snapshot that the dispatcher reads for
// every command taking a read or write concern. While none is set that read is one atomic load.
//
// Thread-safety: the snapshot is replaced whole under a mutex; readers take a shared_ptr to it.
// Updates are serialised by their own mutex.
#pragma once

#include <bson/bson.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "common/bson_doc.h"
#include "common/mutex.h"
#include "common/status.h"

namespace cairn::storage {
class Engine;
}  // namespace cairn::storage

namespace cairn::server {

class WriteContext;

// The settings document's _id and namespace, as mongod names them.
inline constexpr std::string_view kRwConcernDefaultsId = "ReadWriteConcernDefaults";
inline constexpr std::string_view kConfigSettingsNs = "config.settings";

// One snapshot of the defaults.
struct RwConcernDefaultValues {
  // The stored document: {_id, defaultReadConcern?, defaultWriteConcern?, updateOpTime?,
  // updateWallClockTime?}; empty when none is stored.
  BsonDoc doc;
  // localUpdateWallClockTime: when this server took these values (ms since the epoch).
  int64_t local_update_wall_ms = 0;

  // Positions `it` at defaultReadConcern / defaultWriteConcern when set.
  bool FindReadConcern(bson_iter_t* it) const;
  bool FindWriteConcern(bson_iter_t* it) const;
};

class RwConcernDefaults {
 public:
  using Values = RwConcernDefaultValues;

  RwConcernDefaults();

  // Reads the stored document, if any (before the member serves).
  Status Load(storage::Engine& engine);

  // Whether a default read or write concern is set: the dispatcher's test, one atomic load.
  bool any_set() const { return any_set_.load(std::memory_order_acquire); }
  std::shared_ptr<const Values> current() const;

  // setDefaultRWConcern: `make` builds the new settings document from the current values (or
  // refuses with its error); it replaces the stored one, then is published. Serialised.
  using Maker = std::function<Result<BsonDoc>(const Values& current)>;
  Result<std::shared_ptr<const Values>> Update(WriteContext& writes, const Maker& make);

  // getDefaultRWConcern's fields, also serverStatus's defaultRWConcern: the defaults set, or the
  // implicit ones ({level: "local"}; {w: "majority", wtimeout: 0} once the set has a
  // configuration, `implicit_majority`) with their sources, the update times, and inMemory when
  // asked.
  static void AppendReply(const Values& values, bool implicit_majority, bool in_memory,
                          bson_t* out);

 private:
  void Publish(std::shared_ptr<const Values> next);

  Mutex update_mu_;  // serialises Update
  mutable Mutex mu_;
  std::shared_ptr<const Values> current_ GUARDED_BY(mu_);
  std::atomic<bool> any_set_{false};
};

}  // namespace cairn::server
