// WriteConcern: the writeConcern argument a command may carry ({w, j, wtimeout, fsync}),
// checked as a standalone mongod checks it, and what acknowledging it takes: Cairn commits
// every write to RocksDB's WAL before replying (w: 1), and with j: true or fsync: true also
// syncs the WAL to disk before the reply.
#pragma once

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::server {

struct WriteConcern {
  bool sync = false;  // j: true or fsync: true
};

// The command's "writeConcern" field (null: absent, the defaults). Errors: TypeMismatch for a
// non-document or badly typed field, FailedToParse for a negative w, BadValue "cannot use 'w' > 1
// with a standalone", UnknownReplWriteConcern 79 for a named mode other than "majority".
Result<WriteConcern> ParseWriteConcern(const bson_iter_t* field);

}  // namespace cairn::server
