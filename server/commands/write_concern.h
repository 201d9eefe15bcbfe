// WriteConcern: the writeConcern argument a command may carry ({w, j, wtimeout, fsync}),
// checked as mongod checks it (a standalone's rules, or a replica set member's), and what
// acknowledging it takes: Cairn commits every write to RocksDB's WAL before replying (w: 1), and
// with j: true or fsync: true also syncs the WAL to disk before the reply.
#pragma once

#include <string_view>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::server {

struct WriteConcern {
  bool sync = false;        // j: true or fsync: true
  int32_t w_nodes = 1;      // a numeric w (a replica set member: up to 50); 1 for "majority"
  int64_t wtimeout_ms = 0;  // wtimeout
  // What the document gave, as mongod's WriteConcernOptions records it: a cluster-wide default
  // (setDefaultRWConcern) replaces a concern that gave nothing (default_constructed) and lends
  // its w to one that gave j, fsync or a wtimeout without w.
  bool w_given = false;
  bool j_given = false, fsync_given = false;
  bool provenance_given = false;
  // errInfo.writeConcern.provenance of a writeConcernError: "clientSupplied", or
  // "customDefault" once the cluster-wide default applied.
  std::string_view provenance = "clientSupplied";

  // Absent, {} or nothing but wtimeout: 0 (mongod's usedDefaultConstructedWC).
  bool default_constructed() const {
    return !w_given && !j_given && !fsync_given && wtimeout_ms == 0;
  }
};

// The command's "writeConcern" field (null: absent, the defaults). Errors: TypeMismatch for a
// non-document or badly typed field, FailedToParse for a negative w, BadValue "cannot use 'w' > 1
// with a standalone", UnknownReplWriteConcern 79 for a named mode other than "majority".
// On a replica set member (`replica_set`) a numeric w up to 50 is accepted: the caller reports one
// it cannot satisfy after the write, as mongod does.
Result<WriteConcern> ParseWriteConcern(const bson_iter_t* field, bool replica_set = false);

}  // namespace cairn::server
