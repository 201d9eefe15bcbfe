// DocumentStream: the pull interface of the server's query execution steps (collection scan,
// _id point lookup, sort, skip/limit). It is the pipeline's DocumentSource (so a stream feeds
// an aggregation pipeline directly) plus what the write path needs: the RecordId of the current
// document. A stream belongs to one thread at a time (a cursor moves between threads between
// batches).
#pragma once

#include "query/pipeline/document_source.h"
#include "storage/engine.h"

namespace cairn::server {

class DocumentStream : public query::DocumentSource {
 public:
  // The RecordId of the current document (0 for documents a pipeline computed).
  virtual storage::RecordId record_id() const = 0;
};

}  // namespace cairn::server
