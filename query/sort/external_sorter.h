// ExternalSorter: sorts (key, value) records within a memory budget, spilling to disk past it —
// the facility behind $sort and $group with allowDiskUse (MongoDB's Sorter). The key is a BSON
// document ordered by the caller's comparator; the value is opaque bytes carried along. Records
// are packed into one arena (no allocation per record); past the budget the arena is sorted and
// appended to a temporary file as one run, and at the end the runs are merged back by a k-way
// merge that reads each run through a small buffer, so memory stays bounded however many records
// came in. The sort is stable: records with equal keys come out in the order they were added.
//
// The run file lives under the directory the server passes (MongoDB's <dbpath>/_tmp), named
// "extsort-<pid>-<n>" like the find sort's runs, and is removed when the sorter is destroyed —
// when the stage, hence the cursor, ends, is killed or its client disconnects. Knows nothing of
// RocksDB. Per-cursor state; not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/limits.h"
#include "common/status.h"

namespace cairn::query {

struct ExternalSorterOptions {
  // Bytes of records held in memory before a run is spilled.
  int64_t max_memory_bytes = kDefaultStageMemoryBytes;
  // allowDiskUse: false makes exceeding the budget an error instead of a spill.
  bool allow_disk_use = true;
  // Where the run file goes; created when missing. Empty: the system's temporary directory.
  std::string spill_dir;
  // The QueryExceededMemoryLimitNoDiskUseAllowed (292) message when disk use is not allowed (each
  // stage has MongoDB's own wording).
  std::string no_disk_use_message;
};

class ExternalSorter {
 public:
  // <0, 0, >0 as key a sorts before, equal to, after key b.
  using KeyCompare = std::function<int(BsonView a, BsonView b)>;

  ExternalSorter(KeyCompare compare, ExternalSorterOptions options);
  ~ExternalSorter();  // removes the run file
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  // Adds a record (copied). Past the budget: spills a run, or 292 without disk use; or an
  // InternalError when the run file cannot be written.
  Status Add(BsonView key, std::string_view value);

  // Ends the input and sorts; then Next() walks the records in key order.
  Status Sort();

  // Moves to the next record; false at the end or on a read error (status()).
  bool Next();
  // The current record; valid until the next Next().
  BsonView key() const { return current_key_; }
  std::string_view value() const { return current_value_; }
  Status status() const { return status_; }

  // The comparator's verdict on two keys (for callers grouping equal keys).
  int CompareKeys(BsonView a, BsonView b) const { return compare_(a, b); }

  // Runs written to disk (explain's `spills`); > 0 means the sort used disk.
  int64_t spills() const { return static_cast<int64_t>(runs_.size()); }
  // Bytes of records in memory now.
  int64_t memory_bytes() const { return memory_; }

 private:
  struct Run {
    uint64_t begin = 0;  // byte range in the file
    uint64_t end = 0;
  };
  class RunReader;

  Status Spill();
  Status OpenFile();
  void SortInMemory();
  // The record at arena offset `offset`.
  BsonView KeyAt(uint64_t offset) const;
  std::string_view ValueAt(uint64_t offset) const;
  bool NextMerged();

  KeyCompare compare_;
  ExternalSorterOptions options_;
  std::string arena_;              // records: [BSON key][uint32 value size][value bytes]
  std::vector<uint64_t> records_;  // arena offsets, in insertion order until sorted
  int64_t memory_ = 0;
  bool sorted_ = false;
  size_t position_ = 0;  // in-memory iteration (no runs): the next record to return
  std::string path_;
  int fd_ = -1;
  uint64_t file_size_ = 0;
  std::vector<Run> runs_;
  std::vector<RunReader> readers_;
  std::vector<size_t> heap_;       // reader indexes, smallest current key on top
  size_t last_reader_ = SIZE_MAX;  // the reader the current record came from
  BsonView current_key_;
  std::string_view current_value_;
  Status status_;
};

}  // namespace cairn::query
