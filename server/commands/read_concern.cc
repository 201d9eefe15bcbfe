// readConcern parsing and the commands' support for its levels (see read_concern.h).
#include "server/commands/read_concern.h"

#include <string>
#include <thread>

#include "query/pipeline/stage_registry.h"
#include "server/repl/replication_coordinator.h"

namespace cairn::server {

namespace {

constexpr std::string_view kProvenances[] = {"clientSupplied", "implicitDefault", "customDefault",
                                             "getLastErrorDefaults", "internalWriteDefault"};

// bsonExtractTypedField's wording.
Status WrongType(std::string_view field, const bson_iter_t* it, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "\"" + std::string(field) +
                                              "\" had the wrong type. Expected " +
                                              std::string(expected) + ", found " +
                                              std::string(BsonTypeName(bson_iter_type(it))));
}

Result<Timestamp> TimestampField(std::string_view field, const bson_iter_t* it) {
  if (!BSON_ITER_HOLDS_TIMESTAMP(it)) return WrongType(field, it, "timestamp");
  return IterTimestamp(it);
}

std::optional<ReadConcernLevel> LevelFromName(std::string_view name) {
  if (name == "local") return ReadConcernLevel::kLocal;
  if (name == "majority") return ReadConcernLevel::kMajority;
  if (name == "linearizable") return ReadConcernLevel::kLinearizable;
  if (name == "available") return ReadConcernLevel::kAvailable;
  if (name == "snapshot") return ReadConcernLevel::kSnapshot;
  return std::nullopt;
}

std::string TimestampText(Timestamp ts) {
  return "Timestamp(" + std::to_string(ts.seconds()) + ", " + std::to_string(ts.increment()) + ")";
}

// The read concern as mongod prints it in errors: { readConcern: { level: "majority", ... } }.
std::string Describe(const ReadConcern& concern) {
  std::string text = "{ readConcern: { ";
  std::string_view separator;
  if (concern.has_level) {
    text += "level: \"" + std::string(LevelName(concern.level)) + "\"";
    separator = ", ";
  }
  if (concern.after_cluster_time) {
    text +=
        std::string(separator) + "afterClusterTime: " + TimestampText(*concern.after_cluster_time);
    separator = ", ";
  }
  if (concern.at_cluster_time) {
    text += std::string(separator) + "atClusterTime: " + TimestampText(*concern.at_cluster_time);
    separator = ", ";
  }
  text += std::string(separator) + "provenance: \"" +
          (concern.provenance.empty() ? std::string("clientSupplied") : concern.provenance) +
          "\" } }";
  return text;
}

}  // namespace

std::string_view LevelName(ReadConcernLevel level) {
  switch (level) {
    case ReadConcernLevel::kLocal:
      return "local";
    case ReadConcernLevel::kMajority:
      return "majority";
    case ReadConcernLevel::kLinearizable:
      return "linearizable";
    case ReadConcernLevel::kAvailable:
      return "available";
    case ReadConcernLevel::kSnapshot:
      return "snapshot";
  }
  return "local";
}

Result<ReadConcern> ParseReadConcern(const bson_iter_t* field) {
  ReadConcern concern;
  if (field == nullptr) return concern;
  if (!BSON_ITER_HOLDS_DOCUMENT(field)) {
    return Status(ErrorCode::kFailedToParse, "readConcern field should be an object");
  }
  bson_iter_t it;
  bson_iter_recurse(field, &it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "afterOpTime") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(key, &it, "object");
      concern.has_after_op_time = true;
    } else if (key == "afterClusterTime" || key == "atClusterTime") {
      Result<Timestamp> ts = TimestampField(key, &it);
      if (!ts.ok()) return ts.status();
      (key == "afterClusterTime" ? concern.after_cluster_time : concern.at_cluster_time) = *ts;
    } else if (key == "level") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(key, &it, "string");
      std::optional<ReadConcernLevel> level = LevelFromName(IterUtf8(&it));
      if (!level) {
        return Status(ErrorCode::kFailedToParse,
                      "readConcern.level must be either 'local', 'majority', 'linearizable', "
                      "'available', or 'snapshot'");
      }
      concern.has_level = true;
      concern.level = *level;
    } else if (key == "allowTransactionTableSnapshot") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return WrongType(key, &it, "bool");
    } else if (key == "provenance") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(key, &it, "string");
      std::string_view value = IterUtf8(&it);
      bool known = false;
      for (std::string_view name : kProvenances) known = known || name == value;
      if (!known) {
        return Status(ErrorCode::kBadValue, "Enumeration value '" + std::string(value) +
                                                "' for field 'provenance' is not a valid value.");
      }
      concern.provenance = value;
    } else {
      return Status(ErrorCode::kInvalidOptions,
                    "Unrecognized option in readConcern: " + std::string(key));
    }
  }
  if (concern.after_cluster_time && concern.has_after_op_time) {
    return Status(ErrorCode::kInvalidOptions,
                  "Can not specify both afterClusterTime and afterOpTime");
  }
  if (concern.after_cluster_time && concern.at_cluster_time) {
    return Status(ErrorCode::kInvalidOptions,
                  "Specifying a timestamp for readConcern snapshot in a causally consistent "
                  "session is not allowed. See "
                  "https://docs.mongodb.com/manual/core/read-isolation-consistency-recency/"
                  "#causal-consistency");
  }
  if (concern.after_cluster_time && concern.level != ReadConcernLevel::kMajority &&
      concern.level != ReadConcernLevel::kLocal && concern.level != ReadConcernLevel::kSnapshot) {
    return Status(ErrorCode::kInvalidOptions,
                  "afterClusterTime field can be set only if level is equal to majority, local, "
                  "or snapshot");
  }
  if (concern.has_after_op_time && concern.level == ReadConcernLevel::kSnapshot) {
    return Status(ErrorCode::kInvalidOptions,
                  "afterOpTime field cannot be set if level is equal to snapshot");
  }
  if (concern.at_cluster_time && concern.level != ReadConcernLevel::kSnapshot) {
    return Status(ErrorCode::kInvalidOptions,
                  "atClusterTime field can be set only if level is equal to snapshot");
  }
  if (concern.at_cluster_time && concern.at_cluster_time->seconds() == 0) {
    return Status(ErrorCode::kInvalidOptions, "atClusterTime cannot be a null timestamp");
  }
  if (concern.after_cluster_time && concern.after_cluster_time->null()) {
    return Status(ErrorCode::kInvalidOptions, "afterClusterTime cannot be a null timestamp");
  }
  return concern;
}

