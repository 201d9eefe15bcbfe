// DocumentSource: the pull interface every pipeline stage's executor implements, and the
// interface of the collection reader (server/) a pipeline starts from. Owns nothing else: stage
// parsing is stage.h / stage_registry.h, the whole pipeline is pipeline.h.
#pragma once

#include <cstdint>

#include "common/bson_doc.h"
#include "common/status.h"
#include "query/expression/document_metadata.h"

namespace cairn::query {

// A stream of documents pulled one at a time. Not thread-safe: one cursor drives it. An
// executor built by Pipeline::Bind owns its input and must not outlive the Pipeline. As a
// DocumentMetadata it answers text_score() for its current document (default: none).
class DocumentSource : public DocumentMetadata {
 public:
  virtual ~DocumentSource() = default;

  // Advances to the next document; false at the end or on error (then status() says which).
  virtual bool Next() = 0;

  // The current document; valid until the next call to Next().
  virtual BsonView document() const = 0;

  // OK, or the error that ended the stream (this stage's or one from upstream).
  virtual Status status() const { return Status::OK(); }

  // Stored documents and index keys read so far (explain), for a stream over a collection.
  virtual int64_t docs_examined() const { return 0; }
  virtual int64_t keys_examined() const { return 0; }
};

}  // namespace cairn::query
