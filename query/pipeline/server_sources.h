// ServerSources: what the stages that report the server's own state read — $collStats (a
// collection's statistics), $currentOp (the running operations) and $listLocalSessions (the
// logical sessions seen). query/ knows neither storage nor the server, so the server implements
// this interface (server/exec/server_sources.cc) and hands it to the pipeline in PipelineOptions,
// as MongoDB's stages reach mongod through MongoProcessInterface. The stages parse and check
// their arguments themselves (stages/coll_stats.cc, current_op.cc, list_local_sessions.cc); each
// method gets the parsed argument. One instance per aggregate command; used by one cursor at a
// time.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

// {$collStats: {latencyStats?: {}, storageStats?: {scale?}, count?: {}, queryExecStats?: {}}}:
// which sections the document has.
struct CollStatsSpec {
  bool latency_stats = false;
  bool storage_stats = false;
  int64_t scale = 1;  // storageStats.scale, >= 1
  bool count = false;
  bool query_exec_stats = false;
};

// {$currentOp: {...}}: its boolean options (each false unless given).
struct CurrentOpSpec {
  bool idle_connections = false;
  bool idle_sessions = false;
  bool all_users = false;
  bool local_ops = false;
  bool truncate_ops = false;
  bool idle_cursors = false;
  bool backtrace = false;
};

// {$listLocalSessions: {allUsers?: bool, users?: [...]}}.
struct ListLocalSessionsSpec {
  bool all_users = false;
  BsonDoc users;  // the `users` array as given (empty when absent)
};

class ServerSources {
 public:
  virtual ~ServerSources() = default;

  // The one document $collStats outputs for the collection `ns` ("db.coll"; one that does not
  // exist reports as empty): ns, host, localTime and the sections `spec` asks for.
  virtual Result<BsonDoc> CollStats(std::string_view ns, const CollStatsSpec& spec) = 0;

  // One document per operation (and idle connection, when asked) in MongoDB's shape.
  virtual Result<std::vector<BsonDoc>> CurrentOp(const CurrentOpSpec& spec) = 0;

  // One document per live logical session: {_id: {id, uid}, lastUse}.
  virtual Result<std::vector<BsonDoc>> ListLocalSessions(const ListLocalSessionsSpec& spec) = 0;
};

}  // namespace cairn::query
