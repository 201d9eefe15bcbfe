// Helpers the blocking stages that replay their input share ($facet, $bucketAuto, $unionWith):
// a DocumentSource over documents already held in memory (served as views, no copy per read), and
// the 16 MiB check of a document a stage builds (BSONObjectTooLarge, as MongoDB reports a result
// document it cannot serialize).
#pragma once

#include <string>
#include <vector>

#include "common/bson_doc.h"
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

// OK while `doc` fits a user document (16 MiB); else MongoDB's BSONObjectTooLarge (10334).
inline Status CheckDocumentSize(const bson_t* doc) {
  if (doc->len <= static_cast<uint32_t>(kMaxBsonObjectSize)) return Status::OK();
  return Status(ErrorCode::kBSONObjectTooLarge,
                "BSONObj size: " + std::to_string(doc->len) +
                    " is invalid. Size must be between 0 and " +
                    std::to_string(kMaxBsonObjectSize) + "(16MB)");
}

// What a blocking stage that holds its whole input reports past PipelineOptions::max_memory_bytes
// (292, the Sorter's wording: $bucketAuto sorts its input; $facet buffers it).
inline Status MemoryLimitExceeded(int64_t max_memory_bytes) {
  return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                "Sort exceeded memory limit of " + std::to_string(max_memory_bytes) +
                    " bytes, but did not opt in to external sorting.");
}

}  // namespace cairn::query::stages
