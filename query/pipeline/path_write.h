// Writing a document with the value at one dotted path replaced, as MongoDB's
// MutableDocument::setNestedField does for the stages that reshape one field ($unwind's element
// and index, $lookup's `as` array): the field keeps its position when it exists, is appended
// when new, and a missing or non-document value on the way becomes a new embedded document.
// Arrays on the way are replaced too (these stages never descend into arrays). Header-only so
// the value writer inlines: no per-document allocation beyond the output buffer.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <bson/bson.h>

#include "common/bson_doc.h"

namespace cairn::query {

// Appends to `out` the fields of `doc` with the field at `path` (components, non-empty) set by
// `write(bson_t* parent, std::string_view key)`, which appends exactly one element.
template <typename Write>
void WriteWithPathSet(BsonView doc, std::span<const std::string> path, bson_t* out,
                      const Write& write) {
  const std::string& head = path.front();
  bool written = false;
  bson_iter_t it;
  if (doc.Init(&it)) {
    while (bson_iter_next(&it)) {
      std::string_view key = IterKey(&it);
      if (key != head || written) {
        AppendIter(out, key, &it);
        continue;
      }
      written = true;
      if (path.size() == 1) {
        write(out, key);
        continue;
      }
      bson_t child;
      bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &child);
      BsonView inner = BSON_ITER_HOLDS_DOCUMENT(&it) ? IterDocument(&it) : BsonView();
      WriteWithPathSet(inner, path.subspan(1), &child, write);
      bson_append_document_end(out, &child);
    }
  }
  if (written) return;
  if (path.size() == 1) {
    write(out, head);
    return;
  }
  bson_t child;
  bson_append_document_begin(out, head.data(), static_cast<int>(head.size()), &child);
  WriteWithPathSet(BsonView(), path.subspan(1), &child, write);
  bson_append_document_end(out, &child);
}

// Appends to `out` the fields of `doc` without the field at `path` (through embedded documents;
// anything else on the way is copied unchanged).
inline void WriteWithPathRemoved(BsonView doc, std::span<const std::string> path, bson_t* out) {
  bson_iter_t it;
  if (!doc.Init(&it)) return;
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key != path.front()) {
      AppendIter(out, key, &it);
    } else if (path.size() > 1 && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_t child;
      bson_append_document_begin(out, key.data(), static_cast<int>(key.size()), &child);
      WriteWithPathRemoved(IterDocument(&it), path.subspan(1), &child);
      bson_append_document_end(out, &child);
    } else if (path.size() > 1) {
      AppendIter(out, key, &it);
    }
  }
}

// Finds the value at `path` through embedded documents only (MongoDB's Document::getNestedField:
// an array on the way means missing). False when missing.
inline bool FindPathNoArrays(BsonView doc, std::span<const std::string> path, bson_iter_t* out) {
  BsonView current = doc;
  for (size_t i = 0; i < path.size(); ++i) {
    if (!current.Find(path[i], out)) return false;
    if (i + 1 == path.size()) return true;
    if (!BSON_ITER_HOLDS_DOCUMENT(out)) return false;
    current = IterDocument(out);
  }
  return false;
}

}  // namespace cairn::query
