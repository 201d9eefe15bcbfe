// Compiled collection indexes (cached per catalog handle) and the index entry layout.
#include "server/catalog/collection_indexes.h"

#include <mutex>
#include <unordered_map>

#include "index/key_string.h"
#include "server/catalog/handle_cache.h"

namespace cairn::server {

namespace {

PerHandleCache<CollectionIndexes>& TheCache() {
  static auto* cache = new PerHandleCache<CollectionIndexes>();  // never destroyed: used until exit
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
  return TheCache().Get(
      collection,
      [](const storage::CollectionHandle& handle)
          -> Result<std::shared_ptr<const CollectionIndexes>> {
        auto compiled = std::make_shared<CollectionIndexes>();
        compiled->collection_ = handle;
        for (const storage::IndexEntry& entry : handle->indexes) {
          CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const index::IndexDescriptor> descriptor,
                                 index::IndexDescriptor::Make(entry.spec.view()));
          IndexHandle index;
          index.name = entry.name;
          index.prefix = entry.prefix;
          index.state = index::DecodeIndexState(entry.state.view(), descriptor->num_fields());
          index.descriptor = std::move(descriptor);
          compiled->indexes_.push_back(std::move(index));
        }
        return std::shared_ptr<const CollectionIndexes>(std::move(compiled));
      });
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

Status DuplicateKeyError(std::string_view ns, std::string_view index_name, BsonView key_pattern,
                         BsonView key_value) {
  std::string message = "E11000 duplicate key error collection: " + std::string(ns) +
                        " index: " + std::string(index_name) +
                        " dup key: " + ToShellString(key_value);
  BsonDoc extra;
  bson_t pattern = key_pattern.AsBson();
  BSON_APPEND_DOCUMENT(extra.get(), "keyPattern", &pattern);
  bson_t value = key_value.AsBson();
  BSON_APPEND_DOCUMENT(extra.get(), "keyValue", &value);
  return Status(ErrorCode::kDuplicateKey, std::move(message)).WithExtra(std::move(extra));
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
