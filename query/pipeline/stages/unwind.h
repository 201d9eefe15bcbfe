// What $unwind's neighbours need to know of it: $lookup absorbs a following $unwind of its `as`
// field (lookup.cc) and then unwinds each foreign match itself, with the same options
// (lookup_join.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/bson_doc.h"
#include "query/pipeline/stage.h"

namespace cairn::query::stages {

struct UnwindSpec {
  std::string path;                      // dotted, without the '$'
  std::vector<std::string> path_parts;   // path split
  std::vector<std::string> index_parts;  // includeArrayIndex split; empty: none
  bool preserve_null_and_empty = false;
};

// The spec of `stage` when it is an $unwind; nullptr otherwise.
const UnwindSpec* AsUnwind(const Stage& stage);

// Writes `doc` with the unwind path set to `element` (index `index`), or — when `element` is
// null — the preserved form (path left as is, or removed when it held an empty array; index null).
void WriteUnwound(const UnwindSpec& spec, BsonView doc, const bson_iter_t* element,
                  std::optional<int64_t> index, bool remove_path, bson_t* out);

}  // namespace cairn::query::stages
