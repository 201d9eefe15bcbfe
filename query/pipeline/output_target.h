// OutputTargets: what the writing stages ($out, $merge) write through. query/ knows no storage,
// so the server implements this interface (server/exec/output_targets.cc) and hands it to
// the pipeline in PipelineOptions; a pipeline parsed without one answers a precise error when a
// writing stage runs. The sinks are used by one cursor on one thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

// $out's target: documents go to a temporary collection; Finish() renames it over the target in
// one step (keeping the target's indexes and options, as MongoDB does). Destroying the sink
// without Finish() drops the temporary collection, leaving the target untouched.
class OutSink {
 public:
  virtual ~OutSink() = default;
  virtual Status Add(BsonView doc) = 0;
  virtual Status Finish() = 0;
};

// $merge's target. A document is found by its 'on' fields through an equality filter
// {path: value, ...} (one field per 'on' path, dotted names as written); OpenMerge has checked
// that a unique index covers exactly those paths, so at most one document matches.
class MergeSink {
 public:
  virtual ~MergeSink() = default;
  // The target document matching `on_filter`, copied into *existing; false when none.
  virtual Result<bool> Find(BsonView on_filter, BsonDoc* existing) = 0;
  // Inserts `doc` (DuplicateKey 11000 as an insert would answer).
  virtual Status Insert(BsonView doc) = 0;
  // Replaces the document the last successful Find returned by `doc` (same _id).
  virtual Status Replace(BsonView doc) = 0;
  // Makes every write visible (writes may be batched until then).
  virtual Status Finish() = 0;
};

class OutputTargets {
 public:
  virtual ~OutputTargets() = default;
  // The checks MongoDB makes when it parses $out / $merge (the target namespace; for $merge the
  // unique index its 'on' fields need), run by their parsers so that these errors come before
  // the pipeline runs, as MongoDB's do (no "PlanExecutor error" context). Default: none.
  virtual Status CheckOut(std::string_view /*db*/, std::string_view /*coll*/) {
    return Status::OK();
  }
  virtual Status CheckMerge(std::string_view /*db*/, std::string_view /*coll*/,
                            const std::vector<std::string>& /*on_fields*/) {
    return Status::OK();
  }
  virtual Result<std::unique_ptr<OutSink>> OpenOut(std::string_view db, std::string_view coll) = 0;
  // `on_fields`: the 'on' paths, sorted and distinct ({"_id"} by default). Fields other than
  // just _id need a unique index on exactly those fields (51183 "Cannot find index to verify
  // that join fields will be unique" otherwise, and when the target does not exist).
  virtual Result<std::unique_ptr<MergeSink>> OpenMerge(
      std::string_view db, std::string_view coll, const std::vector<std::string>& on_fields) = 0;
  // The database the aggregate runs in (the default of {db, coll} targets).
  virtual std::string_view default_db() const = 0;
};

}  // namespace cairn::query
