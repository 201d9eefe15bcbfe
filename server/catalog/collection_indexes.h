// CollectionIndexes: a collection's indexes compiled for the write path and the planner (each
// catalog entry's IndexDescriptor — key generator, partial filter — with its key prefix and
// state), cached per immutable catalog handle so commands compile specs only after the catalog
// changed. Also the layout of index entries in storage (index/README.md "Entries"): a unique
// index keys an entry by the key bytes and stores the RecordId as its value; any other index
// appends the RecordId to the key (so equal keys of different documents coexist) and stores
// nothing. The _id index is a unique index in this layout.
// Thread-safe: compiled views are immutable and shared; the cache has its own mutex.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/index_descriptor.h"
#include "storage/engine.h"

namespace cairn::server {

// One index of a collection, compiled.
struct IndexHandle {
  std::string name;
  storage::Prefix prefix = 0;
  std::shared_ptr<const index::IndexDescriptor> descriptor;
  index::IndexState state;  // ready? multikey paths as of the catalog handle
};

class CollectionIndexes {
 public:
  const storage::CollectionHandle& collection() const { return collection_; }
  // In catalog order; [0] is the _id index. Indexes still being built are included (ready=false).
  const std::vector<IndexHandle>& all() const { return indexes_; }
  // The position of the index named `name`, or -1.
  int Find(std::string_view name) const;

 private:
  friend Result<std::shared_ptr<const CollectionIndexes>> IndexesOf(
      const storage::CollectionHandle& collection);
  storage::CollectionHandle collection_;
  std::vector<IndexHandle> indexes_;
};

// The compiled indexes of `collection` (compiled once per catalog handle, then shared).
// CannotCreateIndex if a stored spec does not compile (a kind this build cannot maintain).
Result<std::shared_ptr<const CollectionIndexes>> IndexesOf(
    const storage::CollectionHandle& collection);

// ---- entry layout ----

// The storage key of `key` for record `id` in an index (unique: the key; else key + RecordId).
std::string IndexEntryKey(bool unique, std::string_view key, storage::RecordId id);
// The storage value of an entry (unique: the RecordId; else empty).
std::string IndexEntryValue(bool unique, storage::RecordId id);
// The RecordId an entry points at.
storage::RecordId IndexEntryRecordId(bool unique, std::string_view entry_key,
                                     std::string_view value);
// The key bytes of an entry (without the RecordId suffix of a non-unique entry).
std::string_view IndexEntryKeyBytes(bool unique, std::string_view entry_key);

// Builds the DuplicateKey status MongoDB answers: "E11000 duplicate key error collection:
// <ns> index: <name> dup key: { <field>: <value> }" with keyPattern and keyValue.
Status DuplicateKeyError(std::string_view ns, std::string_view index_name, BsonView key_pattern,
                         BsonView key_value);
// The DuplicateKey error of `key` in `index` (E11000 with keyPattern and keyValue, the key's
// values under the pattern's field names).
Status IndexDuplicateKeyError(std::string_view ns, const index::IndexDescriptor& index,
                              std::string_view key);

}  // namespace cairn::server
