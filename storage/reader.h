// Reader: what reads a collection's records and its indexes' entries, so a query runs the same
// against the latest committed state (Engine) or a transaction's snapshot with its own writes
// (Transaction). Every method is const and thread-safe on Engine; a Transaction's reads belong
// to the one command that runs in it at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "storage/catalog.h"

namespace cairn::storage {

// Positive, increasing per collection in insertion order; never reused within a collection.
using RecordId = int64_t;

// Forward iteration over one collection's documents in RecordId (= insertion) order, or reverse.
// Reads one consistent state, fixed when the cursor was made.
class RecordCursor {
 public:
  virtual ~RecordCursor() = default;
  // Advances to the next record; false at the end (or on error: check status()).
  virtual bool Next() = 0;
  virtual RecordId id() const = 0;
  // A view of the current document; valid until the next call to Next() or destruction.
  virtual BsonView value() const = 0;
  virtual Status status() const = 0;
};

// Iteration over one index's entries in key byte order within [start, end) (or the reverse).
class IndexCursor {
 public:
  virtual ~IndexCursor() = default;
  virtual bool Next() = 0;
  // Repositions within the cursor's range: forward, at the first entry with key >= target;
  // reverse, at the last entry with key < target. The next Next() returns that entry (false when
  // there is none), so one cursor (one state) can visit several key ranges in order.
  virtual void Seek(std::string_view target) = 0;
  // The entry's key without the index prefix, and its value; valid until Next().
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual Status status() const = 0;
};

class Reader {
 public:
  virtual ~Reader() = default;

  // The catalog the prefixes read belong to (collections and indexes are not transactional).
  virtual const Catalog& catalog() const = 0;

  // Reads one document. OK with *found=false when absent.
  virtual Status GetRecord(Prefix collection, RecordId id, std::string* out, bool* found) const = 0;
  // Reads one index entry's value by exact key (without prefix). OK with *found=false when absent.
  virtual Status GetIndexEntry(Prefix index, std::string_view key, std::string* value,
                               bool* found) const = 0;
  // Which of `keys` (without prefix) have an entry in the index, from one batched read.
  virtual Status IndexEntriesExist(Prefix index, const std::vector<std::string_view>& keys,
                                   std::vector<bool>* exist) const = 0;

  // Scans a collection's records with id > after (forward) or id < before (reverse; 0 = from
  // the end).
  std::unique_ptr<RecordCursor> ScanRecords(Prefix collection, RecordId after = 0) const {
    return NewRecordCursor(collection, after, /*reverse=*/false);
  }
  std::unique_ptr<RecordCursor> ScanRecordsReverse(Prefix collection, RecordId before = 0) const {
    return NewRecordCursor(collection, before, /*reverse=*/true);
  }
  // Scans an index's entries with start <= key < end (keys without prefix; empty end = to the
  // end of the index), or the same range from its last entry down to its first.
  std::unique_ptr<IndexCursor> ScanIndex(Prefix index, std::string_view start,
                                         std::string_view end) const {
    return NewIndexCursor(index, start, end, /*reverse=*/false);
  }
  std::unique_ptr<IndexCursor> ScanIndexReverse(Prefix index, std::string_view start,
                                                std::string_view end) const {
    return NewIndexCursor(index, start, end, /*reverse=*/true);
  }

 protected:
  // `from`: forward, the id after which to start (0: the first); reverse, the id before which.
  virtual std::unique_ptr<RecordCursor> NewRecordCursor(Prefix collection, RecordId from,
                                                        bool reverse) const = 0;
  virtual std::unique_ptr<IndexCursor> NewIndexCursor(Prefix index, std::string_view start,
                                                      std::string_view end, bool reverse) const = 0;
};

}  // namespace cairn::storage
