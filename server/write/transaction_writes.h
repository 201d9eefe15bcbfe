// TransactionWrites: what the write path needs of a multi-document transaction. A
// CollectionWriter opened with one reads through the transaction's snapshot (its own writes
// included), hands each statement's writes to it instead of committing them, logs the changes to
// the transaction's operations (its applyOps entry) instead of the oplog, and leaves the caches
// alone: the commit (server/txn/) writes everything at once and then forgets the changed records'
// cached copies.
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "server/write/oplog_sink.h"
#include "storage/transaction.h"

namespace cairn::server {

struct TransactionWrites {
  storage::Transaction* storage = nullptr;
  // Collects the transaction's operations (null when there is no oplog: never in practice, as
  // transactions need a replica set).
  OplogSink* ops = nullptr;
  // Records replaced or removed, whose cached copies the commit invalidates.
  std::vector<std::pair<storage::Prefix, storage::RecordId>> changed;
  // The collections written: the commit holds their write locks while it validates and writes.
  std::set<storage::Prefix> collections;
};

}  // namespace cairn::server
