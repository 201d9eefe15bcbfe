// Stage: the internal shape every aggregation stage shares (one file per stage under stages/):
// a parsed, immutable plan node with its name, an optional rewrite of its neighbours
// (OptimizeAt, MongoDB's optimizeAt), and Bind(), which builds the stage's executor — the
// per-cursor state, private to the stage's .cc — over a child DocumentSource.
// Not part of the public API (pipeline.h is); the server never includes this header.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bson/bson.h>

#include "common/status.h"
#include "query/pipeline/document_source.h"
#include "query/pipeline/pipeline.h"

namespace cairn::query {

class Matcher;
class Stage;

using StagePtr = std::shared_ptr<const Stage>;
using StageList = std::vector<StagePtr>;

// Parses the argument of one stage (`spec` is positioned on the stage document's only field).
using StageParser = Result<StagePtr> (*)(const bson_iter_t* spec, const PipelineOptions& options);

// Immutable after parsing; shared by every cursor of the pipeline; thread-safe.
class Stage {
 public:
  virtual ~Stage() = default;

  // MongoDB's stage name, e.g. "$limit".
  virtual std::string_view name() const = 0;

  // Rewrites the pipeline around this stage, which is (*stages)[index]: may replace it or remove
  // its successors. Returns the index to continue optimising from (index + 1 when nothing
  // changed; a stage that replaces itself must not rewrite its replacement forever).
  virtual size_t OptimizeAt(size_t index, StageList* stages) const { return index + 1; }

  // Builds this stage's executor pulling from `child`. The Stage must outlive the executor.
  virtual std::unique_ptr<DocumentSource> Bind(std::unique_ptr<DocumentSource> child) const = 0;

  // Whether this is a source stage: it ignores its input and generates its own documents
  // ($documents, $collStats, $currentOp, $listLocalSessions); valid only first (40602).
  virtual bool is_source() const { return false; }

  // What neighbours' OptimizeAt need to know: the count of a $limit / $skip, the filter of a
  // $match.
  virtual std::optional<int64_t> limit_count() const { return std::nullopt; }
  virtual std::optional<int64_t> skip_count() const { return std::nullopt; }
  virtual const Matcher* matcher() const { return nullptr; }
};

// Base of executors with one child: status() is this stage's error, else the child's.
class ChildSource : public DocumentSource {
 public:
  Status status() const override { return status_.ok() ? child_->status() : status_; }

 protected:
  explicit ChildSource(std::unique_ptr<DocumentSource> child) : child_(std::move(child)) {}

  // Records `status` as this stage's error and ends the stream.
  bool Fail(Status status) {
    status_ = std::move(status);
    return false;
  }

  std::unique_ptr<DocumentSource> child_;
  Status status_;
};

// The stage argument's value as MongoDB's BSONElement::toString(true, true) renders it in
// messages: `<name>: <value>`, e.g. `$limit: "x"`, `$skip: 1.5`.
std::string RenderElement(const bson_iter_t* it);

// The argument rule of $skip and $limit (BSONElement::parseIntegerElementToNonNegativeLong): a
// number that is an integer in int64 range and not negative. On failure the Status is
// FailedToParse with the reason MongoDB appends after "invalid argument to $x stage: ".
Result<int64_t> ParseNonNegativeInteger(const bson_iter_t* spec);

}  // namespace cairn::query
