// TransactionWrites: what the write path needs of a multi-document transaction. A
// CollectionWriter opened with one reads through the transaction's snapshot (its own writes
// included), hands each statement's writes to it instead of committing them, logs the changes to
// the transaction's operations (its applyOps entry) instead of the oplog, and leaves the caches
// alone: the commit (server/txn/) writes everything at once and then forgets the changed records'
// cached copies.
#pragma once

#include <map>
#include <set>
#include <string>
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
  // The collections written, with their namespace and index prefixes when the transaction wrote
  // them: the commit holds their write locks while it validates and writes, and fails with
  // WriteConflict when one was dropped or its indexes changed meanwhile (its entries would be
  // missing from a new index).
  struct Written {
    std::string ns;
    std::vector<storage::Prefix> indexes;
  };
  std::map<storage::Prefix, Written> collections;
  // Collections this transaction created (an index may be created on one still empty).
  std::set<storage::Prefix> created;
};

}  // namespace cairn::server
