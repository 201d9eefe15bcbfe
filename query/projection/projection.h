// Projection: find's projection argument — inclusion or exclusion of top-level and dotted
// fields, the _id rules (included unless excluded), and MongoDB's errors on mixing inclusion and
// exclusion (31254 "Cannot do exclusion on field x in inclusion projection", 31253 the reverse).
// $slice, $elemMatch, positional `field.$` and expressions are added by the query issue.
// Immutable after Parse (which copies the spec); Apply() is thread-safe.
#pragma once

#include <memory>

#include "common/bson_doc.h"
#include "common/status.h"

namespace cairn::query {

class Projection {
 public:
  // Parses a projection spec ({} = return whole documents).
  static Result<Projection> Parse(BsonView spec);

  // True when Apply would return the document unchanged.
  bool IsIdentity() const;

  // Appends the projected fields of `doc` to `out` (an empty, initialised bson_t), preserving
  // the document's field order.
  void Apply(BsonView doc, bson_t* out) const;

  struct Node;  // the parsed tree (projection.cc)

 private:
  std::shared_ptr<const Node> root_;
  bool identity_ = true;
};

}  // namespace cairn::query
