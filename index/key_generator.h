// KeyGenerator: a document → the set of its keys in one index, one generator per index kind
// (btree today; text and others join as their own generators). The btree generator follows
// MongoDB's BtreeKeyGenerator: a missing field keys as null, an array keys once per distinct
// element (an empty array as undefined), arrays of documents are traversed by dotted paths,
// fields of a compound key that share an array prefix take their values from the same element,
// and two fields reaching two different arrays are CannotIndexParallelArrays 171 ("cannot index
// parallel arrays [b] [a]"). A sparse index has no key for a document missing every field.
// Keys are key_string bytes (index/README.md), without the RecordId storage appends.
// Generators are immutable; GetKeys is thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/bson_doc.h"
#include "common/status.h"
#include "index/key_pattern.h"

namespace cairn::index {

// Per key field, which components of its path held an array (bit i = component i; components
// past 63 fold onto bit 63). All zero: the index is not multikey. MongoDB's MultikeyPaths.
using MultikeyPaths = std::vector<uint64_t>;

// True when any field has an array component.
bool IsMultikey(const MultikeyPaths& paths);

// A document's keys in one index: sorted, distinct byte strings.
using KeySet = std::vector<std::string>;

class KeyGenerator {
 public:
  virtual ~KeyGenerator() = default;
  // Replaces *keys with the document's keys (none for a sparse index when every field is
  // missing) and ORs the array components met into *multikey (sized to the pattern's fields).
  virtual Status GetKeys(BsonView doc, KeySet* keys, MultikeyPaths* multikey) const = 0;
};

// The btree generator for `pattern` (which must be kBtree).
std::unique_ptr<KeyGenerator> MakeBtreeKeyGenerator(const KeyPattern& pattern, bool sparse);

}  // namespace cairn::index
