// Helpers the blocking stages that replay their input share ($facet, $bucketAuto, $unionWith):
// a DocumentSource over documents already held in memory (served as views, no copy per read), and
// the size check of a document a stage builds (BSONObjectTooLarge, as MongoDB reports a result
// document it cannot serialize).
#pragma once

#include <string>
#include <vector>

#include "common/bson_doc.h"
#include "common/bson_validate.h"
#include "common/status.h"
#include "query/pipeline/document_source.h"

namespace cairn::query::stages {

// Serves `docs` in order; the viewed bytes must outlive the source.
class ViewSource final : public DocumentSource {
 public:
  ViewSource() = default;
  explicit ViewSource(std::vector<BsonView> docs) : docs_(std::move(docs)) {}

  bool Next() override { return ++next_ <= docs_.size(); }
  BsonView document() const override { return docs_[next_ - 1]; }

 private:
  std::vector<BsonView> docs_;
  size_t next_ = 0;
};

// OK while `doc` fits a result document (16 MiB + 16 KiB, mongod's BSONObjMaxInternalSize, the
// bound the message names); else mongod's BSONObjectTooLarge (10334).
inline Status CheckDocumentSize(const bson_t* doc) {
  if (doc->len <= static_cast<uint32_t>(kMaxInternalBsonObjectSize)) return Status::OK();
  return ObjectTooLarge(doc->len, bson_get_data(doc), doc->len);
}

// What a blocking stage that holds its whole input reports past PipelineOptions::max_memory_bytes
// (292, the Sorter's wording: $bucketAuto sorts its input; $facet buffers it).
inline Status MemoryLimitExceeded(int64_t max_memory_bytes) {
  return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                "Sort exceeded memory limit of " + std::to_string(max_memory_bytes) +
                    " bytes, but did not opt in to external sorting.");
}

}  // namespace cairn::query::stages
