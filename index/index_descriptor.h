// IndexDescriptor: one index as the write path and the planner see it: its name, key pattern and
// options (unique, sparse, hidden, partialFilterExpression, expireAfterSeconds) parsed from the
// spec listIndexes prints, and the key generator of its kind. Also IndexState, the small document
// kept beside each spec in the catalog (build finished? which paths are multikey?).
// Immutable; thread-safe; shared by every writer and query that uses the collection's indexes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/bson_doc.h"
#include "common/status.h"
#include "index/key_generator.h"
#include "index/key_pattern.h"
#include "query/matcher/matcher.h"

namespace cairn::index {

class IndexDescriptor {
 public:
  // Compiles a stored spec ({v, key, name, unique, sparse, hidden, partialFilterExpression,
  // expireAfterSeconds, ...}). CannotCreateIndex for a kind without a key generator yet.
  static Result<std::shared_ptr<const IndexDescriptor>> Make(BsonView spec);

  const std::string& name() const { return name_; }
  const KeyPattern& key_pattern() const { return pattern_; }
  size_t num_fields() const { return pattern_.fields().size(); }
  bool unique() const { return unique_; }
  bool sparse() const { return sparse_; }
  bool hidden() const { return hidden_; }
  bool is_id_index() const { return id_index_; }
  int version() const { return version_; }
  // The partial filter, or null for an index of every document.
  const query::Matcher* partial_filter() const { return partial_filter_.get(); }
  std::optional<int64_t> expire_after_seconds() const { return expire_after_seconds_; }
  // The spec as stored (listIndexes).
  BsonView spec() const {
    return BsonView(reinterpret_cast<const uint8_t*>(spec_.data()), spec_.size());
  }

  // The document's keys in this index: none when the partial filter rejects the document or a
  // sparse index finds none of its fields. See KeyGenerator::GetKeys.
  Status GetKeys(BsonView doc, KeySet* keys, MultikeyPaths* multikey) const;

 private:
  IndexDescriptor() = default;

  std::string spec_;
  std::string name_;
  KeyPattern pattern_;
  bool unique_ = false;
  bool sparse_ = false;
  bool hidden_ = false;
  bool id_index_ = false;
  int version_ = 2;
  std::shared_ptr<const query::Matcher> partial_filter_;
  std::optional<int64_t> expire_after_seconds_;
  std::unique_ptr<KeyGenerator> generator_;
};

// What the catalog keeps beside an index's spec (storage stores it as an opaque document):
//   {ready: bool, multikey: [int64 per key field]}   — DO NOT RENAME: on disk
// A missing document (the _id index, entries written before indexes existed) reads as ready and
// not multikey.
struct IndexState {
  bool ready = true;       // false while createIndexes is still building the index
  MultikeyPaths multikey;  // per key field, the array components ever met (never cleared)
};

BsonDoc EncodeIndexState(const IndexState& state);
IndexState DecodeIndexState(BsonView doc, size_t num_fields);

}  // namespace cairn::index
