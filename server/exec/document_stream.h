// DocumentStream: the pull interface of the server's query execution steps (collection scan,
// _id point lookup, index scan, sort, skip, limit). It is the pipeline's DocumentSource (so a
// stream feeds an aggregation pipeline directly), a PlanStage (plan_stage.h: its stage type and
// counters, which explain reads from the executed tree), plus what the write path and find need:
// the RecordId of the current document and the index entry it was read through. A stream belongs
// to one thread at a time (a cursor moves between threads between batches).
#pragma once

#include <string_view>

#include "index/key_pattern.h"
#include "query/pipeline/document_source.h"
#include "server/exec/plan_stage.h"
#include "storage/engine.h"

namespace cairn::server {

// The index entry a document was read through: the index's key pattern and the entry's key
// bytes (index/key_string.h, without the RecordId). Valid until the stream's next Next().
struct IndexKeyRef {
  const index::KeyPattern* pattern = nullptr;  // null: not read through an index
  std::string_view bytes;
};

class DocumentStream : public query::DocumentSource, public PlanStage {
 public:
  // A stream that is not one of MongoDB's plan stages (a pipeline's output, a wrapper).
  DocumentStream() : PlanStage(StageType::kNotExplained) {}
  explicit DocumentStream(StageType type) : PlanStage(type) {}

  // The RecordId of the current document (0 for documents a pipeline computed).
  virtual storage::RecordId record_id() const = 0;

  // The index entry the current document came from (returnKey); none by default.
  virtual IndexKeyRef index_key() const { return IndexKeyRef(); }

  // What this stream and its inputs read ($lookup's foreign-read statistics).
  int64_t docs_examined() const final { return TotalDocsExamined(*this); }
  int64_t keys_examined() const final { return TotalKeysExamined(*this); }
};

}  // namespace cairn::server
