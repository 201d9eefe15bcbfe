// ReplSetConfig parsing, validation and printing (see repl_set_config.h).
#include "server/repl/repl_set_config.h"

#include <cmath>

namespace cairn::server {

namespace {

Status WrongType(std::string_view where, std::string_view field, const bson_iter_t* it,
                 std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(where) + "." +
                                              std::string(field) + "' is the wrong type '" +
                                              std::string(BsonTypeName(bson_iter_type(it))) +
                                              "', expected type '" + std::string(expected) + "'");
}

Status UnknownField(std::string_view where, std::string_view field) {
  return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(where) + "." +
                                               std::string(field) + "' is an unknown field.");
}

Status Invalid(std::string reason) {
  return Status(ErrorCode::kInvalidReplicaSetConfig, std::move(reason));
}

// A number field as a whole number; TypeMismatch otherwise.
Result<int64_t> WholeNumber(std::string_view where, const bson_iter_t* it) {
  if (!IterIsNumber(it)) return WrongType(where, IterKey(it), it, "int");
  double value = 0;
  IterAsDouble(it, &value);
  if (std::trunc(value) != value) {
    return Status(ErrorCode::kBadValue, "Expected an integer value for '" +
                                            std::string(IterKey(it)) + "' but found " +
                                            std::to_string(value));
  }
  return static_cast<int64_t>(value);
}

Result<ReplSetMemberConfig> ParseMember(BsonView doc) {
  ReplSetMemberConfig member;
  bool has_id = false;
  bson_iter_t it;
  doc.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "_id") {
      Result<int64_t> id = WholeNumber("MemberConfig", &it);
      if (!id.ok()) return id.status();
      if (*id < 0 || *id > 255) {
        return Invalid("_id field value of " + std::to_string(*id) + " is out of range.");
      }
      member.id = static_cast<int32_t>(*id);
      has_id = true;
    } else if (key == "host") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType("MemberConfig", key, &it, "string");
      member.host = NormalizeHostAndPort(IterUtf8(&it));
    } else if (key == "priority") {
      if (!IterIsNumber(&it)) return WrongType("MemberConfig", key, &it, "double");
      IterAsDouble(&it, &member.priority);
      if (!(member.priority >= 0 && member.priority <= 1000)) {
        return Invalid("priority field value of " + std::to_string(member.priority) +
                       " is out of range. The valid range is [0, 1000].");
      }
    } else if (key == "votes") {
      Result<int64_t> votes = WholeNumber("MemberConfig", &it);
      if (!votes.ok()) return votes.status();
      if (*votes != 0 && *votes != 1) {
        return Invalid("votes field value is " + std::to_string(*votes) + " but must be 0 or 1");
      }
      member.votes = static_cast<int32_t>(*votes);
    } else if (key == "arbiterOnly" || key == "hidden" || key == "buildIndexes") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return WrongType("MemberConfig", key, &it, "bool");
      bool value = bson_iter_bool(&it);
      (key == "arbiterOnly" ? member.arbiter_only
       : key == "hidden"    ? member.hidden
                            : member.build_indexes) = value;
    } else if (key == "secondaryDelaySecs" || key == "slaveDelay") {
      Result<int64_t> delay = WholeNumber("MemberConfig", &it);
      if (!delay.ok()) return delay.status();
      member.secondary_delay_secs = *delay;
    } else if (key == "tags") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType("MemberConfig", key, &it, "object");
      member.tags = BsonDoc(IterDocument(&it));
    } else {
      return UnknownField("MemberConfig", key);
    }
  }
  if (!has_id)
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'MemberConfig._id' is missing but a required field");
  if (member.host.empty()) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'MemberConfig.host' is missing but a required field");
  }
  return member;
}

