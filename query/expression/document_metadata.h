// DocumentMetadata: what MongoDB keeps beside a document as it flows through a query — today
// only its $text score ({$meta: "textScore"}). Every pipeline DocumentSource is one (a stage
// answers for its current document); an expression reads it through Variables::metadata(), so
// documents carry no extra field and pipelines that never ask pay nothing. Lives in expression/
// because the evaluator reads it and expression/ must not depend on pipeline/.
#pragma once

#include <optional>

#include "common/status.h"

namespace cairn::query {

class DocumentMetadata {
 public:
  virtual ~DocumentMetadata() = default;

  // The current document's textScore: set by a leading $text search and kept by the stages that
  // pass documents through or reshape them one to one; nullopt for documents that never had one
  // (no $text) or were made anew ($group, $bucket, $facet, ...).
  virtual std::optional<double> text_score() const { return std::nullopt; }
};

// What reading a textScore no $text search gave answers (MongoDB's DepsTracker, 40218).
inline Status TextScoreNotAvailable() {
  return Status(ErrorCode::kLocation40218,
                "query requires text score metadata, but it is not available");
}

}  // namespace cairn::query
