// replSetGetStatus: the set's state as rs.status() prints it: this member, primary, its optimes
// (a single member is the majority, so every optime is the last applied one) and the election
// that made it primary at this start.
#include <chrono>

#include "server/commands/command_args.h"
#include "server/server_state.h"

namespace cairn::server {

namespace {

int64_t Millis(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

CommandOutcome HandleReplSetGetStatus(CommandContext& ctx, const CommandRequest& request,
                                      bson_t* reply) {
  Result<CommandArgs> args = CommandArgs::Parse(request, {{"initialSync", kArgNumber}});
  if (!args.ok()) return args.status();
  ReplicationCoordinator& repl = ctx.state.repl();
  std::shared_ptr<const Topology> topology = repl.topology();
  if (topology->state == MemberState::kStandalone) {
    return Status(ErrorCode::kNoReplicationEnabled, "not running with --replSet");
  }
  if (!topology->config) {
    return Status(ErrorCode::kNotYetInitialized, "no replset config has been received");
  }
  const ReplSetConfig& config = *topology->config;
  const int64_t term = topology->term;
  const Timestamp applied = repl.last_applied();
  const int64_t applied_wall = repl.last_applied_wall_ms();
  const int64_t now = Millis(std::chrono::system_clock::now());

  AppendUtf8(reply, "set", config.set_name);
  BSON_APPEND_DATE_TIME(reply, "date", now);
  BSON_APPEND_INT32(reply, "myState", 1);
  BSON_APPEND_INT64(reply, "term", term);
  AppendUtf8(reply, "syncSourceHost", "");
  BSON_APPEND_INT32(reply, "syncSourceId", -1);
  BSON_APPEND_INT64(reply, "heartbeatIntervalMillis", 2000);
  BSON_APPEND_INT32(reply, "majorityVoteCount", 1);
  BSON_APPEND_INT32(reply, "writeMajorityCount", 1);
  BSON_APPEND_INT32(reply, "votingMembersCount", 1);
  BSON_APPEND_INT32(reply, "writableVotingMembersCount", 1);
  bson_t optimes;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "optimes", &optimes);
  AppendOpTime(&optimes, "lastCommittedOpTime", applied, term);
  BSON_APPEND_DATE_TIME(&optimes, "lastCommittedWallTime", applied_wall);
  AppendOpTime(&optimes, "readConcernMajorityOpTime", applied, term);
  AppendOpTime(&optimes, "appliedOpTime", applied, term);
  AppendOpTime(&optimes, "durableOpTime", applied, term);
  BSON_APPEND_DATE_TIME(&optimes, "lastAppliedWallTime", applied_wall);
  BSON_APPEND_DATE_TIME(&optimes, "lastDurableWallTime", applied_wall);
  bson_append_document_end(reply, &optimes);
  AppendTimestamp(reply, "lastStableRecoveryTimestamp", applied);

  const int64_t election_ms = Millis(topology->election_date);
  bson_t metrics;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "electionCandidateMetrics", &metrics);
  AppendUtf8(&metrics, "lastElectionReason", "electionTimeout");
  BSON_APPEND_DATE_TIME(&metrics, "lastElectionDate", election_ms);
  BSON_APPEND_INT64(&metrics, "electionTerm", term);
  AppendOpTime(&metrics, "lastCommittedOpTimeAtElection", Timestamp(), -1);
  AppendOpTime(&metrics, "lastSeenOpTimeAtElection", topology->election_time, term);
  BSON_APPEND_INT32(&metrics, "numVotesNeeded", 1);
  BSON_APPEND_DOUBLE(&metrics, "priorityAtElection", config.member.priority);
  BSON_APPEND_INT64(&metrics, "electionTimeoutMillis", 10000);
  BSON_APPEND_DATE_TIME(&metrics, "newTermStartDate", election_ms);
  BSON_APPEND_DATE_TIME(&metrics, "wMajorityWriteAvailabilityDate", election_ms);
  bson_append_document_end(reply, &metrics);

  bson_t members, member;
  BSON_APPEND_ARRAY_BEGIN(reply, "members", &members);
  BSON_APPEND_DOCUMENT_BEGIN(&members, "0", &member);
  BSON_APPEND_INT32(&member, "_id", config.member.id);
  AppendUtf8(&member, "name", config.member.host);
  BSON_APPEND_DOUBLE(&member, "health", 1);
  BSON_APPEND_INT32(&member, "state", 1);
  AppendUtf8(&member, "stateStr", "PRIMARY");
  BSON_APPEND_INT64(&member, "uptime",
                    std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::steady_clock::now() - ctx.state.start_time())
                        .count());
  AppendOpTime(&member, "optime", applied, term);
  BSON_APPEND_DATE_TIME(&member, "optimeDate", applied_wall / 1000 * 1000);
  BSON_APPEND_DATE_TIME(&member, "lastAppliedWallTime", applied_wall);
  BSON_APPEND_DATE_TIME(&member, "lastDurableWallTime", applied_wall);
  AppendUtf8(&member, "syncSourceHost", "");
  BSON_APPEND_INT32(&member, "syncSourceId", -1);
  AppendUtf8(&member, "infoMessage", "");
  AppendTimestamp(&member, "electionTime", topology->election_time);
  BSON_APPEND_DATE_TIME(&member, "electionDate", election_ms / 1000 * 1000);
  BSON_APPEND_INT32(&member, "configVersion", config.version);
  BSON_APPEND_INT64(&member, "configTerm", term);
  BSON_APPEND_BOOL(&member, "self", true);
  AppendUtf8(&member, "lastHeartbeatMessage", "");
  bson_append_document_end(&members, &member);
  bson_append_array_end(reply, &members);
  return Status::OK();
}

}  // namespace cairn::server
