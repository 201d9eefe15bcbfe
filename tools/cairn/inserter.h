// Batched inserts into one collection, shared by restore and import: documents are sent in
// batches of 1000 or 16 MB (whichever comes first) through libmongoc's bulk API, which splits
// them further if the server's limits are smaller. Each failed document is reported on stderr
// by its position ("line 7: E11000 duplicate key ..."); with `stop_on_error` the batches are
// ordered and the first failure ends the run.
#pragma once

#include <mongoc/mongoc.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "tools/cairn/progress.h"

namespace cairn::tools {

class Inserter {
 public:
  // `position_name` says what the positions given to Add count ("line", "document");
  // `report_limit` caps the failures printed (a restore re-run over existing data would print
  // a duplicate key per document); the rest are counted.
  Inserter(mongoc_client_t* client, const std::string& db, const std::string& collection,
           bool stop_on_error, std::string position_name, Progress* progress,
           int64_t report_limit = INT64_MAX);
  ~Inserter();
  Inserter(const Inserter&) = delete;
  Inserter& operator=(const Inserter&) = delete;

  // Queues a document (copied); an error only when the run must stop (a failure with
  // stop_on_error, or the server unreachable).
  Status Add(const uint8_t* data, size_t length, int64_t position);
  Status Flush();

  // Counts a document that failed before reaching the server (a parse error).
  void CountFailure() { ++failed_; }
  int64_t inserted() const { return inserted_; }
  int64_t failed() const { return failed_; }
  // Failures other than duplicate keys (mongorestore treats those as expected on a re-run).
  int64_t hard_failures() const { return hard_failed_; }

 private:
  mongoc_collection_t* collection_;
  bool stop_on_error_;
  std::string position_name_;
  Progress* progress_;
  std::vector<uint8_t> buffer_;  // the batch's documents, back to back
  std::vector<size_t> offsets_;
  std::vector<int64_t> positions_;
  int64_t inserted_ = 0;
  int64_t failed_ = 0;
  int64_t hard_failed_ = 0;
  int64_t report_limit_;
};

}  // namespace cairn::tools