// settings with every field filled in, as rs.conf() shows them.
Result<BsonDoc> NormalizeSettings(BsonView given, const bson_oid_t& replica_set_id) {
  static constexpr std::string_view kKnown[] = {
      "chainingAllowed",       "heartbeatIntervalMillis", "heartbeatTimeoutSecs",
      "electionTimeoutMillis", "catchUpTimeoutMillis",    "catchUpTakeoverDelayMillis",
      "getLastErrorModes",     "getLastErrorDefaults",    "replicaSetId"};
  bson_iter_t it;
  given.Init(&it);
  while (bson_iter_next(&it)) {
    bool known = false;
    for (std::string_view name : kKnown) known = known || IterKey(&it) == name;
    if (!known) return UnknownField("ReplSetConfigSettings", IterKey(&it));
  }
  BsonDoc out;
  bson_t* doc = out.get();
  auto copy_or = [&](std::string_view name, auto append_default) {
    bson_iter_t found;
    if (given.Find(name, &found)) {
      AppendIter(doc, name, &found);
    } else {
      append_default();
    }
  };
  copy_or("chainingAllowed", [&] { BSON_APPEND_BOOL(doc, "chainingAllowed", true); });
  copy_or("heartbeatIntervalMillis",
          [&] { BSON_APPEND_INT32(doc, "heartbeatIntervalMillis", 2000); });
  copy_or("heartbeatTimeoutSecs", [&] { BSON_APPEND_INT32(doc, "heartbeatTimeoutSecs", 10); });
  copy_or("electionTimeoutMillis", [&] { BSON_APPEND_INT32(doc, "electionTimeoutMillis", 10000); });
  copy_or("catchUpTimeoutMillis", [&] { BSON_APPEND_INT32(doc, "catchUpTimeoutMillis", -1); });
  copy_or("catchUpTakeoverDelayMillis",
          [&] { BSON_APPEND_INT32(doc, "catchUpTakeoverDelayMillis", 30000); });
  copy_or("getLastErrorModes", [&] {
    bson_t modes;
    BSON_APPEND_DOCUMENT_BEGIN(doc, "getLastErrorModes", &modes);
    bson_append_document_end(doc, &modes);
  });
  copy_or("getLastErrorDefaults", [&] {
    bson_t defaults;
    BSON_APPEND_DOCUMENT_BEGIN(doc, "getLastErrorDefaults", &defaults);
    BSON_APPEND_INT32(&defaults, "w", 1);
    BSON_APPEND_INT32(&defaults, "wtimeout", 0);
    bson_append_document_end(doc, &defaults);
  });
  copy_or("replicaSetId", [&] { BSON_APPEND_OID(doc, "replicaSetId", &replica_set_id); });
  return out;
}

}  // namespace

std::string NormalizeHostAndPort(std::string_view host) {
  // "[::1]:27017" and "host:port" keep their port; a bare name or address gets 27017.
  const bool bracketed = !host.empty() && host.front() == '[';
  const size_t colon = host.rfind(':');
  const bool has_port = colon != std::string_view::npos &&
                        (bracketed ? host.find(']') < colon : host.find(':') == colon);
  std::string out(host);
  if (!has_port) out += ":27017";
  return out;
}

