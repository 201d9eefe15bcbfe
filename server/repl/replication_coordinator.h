// ReplicationCoordinator: this server's place in a replica set (MongoDB's
// ReplicationCoordinator, for a set of one member). Without --replSet it is a standalone and
// says so; with --replSet it is uninitiated until replSetInitiate (or --initiate), then primary
// at once, in a new term at every start. It owns the set's configuration (persisted as
// local.system.replset, as mongod keeps it), the term (local.replset.election), the topology
// version hello reports and the waits of awaitable hello, the cluster's logical clock, and the
// cluster-wide default read and write concerns (rw_concern_defaults.h).
//
// Thread-safety: the topology is an immutable snapshot behind a mutex; readers take a
// shared_ptr to it. Initiate and Reconfig are serialised by their own mutex.
#pragma once

#include <bson/bson.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>

#include "common/bson_doc.h"
#include "common/mutex.h"
#include "common/status.h"
#include "server/options.h"
#include "server/repl/logical_clock.h"
#include "server/repl/oplog.h"
#include "server/repl/repl_set_config.h"
#include "server/repl/retryable_sessions.h"
#include "server/repl/rw_concern_defaults.h"

namespace cairn::server {

class WriteContext;

enum class MemberState {
  kStandalone,   // not started with --replSet
  kUninitiated,  // --replSet, no configuration yet (mongod's STARTUP with no config)
  kPrimary,
};

// What hello, replSetGetStatus and the dispatcher read; replaced whole on every change.
struct Topology {
  MemberState state = MemberState::kStandalone;
  std::shared_ptr<const ReplSetConfig> config;  // null unless initiated
  int64_t term = 0;
  // hello's topologyVersion.counter: moves on every change a driver must see.
  int64_t counter = 0;
  Timestamp election_time;
  std::chrono::system_clock::time_point election_date;
};

// hello's electionId: 7fffffff followed by the term, 8 bytes big-endian (as mongod makes it).
bson_oid_t ElectionId(int64_t term);

class ReplicationCoordinator {
 public:
  ReplicationCoordinator(const ServerOptions& options, WriteContext& writes);
  ~ReplicationCoordinator();

  // Before the server accepts connections: loads a stored configuration and becomes primary in
  // a new term; with --initiate and none stored, initiates with the default configuration.
  Status Startup();
  // The port the server listens on (--port 0 picks one when it binds), before Startup.
  void set_port(int port) { options_.port = port; }

  // Started with --replSet.
  bool enabled() const { return !set_name_.empty(); }
  const std::string& set_name() const { return set_name_; }
  std::shared_ptr<const Topology> topology() const;
  bool primary() const { return topology()->state == MemberState::kPrimary; }
  // hello's topologyVersion.processId: new at every start.
  const bson_oid_t& process_id() const { return process_id_; }

  LogicalClock& clock() { return clock_; }
  // local.oplog.rs (opened when the member first becomes primary).
  Oplog& oplog() { return oplog_; }
  // The sessions' retryable writes (rebuilt from the oplog when the member becomes primary).
  RetryableSessions& retryable() { return retryable_; }
  // The cluster-wide default read and write concerns (loaded by Startup; never set on a
  // standalone, so none applies there).
  RwConcernDefaults& rw_concern_defaults() { return rw_concern_defaults_; }
  // The newest committed write's optime (its Timestamp and wall-clock time), for hello's
  // lastWrite, replSetGetStatus and operationTime: every oplog entry up to it has committed. A
  // single member is the majority, so it is also the majority optime.
  Timestamp last_applied() const;
  int64_t last_applied_wall_ms() const { return oplog_.last_commit_wall_ms(); }

  // replSetInitiate: `config` is the command's document, or empty for the default one.
  // AlreadyInitialized 23 once initiated (except the first initiate after an --initiate start,
  // whose configuration replaces the automatic one), NoReplicationEnabled 76 on a standalone,
  // the config's own errors (repl_set_config.h), NodeNotFound 74 when its member is not this
  // server.
  Status Initiate(BsonView config);
  // replSetReconfig: a new configuration (version greater than the current one unless `force`).
  Status Reconfig(BsonView config, bool force);

  // Awaitable hello: calls `wake` (from the changing thread: it must only post work) once the
  // topology counter moves past `seen_counter`. False, nothing registered, when it already has.
  struct Waiter;
  using WaiterHandle = std::shared_ptr<Waiter>;
  bool RegisterTopologyWaiter(int64_t seen_counter, std::function<void()> wake,
                              WaiterHandle* handle);
  void UnregisterTopologyWaiter(const WaiterHandle& handle);

 private:
  // Stores the configuration and term, becomes primary, publishes the topology and logs.
  Status BecomePrimary(ReplSetConfig config, int64_t term) REQUIRES(change_mu_);
  void Publish(std::shared_ptr<const Topology> next);
  Result<ReplSetConfig> Validate(BsonView doc) const;

  ServerOptions options_;  // a copy: the port is the one bound
  WriteContext& writes_;
  const std::string set_name_;
  bson_oid_t process_id_;
  LogicalClock clock_;
  Oplog oplog_{writes_, clock_};
  RetryableSessions retryable_{writes_};
  RwConcernDefaults rw_concern_defaults_;

  Mutex change_mu_;  // serialises Initiate, Reconfig and Startup
  bool auto_initiated_ GUARDED_BY(change_mu_) = false;

  mutable Mutex mu_;
  std::shared_ptr<const Topology> topology_ GUARDED_BY(mu_);
  std::list<WaiterHandle> waiters_ GUARDED_BY(mu_);
};

struct ReplicationCoordinator::Waiter {
  std::function<void()> wake;
};

}  // namespace cairn::server
