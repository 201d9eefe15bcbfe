// ReplicationCoordinator implementation (see replication_coordinator.h).
#include "server/repl/replication_coordinator.h"

#include <cstring>

#include "common/logging.h"
#include "server/repl/self_host.h"
#include "server/write/collection_writer.h"

namespace cairn::server {

namespace {

constexpr std::string_view kConfigNs = "local.system.replset";
constexpr std::string_view kElectionNs = "local.replset.election";

// The one document of a local collection kept by this module, if any.
Result<std::optional<BsonDoc>> LoadSingleton(storage::Engine& engine, std::string_view ns) {
  storage::CollectionHandle collection = engine.catalog().Find(ns);
  if (!collection) return std::optional<BsonDoc>();
  std::unique_ptr<storage::RecordCursor> cursor = engine.ScanRecords(collection->prefix);
  if (cursor->Next()) return std::optional<BsonDoc>(BsonDoc(cursor->value()));
  if (!cursor->status().ok()) return cursor->status();
  return std::optional<BsonDoc>();
}

// Replaces the one document of a local collection (creating it) with `doc`, which has an _id.
Status StoreSingleton(WriteContext& writes, std::string_view ns, BsonView doc) {
  Result<std::unique_ptr<CollectionWriter>> writer =
      CollectionWriter::Open(writes, ns, /*create_if_missing=*/true);
  if (!writer.ok()) return writer.status();
  CollectionWriter& w = **writer;
  std::unique_ptr<storage::RecordCursor> cursor =
      writes.engine().ScanRecords(w.collection()->prefix);
  while (cursor->Next()) {
    Status removed = w.Remove(cursor->id(), cursor->value());
    if (!removed.ok()) return removed;
  }
  if (!cursor->status().ok()) return cursor->status();
  std::optional<BsonDoc> storage;
  Result<BsonView> prepared = PrepareForInsert(doc, &storage);
  if (!prepared.ok()) return prepared.status();
  Status inserted = w.Insert(*prepared);
  if (!inserted.ok()) return inserted;
  return w.Commit();
}

int64_t StoredTerm(const std::optional<BsonDoc>& election) {
  bson_iter_t it;
  int64_t term = 0;
  if (election && election->view().Find("term", &it)) IterAsInt64(&it, &term);
  return term;
}

}  // namespace

bson_oid_t ElectionId(int64_t term) {
  bson_oid_t id;
  const uint8_t prefix[4] = {0x7f, 0xff, 0xff, 0xff};
  std::memcpy(id.bytes, prefix, 4);
  for (int i = 0; i < 8; ++i)
    id.bytes[4 + i] = static_cast<uint8_t>(static_cast<uint64_t>(term) >> (56 - 8 * i));
  return id;
}

ReplicationCoordinator::ReplicationCoordinator(const ServerOptions& options, WriteContext& writes)
    : options_(options), writes_(writes), set_name_(options.repl_set) {
  bson_oid_init(&process_id_, nullptr);
  auto topology = std::make_shared<Topology>();
  topology->state = enabled() ? MemberState::kUninitiated : MemberState::kStandalone;
  MutexLock lock(&mu_);
  topology_ = std::move(topology);
}

ReplicationCoordinator::~ReplicationCoordinator() = default;

std::shared_ptr<const Topology> ReplicationCoordinator::topology() const {
  MutexLock lock(&mu_);
  return topology_;
}

Timestamp ReplicationCoordinator::last_applied() const { return oplog_.VisibleThrough(); }

Status ReplicationCoordinator::Startup() {
  if (!enabled()) return Status::OK();
  CAIRN_RETURN_IF_ERROR(rw_concern_defaults_.Load(writes_.engine()));
  MutexLock change(&change_mu_);
  Result<std::optional<BsonDoc>> stored = LoadSingleton(writes_.engine(), kConfigNs);
  if (!stored.ok()) return stored.status();
  if (stored->has_value()) {
    bson_iter_t it;
    bson_oid_t replica_set_id;
    bson_oid_init(&replica_set_id, nullptr);
    if ((*stored)->view().Find("settings", &it) && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_iter_t id;
      BsonView settings = IterDocument(&it);
      if (settings.Find("replicaSetId", &id) && BSON_ITER_HOLDS_OID(&id)) {
        bson_oid_copy(bson_iter_oid(&id), &replica_set_id);
      }
    }
    Result<ReplSetConfig> config = ParseReplSetConfig((*stored)->view(), set_name_, replica_set_id);
    if (!config.ok()) {
      return Status(config.status().code(),
                    "The stored replica set configuration (local.system.replset) is not valid "
                    "for --replSet " +
                        set_name_ + ": " + config.status().reason());
    }
    Result<std::optional<BsonDoc>> election = LoadSingleton(writes_.engine(), kElectionNs);
    if (!election.ok()) return election.status();
    return BecomePrimary(std::move(config).value(), StoredTerm(*election) + 1);
  }
  if (!options_.initiate) return Status::OK();
  Result<ReplSetConfig> config = Validate(BsonView());
  if (!config.ok()) return config.status();
  Status status = BecomePrimary(std::move(config).value(), 1);
  if (status.ok()) auto_initiated_ = true;
  return status;
}

Result<ReplSetConfig> ReplicationCoordinator::Validate(BsonView doc) const {
  bson_oid_t replica_set_id;
  bson_oid_init(&replica_set_id, nullptr);
  BsonDoc default_config;
  if (doc.empty()) {
    // rs.initiate() without a configuration: this server as the only member.
    bson_t* d = default_config.get();
    AppendUtf8(d, "_id", set_name_);
    BSON_APPEND_INT32(d, "version", 1);
    bson_t members, member;
    BSON_APPEND_ARRAY_BEGIN(d, "members", &members);
    BSON_APPEND_DOCUMENT_BEGIN(&members, "0", &member);
    BSON_APPEND_INT32(&member, "_id", 0);
    AppendUtf8(&member, "host", DefaultMemberHost(options_));
    bson_append_document_end(&members, &member);
    bson_append_array_end(d, &members);
    doc = default_config.view();
  }
  Result<ReplSetConfig> config = ParseReplSetConfig(doc, set_name_, replica_set_id);
  if (!config.ok()) return config;
  if (!IsSelf(config->member.host, options_)) {
    return Status(ErrorCode::kNodeNotFound,
                  "No host described in new configuration with {version: " +
                      std::to_string(config->version) + ", term: " + std::to_string(config->term) +
                      "} for replica set " + set_name_ + " maps to this node");
  }
  return config;
}

Status ReplicationCoordinator::Initiate(BsonView doc) {
  if (!enabled()) {
    return Status(ErrorCode::kNoReplicationEnabled,
                  "This node was not started with replication enabled.");
  }
  MutexLock change(&change_mu_);
  const bool replace_automatic = auto_initiated_;
  if (topology()->state != MemberState::kUninitiated && !replace_automatic) {
    return Status(ErrorCode::kAlreadyInitialized, "already initialized");
  }
  Result<ReplSetConfig> config = Validate(doc);
  if (!config.ok()) return config.status();
  if (replace_automatic) {
    // A tool that sends replSetInitiate to a server started with --initiate gets its own
    // configuration, once, in the term already running.
    auto_initiated_ = false;
    config->term = topology()->term;
    return BecomePrimary(std::move(config).value(), topology()->term);
  }
  return BecomePrimary(std::move(config).value(), 1);
}

Status ReplicationCoordinator::Reconfig(BsonView doc, bool force) {
  if (!enabled()) {
    return Status(ErrorCode::kNoReplicationEnabled, "node is not in replica set mode");
  }
  MutexLock change(&change_mu_);
  std::shared_ptr<const Topology> current = topology();
  if (current->state != MemberState::kPrimary) {
    return Status(ErrorCode::kNotYetInitialized, "no replset config has been received");
  }
  Result<ReplSetConfig> config = Validate(doc);
  if (!config.ok()) return config.status();
  if (force) {
    // mongod adds a large random amount to a forced configuration's version.
    config->version = current->config->version + 10000 + static_cast<int32_t>(std::rand() % 90000);
  } else if (config->version <= current->config->version) {
    return Status(ErrorCode::kNewReplicaSetConfigurationIncompatible,
                  "New config is rejected :: caused by :: replSetReconfig should only be run on a "
                  "config with a version greater than the current config version " +
                      std::to_string(current->config->version) + "; got version " +
                      std::to_string(config->version));
  }
  auto_initiated_ = false;
  return BecomePrimary(std::move(config).value(), current->term);
}

Status ReplicationCoordinator::BecomePrimary(ReplSetConfig config, int64_t term) {
  const bool newly_primary = topology()->state != MemberState::kPrimary;
  config.term = term;
  if (newly_primary) {
    // The oplog first: Timestamps continue from its newest entry.
    storage::CollectionHandle existing = writes_.engine().catalog().Find(kOplogNs);
    int64_t max_bytes = options_.oplog_size_mb > 0 ? options_.oplog_size_mb * 1024 * 1024
                                                   : DefaultOplogBytes(options_.dbpath);
    bson_iter_t size;
    if (existing && existing->options.view().Find("size", &size)) {
      IterAsInt64(&size, &max_bytes);  // --oplogSize applies when the oplog is created
    }
    CAIRN_RETURN_IF_ERROR(oplog_.Open(max_bytes));
    CAIRN_RETURN_IF_ERROR(retryable_.Load(oplog_.prefix()));
  }
  oplog_.set_term(term);
  BsonDoc stored = config.ToBson();
  Status status = StoreSingleton(writes_, kConfigNs, stored.view());
  if (!status.ok()) return status;
  BsonDoc election;
  AppendUtf8(election.get(), "_id", "election");
  BSON_APPEND_INT64(election.get(), "term", term);
  BSON_APPEND_INT64(election.get(), "candidateIndex", 0);
  status = StoreSingleton(writes_, kElectionNs, election.view());
  if (!status.ok()) return status;

  auto next = std::make_shared<Topology>();
  std::shared_ptr<const Topology> current = topology();
  next->state = MemberState::kPrimary;
  next->config = std::make_shared<const ReplSetConfig>(std::move(config));
  next->term = term;
  next->counter = current->counter + 1;
  if (newly_primary || current->term != term) {
    // mongod's first write of a new primary: a no-op entry, the election's optime.
    BsonDoc message;
    AppendUtf8(message.get(), "msg", "new primary");
    Result<Timestamp> logged = oplog_.LogNoop(message.view());
    if (!logged.ok()) return logged.status();
    next->election_time = *logged;
    next->election_date = std::chrono::system_clock::now();
  } else {
    next->election_time = current->election_time;
    next->election_date = current->election_date;
  }
  Publish(std::move(next));
  writes_.set_oplog(&oplog_);  // from now on every replicated write is logged
  if (newly_primary) {
    BsonDoc attr;
    BSON_APPEND_INT64(attr.get(), "term", term);
    logging::Log(logging::Severity::kInfo, "REPL", 21331, "OplogApplier-0",
                 "Transition to primary complete; database writes are now permitted", attr.get());
  }
  return Status::OK();
}

void ReplicationCoordinator::Publish(std::shared_ptr<const Topology> next) {
  std::list<WaiterHandle> woken;
  {
    MutexLock lock(&mu_);
    topology_ = std::move(next);
    woken.swap(waiters_);
  }
  for (const WaiterHandle& waiter : woken) waiter->wake();
}

bool ReplicationCoordinator::RegisterTopologyWaiter(int64_t seen_counter,
                                                    std::function<void()> wake,
                                                    WaiterHandle* handle) {
  MutexLock lock(&mu_);
  if (topology_->counter != seen_counter) return false;
  *handle = std::make_shared<Waiter>(Waiter{std::move(wake)});
  waiters_.push_back(*handle);
  return true;
}

void ReplicationCoordinator::UnregisterTopologyWaiter(const WaiterHandle& handle) {
  if (!handle) return;
  MutexLock lock(&mu_);
  waiters_.remove(handle);
}

}  // namespace cairn::server