Result<ReplSetConfig> ParseReplSetConfig(BsonView doc, std::string_view set_name,
                                         const bson_oid_t& replica_set_id) {
  ReplSetConfig config;
  bool has_id = false, has_members = false;
  BsonView settings;
  bson_iter_t it;
  doc.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "_id") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType("ReplSetConfig", key, &it, "string");
      config.set_name = std::string(IterUtf8(&it));
      has_id = true;
    } else if (key == "version") {
      Result<int64_t> version = WholeNumber("ReplSetConfig", &it);
      if (!version.ok()) return version.status();
      if (*version < 1 || *version > INT32_MAX) {
        return Invalid("version field value of " + std::to_string(*version) + " is out of range");
      }
      config.version = static_cast<int32_t>(*version);
    } else if (key == "term") {
      Result<int64_t> term = WholeNumber("ReplSetConfig", &it);
      if (!term.ok()) return term.status();
      config.term = *term;
    } else if (key == "protocolVersion") {
      Result<int64_t> protocol = WholeNumber("ReplSetConfig", &it);
      if (!protocol.ok()) return protocol.status();
      if (*protocol != 1) {
        return Invalid("protocolVersion field value of " + std::to_string(*protocol) +
                       " is not 1; only protocol version 1 is supported");
      }
    } else if (key == "writeConcernMajorityJournalDefault") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return WrongType("ReplSetConfig", key, &it, "bool");
      config.write_concern_majority_journal_default = bson_iter_bool(&it);
    } else if (key == "configsvr") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return WrongType("ReplSetConfig", key, &it, "bool");
      if (bson_iter_bool(&it)) {
        return Invalid(
            "Nodes being used for config servers must be started with the --configsvr flag");
      }
    } else if (key == "members") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) return WrongType("ReplSetConfig", key, &it, "array");
      BsonView members = IterDocument(&it);
      uint32_t count = members.CountKeys();
      if (count == 0) return Invalid("Replica set configuration must have at least one member");
      if (count > 1) {
        return Status(ErrorCode::kNodeNotFound,
                      "Cairn runs replica sets of one member, this server; the configuration "
                      "names " +
                          std::to_string(count) + " members");
      }
      bson_iter_t member_it;
      members.Init(&member_it);
      bson_iter_next(&member_it);
      if (!BSON_ITER_HOLDS_DOCUMENT(&member_it)) {
        return WrongType("ReplSetConfig", "members.0", &member_it, "object");
      }
      Result<ReplSetMemberConfig> member = ParseMember(IterDocument(&member_it));
      if (!member.ok()) return member.status();
      config.member = std::move(member).value();
      has_members = true;
    } else if (key == "settings") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType("ReplSetConfig", key, &it, "object");
      settings = IterDocument(&it);
    } else {
      return UnknownField("ReplSetConfig", key);
    }
  }
  if (!has_id) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'ReplSetConfig._id' is missing but a required field");
  }
  if (config.set_name != set_name) {
    return Invalid("Attempting to initiate a replica set with name " + config.set_name +
                   ", but command line reports " + std::string(set_name) + "; rejecting");
  }
  if (!has_members) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'ReplSetConfig.members' is missing but a required field");
  }
  if (config.member.arbiter_only || config.member.priority <= 0 || config.member.votes != 1) {
    return Invalid(
        "Replica set configuration must contain at least one non-arbiter member with priority > "
        "0 and one vote; its only member is not electable");
  }
  Result<BsonDoc> normalized = NormalizeSettings(settings, replica_set_id);
  if (!normalized.ok()) return normalized.status();
  config.settings = std::move(normalized).value();
  return config;
}

void ReplSetConfig::AppendTo(bson_t* out) const {
  AppendUtf8(out, "_id", set_name);
  BSON_APPEND_INT32(out, "version", version);
  BSON_APPEND_INT64(out, "term", term);
  bson_t members, entry;
  BSON_APPEND_ARRAY_BEGIN(out, "members", &members);
  BSON_APPEND_DOCUMENT_BEGIN(&members, "0", &entry);
  BSON_APPEND_INT32(&entry, "_id", member.id);
  AppendUtf8(&entry, "host", member.host);
  BSON_APPEND_BOOL(&entry, "arbiterOnly", member.arbiter_only);
  BSON_APPEND_BOOL(&entry, "buildIndexes", member.build_indexes);
  BSON_APPEND_BOOL(&entry, "hidden", member.hidden);
  if (member.priority == std::trunc(member.priority)) {
    BSON_APPEND_INT32(&entry, "priority", static_cast<int32_t>(member.priority));
  } else {
    BSON_APPEND_DOUBLE(&entry, "priority", member.priority);
  }
  const bson_t tags = member.tags.view().AsBson();
  BSON_APPEND_DOCUMENT(&entry, "tags", &tags);
  BSON_APPEND_INT64(&entry, "secondaryDelaySecs", member.secondary_delay_secs);
  BSON_APPEND_INT32(&entry, "votes", member.votes);
  bson_append_document_end(&members, &entry);
  bson_append_array_end(out, &members);
  BSON_APPEND_INT64(out, "protocolVersion", 1);
  BSON_APPEND_BOOL(out, "writeConcernMajorityJournalDefault",
                   write_concern_majority_journal_default);
  const bson_t settings_doc = settings.view().AsBson();
  BSON_APPEND_DOCUMENT(out, "settings", &settings_doc);
}

BsonDoc ReplSetConfig::ToBson() const {
  BsonDoc out;
  AppendTo(out.get());
  return out;
}

}  // namespace cairn::server