Status CheckCommandSupports(std::string_view command, BsonView body, const ReadConcern& concern) {
  if (!concern.has_level) return Status::OK();
  std::string reason;
  if (command == "aggregate" && concern.level == ReadConcernLevel::kLinearizable) {
    bson_iter_t pipeline;
    if (!body.Find("pipeline", &pipeline) || !BSON_ITER_HOLDS_ARRAY(&pipeline)) {
      return Status::OK();  // aggregate reports it
    }
    const std::string_view last = query::LastStageName(IterDocument(&pipeline));
    if (last != "$out" && last != "$merge") return Status::OK();
    reason = std::string(last) + " cannot be used with a 'linearizable' read concern level";
  } else if (command == "find" || command == "aggregate" || command == "distinct" ||
             command == "explain") {
    return Status::OK();
  } else if (command == "count") {
    if (concern.level != ReadConcernLevel::kSnapshot) return Status::OK();
    reason = "read concern snapshot not supported";
  } else {
    if (concern.level == ReadConcernLevel::kLocal) return Status::OK();
    reason = "read concern not supported";
  }
  return Status(ErrorCode::kInvalidOptions, "Command " + std::string(command) +
                                                " does not support " + Describe(concern) +
                                                " :: caused by :: " + reason);
}

Status SatisfyReadConcern(ReplicationCoordinator& repl, const ReadConcern& concern,
                          Interruptible& interrupt) {
  if (concern.empty()) return Status::OK();
  if (concern.level == ReadConcernLevel::kLinearizable && !repl.enabled()) {
    return Status(ErrorCode::kNotAReplicaSet,
                  "node needs to be a replica set member to use read concern");
  }
  if (concern.level == ReadConcernLevel::kSnapshot && !repl.enabled()) {
    return Status(ErrorCode::kNotAReplicaSet,
                  "node needs to be a replica set member to use readConcern: snapshot");
  }
  if (concern.has_after_op_time && !repl.enabled()) {
    return Status(ErrorCode::kNotAReplicaSet,
                  "node needs to be a replica set member to use read concern");
  }
  const std::optional<Timestamp>& target =
      concern.after_cluster_time ? concern.after_cluster_time : concern.at_cluster_time;
  if (!target) return Status::OK();
  const std::string name = concern.after_cluster_time ? "afterClusterTime" : "atClusterTime";
  if (!repl.enabled()) {
    return Status(ErrorCode::kIllegalOperation,
                  "Cannot specify " + name + " readConcern without replication enabled");
  }
  const Timestamp now = repl.clock().Now();
  if (!repl.primary() || now.null()) {
    return Status(ErrorCode::kNotPrimaryOrSecondary,
                  "Current clusterTime is uninitialized, cannot service the requested "
                  "clusterTime. Requested clusterTime: " +
                      TimestampText(*target) + "; current clusterTime: " + TimestampText(now));
  }
  if (now < *target) {
    return Status(ErrorCode::kInvalidOptions,
                  "readConcern " + name +
                      " value must not be greater than the current clusterTime. Requested "
                      "clusterTime: " +
                      TimestampText(*target) + "; current clusterTime: " + TimestampText(now));
  }
  // Writes that took a Timestamp up to the target may still be committing (on other threads,
  // for microseconds): wait for them. New writes take Timestamps past the clock, so this ends.
  while (!repl.oplog().AllCommittedThrough(*target)) {
    Status status = interrupt.Check();
    if (!status.ok()) return status;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  if (concern.at_cluster_time && repl.last_applied() > *concern.at_cluster_time) {
    return Status(ErrorCode::kSnapshotTooOld, "Read timestamp " +
                                                  TimestampText(*concern.at_cluster_time) +
                                                  " is older than the oldest available timestamp.");
  }
  return Status::OK();
}

}  // namespace cairn::server
