// ReplSetConfig: a replica set configuration as replSetInitiate and replSetReconfig take it and
// rs.conf() shows it (MongoDB's ReplSetConfig/MemberConfig fields, defaults filled in). Cairn
// runs sets of exactly one member, this server: a configuration naming other members is refused
// (NodeNotFound 74, as mongod answers when the members it names do not answer its quorum check).
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::server {

struct ReplSetMemberConfig {
  int32_t id = 0;
  std::string host;  // "host:port", the port filled in (27017 by default)
  double priority = 1;
  int32_t votes = 1;
  bool arbiter_only = false;
  bool hidden = false;
  bool build_indexes = true;
  int64_t secondary_delay_secs = 0;
  BsonDoc tags;
};

struct ReplSetConfig {
  std::string set_name;  // _id
  int32_t version = 1;
  int64_t term = 1;
  ReplSetMemberConfig member;
  bool write_concern_majority_journal_default = true;
  // settings, every field rs.conf() shows filled in (replicaSetId included).
  BsonDoc settings;

  // As rs.conf() prints it.
  void AppendTo(bson_t* out) const;
  BsonDoc ToBson() const;
};

// Parses `doc`, a configuration for the set `set_name` (the --replSet name). Errors, with
// mongod's codes: InvalidReplicaSetConfig 93 (wrong _id, no or bad members, an unelectable sole
// member), TypeMismatch 14 (a field of the wrong type), Location40415 (an unknown field),
// NodeNotFound 74 (more than one member). A missing version is 1; `replica_set_id` becomes
// settings.replicaSetId unless the document names one.
Result<ReplSetConfig> ParseReplSetConfig(BsonView doc, std::string_view set_name,
                                         const bson_oid_t& replica_set_id);

// "host" or "host:port" with the port filled in ("localhost" → "localhost:27017").
std::string NormalizeHostAndPort(std::string_view host);

}  // namespace cairn::server
