// Compiled collection indexes (cached per catalog handle) and the index entry layout.
#include "server/collection_indexes.h"

#include <mutex>
#include <unordered_map>

#include "index/key_string.h"
#include "server/collection_writer.h"

namespace cairn::server {

namespace {

// Compiled views by catalog handle. A handle is immutable, so its compiled view never goes
// stale; entries of handles nobody holds any more are pruned as the map grows.
struct Cache {
  struct Slot {
    std::weak_ptr<const storage::CollectionEntry> handle;
    std::shared_ptr<const CollectionIndexes> compiled;
  };
  std::mutex mu;
  std::unordered_map<const storage::CollectionEntry*, Slot> slots;  // GUARDED_BY(mu)
  size_t prune_at = 64;                                            // GUARDED_BY(mu)
};

Cache& TheCache() {
  static Cache* cache = new Cache();  // never destroyed: used until exit
  return *cache;
}

}  // namespace

int CollectionIndexes::Find(std::string_view name) const {
  for (size_t i = 0; i < indexes_.size(); ++i) {
    if (indexes_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Result<std::shared_ptr<const CollectionIndexes>> IndexesOf(
    const storage::CollectionHandle& collection) {
  Cache& cache = TheCache();
  {
    std::lock_guard lock(cache.mu);
    auto it = cache.slots.find(collection.get());
    if (it != cache.slots.end() && it->second.handle.lock() == collection) {
      return it->second.compiled;
    }
  }
  auto compiled = std::make_shared<CollectionIndexes>();
  compiled->collection_ = collection;
  for (const storage::IndexEntry& entry : collection->indexes) {
    CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const index::IndexDescriptor> descriptor,
                           index::IndexDescriptor::Make(entry.spec.view()));
    IndexHandle handle;
    handle.name = entry.name;
    handle.prefix = entry.prefix;
    handle.state = index::DecodeIndexState(entry.state.view(), descriptor->num_fields());
    handle.descriptor = std::move(descriptor);
    compiled->indexes_.push_back(std::move(handle));
  }
  std::shared_ptr<const CollectionIndexes> result = compiled;
  std::lock_guard lock(cache.mu);
  if (cache.slots.size() >= cache.prune_at) {
    for (auto it = cache.slots.begin(); it != cache.slots.end();) {
      it = it->second.handle.expired() ? cache.slots.erase(it) : std::next(it);
    }
    cache.prune_at = std::max<size_t>(64, cache.slots.size() * 2);
  }
  cache.slots[collection.get()] = {collection, result};
  return result;
}

std::string IndexEntryKey(bool unique, std::string_view key, storage::RecordId id) {
  std::string out(key);
  if (!unique) out += storage::EncodeRecordId(id);
  return out;
}

std::string IndexEntryValue(bool unique, storage::RecordId id) {
  return unique ? storage::EncodeRecordId(id) : std::string();
}

storage::RecordId IndexEntryRecordId(bool unique, std::string_view entry_key,
                                     std::string_view value) {
  if (unique) return storage::DecodeRecordId(value);
  if (entry_key.size() < 8) return 0;
  return storage::DecodeRecordId(entry_key.substr(entry_key.size() - 8));
}

std::string_view IndexEntryKeyBytes(bool unique, std::string_view entry_key) {
  if (unique || entry_key.size() < 8) return entry_key;
  return entry_key.substr(0, entry_key.size() - 8);
}

Status IndexDuplicateKeyError(std::string_view ns, const index::IndexDescriptor& index,
                              std::string_view key) {
  BsonDoc key_value;
  Result<BsonDoc> decoded = index::DecodeKey(key, index.key_pattern().descending());
  if (decoded.ok()) {
    bson_iter_t it;
    decoded->view().Init(&it);
    for (const index::KeyField& field : index.key_pattern().fields()) {
      if (!bson_iter_next(&it)) break;
      AppendIter(key_value.get(), field.path, &it);
    }
  }
  return DuplicateKeyError(ns, index.name(), index.key_pattern().pattern(), key_value.view());
}

}  // namespace cairn::server
