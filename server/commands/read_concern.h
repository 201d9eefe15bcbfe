// ReadConcern: the readConcern argument a command may carry ({level, afterClusterTime,
// atClusterTime, afterOpTime}), parsed and checked as mongod checks it (ReadConcernArgs::parse,
// then the command's support for the level), and what satisfying it takes on this server.
//
// On a one-member replica set every acknowledged write is the majority's, so "majority",
// "linearizable" and "local" read the same data; "available" is "local". Causal consistency
// (afterClusterTime) waits until every write with a Timestamp up to the requested one has
// committed (server/repl/oplog.h). Cairn keeps no history of older versions (mongod's
// minSnapshotHistoryWindowInSeconds is in effect 0): "snapshot" reads the newest committed data,
// and an atClusterTime older than the newest write answers SnapshotTooOld 239.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/interrupt.h"
#include "common/status.h"
#include "server/repl/logical_clock.h"

namespace cairn::server {

class ReplicationCoordinator;

enum class ReadConcernLevel { kLocal, kMajority, kLinearizable, kAvailable, kSnapshot };

struct ReadConcern {
  bool has_level = false;
  ReadConcernLevel level = ReadConcernLevel::kLocal;  // "local" when no level is given
  std::string provenance;                             // as the client sent it, if it did
  bool has_after_op_time = false;                     // internal (secondaries); kept for errors
  std::optional<Timestamp> after_cluster_time, at_cluster_time;
  bool empty() const {
    return !has_level && !has_after_op_time && !after_cluster_time && !at_cluster_time;
  }
};

std::string_view LevelName(ReadConcernLevel level);

// The command's "readConcern" field (null: absent). Errors as mongod's: FailedToParse for a
// non-document or an unknown level, TypeMismatch for a badly typed field, InvalidOptions for an
// unknown field or a combination mongod refuses.
Result<ReadConcern> ParseReadConcern(const bson_iter_t* field);

// Whether `command` (its `body`) takes this read concern outside a transaction: the read
// commands take every level (count: all but "snapshot"; an aggregate ending in $out or $merge:
// all but "linearizable"); every other command only "local". InvalidOptions "Command insert does
// not support { readConcern: ... } :: caused by :: read concern not supported" otherwise.
Status CheckCommandSupports(std::string_view command, BsonView body, const ReadConcern& concern);

// Before the command reads: a standalone refuses what needs replication (NotAReplicaSet 123 for
// "linearizable" and "snapshot", IllegalOperation 20 for a cluster time), a member that is not
// primary has no cluster time to serve one at (NotPrimaryOrSecondary 13436), a cluster time past
// the member's is InvalidOptions 72, an atClusterTime older than the newest write SnapshotTooOld
// 239; afterClusterTime waits (bounded by `interrupt`: maxTimeMS) until every write up to it has
// committed.
Status SatisfyReadConcern(ReplicationCoordinator& repl, const ReadConcern& concern,
                          Interruptible& interrupt);

}  // namespace cairn::server
