// OutputTargets: what the writing stages ($out, $merge) write through. query/ knows no storage,
// so the server implements this interface (server/commands/aggregate_output.cc) and hands it to
// the pipeline in PipelineOptions; a pipeline parsed without one answers a precise error when a
// writing stage runs. The sinks are used by one cursor on one thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>

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

// $merge's target, matched on _id (other 'on' fields need a unique index, refused at Open).
class MergeSink {
 public:
  virtual ~MergeSink() = default;
  // The target document whose _id equals `id`'s value, copied into *existing; false when none.
  virtual Result<bool> FindById(const bson_iter_t* id, BsonDoc* existing) = 0;
  // Inserts `doc` (DuplicateKey 11000 as an insert would answer).
  virtual Status Insert(BsonView doc) = 0;
  // Replaces the target document with `doc`'s _id by `doc`.
  virtual Status Replace(BsonView doc) = 0;
  // Makes every write visible (writes may be batched until then).
  virtual Status Finish() = 0;
};

class OutputTargets {
 public:
  virtual ~OutputTargets() = default;
  virtual Result<std::unique_ptr<OutSink>> OpenOut(std::string_view db, std::string_view coll) = 0;
  // `on_id_only`: false when 'on' names fields other than just _id.
  virtual Result<std::unique_ptr<MergeSink>> OpenMerge(std::string_view db, std::string_view coll,
                                                      bool on_id_only) = 0;
  // The database the aggregate runs in (the default of {db, coll} targets).
  virtual std::string_view default_db() const = 0;
};

}  // namespace cairn::query
