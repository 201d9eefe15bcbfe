// Catalog: the "catalog" column family (collection entries, prefix high-water mark, counters,
// format version), its in-memory cache, and create/drop/rename of collections and indexes.
//
// Grammar (DO NOT CHANGE: on disk; storage/README.md has the full description):
//   "meta/format_version"            → uint32 BE (= 1)
//   "meta/next_prefix"               → uint32 BE: the next prefix to allocate; every prefix ever
//                                      allocated is below it (never reused)
//   "coll/" ns                       → BSON {ns: string, prefix: int64, uuid: binData(4, 16 bytes),
//                                            options: document,
//                                            indexes: [{name: string, prefix: int64, spec:
//                                            document,
//                                                       state: document (optional)}]}
//   "count/" collection_prefix:u32BE → record_count:int64 BE  data_size:int64 BE
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <random>
#include <set>

#include "common/bson_validate.h"
#include "common/mutex.h"
#include "storage/engine_impl.h"

namespace cairn::storage {

BsonDoc IdIndexSpec() {
  BsonDoc spec;
  bson_t* b = spec.get();
  bson_append_int32(b, "v", 1, 2);
  bson_t key;
  bson_append_document_begin(b, "key", 3, &key);
  bson_append_int32(&key, "_id", 3, 1);
  bson_append_document_end(b, &key);
  AppendUtf8(b, "name", "_id_");
  return spec;
}

void NewCollectionUuid(uint8_t out[16]) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    out[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  out[6] = static_cast<uint8_t>((out[6] & 0x0f) | 0x40);  // version 4
  out[8] = static_cast<uint8_t>((out[8] & 0x3f) | 0x80);  // RFC 4122 variant
}

namespace {

Status Corrupt(std::string_view what) {
  return Status(ErrorCode::kInternalError, "storage catalog: corrupt entry: " + std::string(what));
}

std::string BigEndian32(uint32_t v) {
  std::string s;
  AppendBigEndian32(&s, v);
  return s;
}

std::string EncodeEntry(const CollectionEntry& e) {
  BsonDoc doc;
  bson_t* b = doc.get();
  AppendUtf8(b, "ns", e.ns);
  bson_append_int64(b, "prefix", -1, e.prefix);
  bson_append_binary(b, "uuid", -1, BSON_SUBTYPE_UUID, e.uuid, 16);
  bson_append_document(b, "options", -1, e.options.get());
  bson_t arr;
  bson_append_array_begin(b, "indexes", -1, &arr);
  for (size_t i = 0; i < e.indexes.size(); ++i) {
    char buf[16];
    const char* key;
    size_t key_len = bson_uint32_to_string(static_cast<uint32_t>(i), &key, buf, sizeof buf);
    bson_t idx;
    bson_append_document_begin(&arr, key, static_cast<int>(key_len), &idx);
    AppendUtf8(&idx, "name", e.indexes[i].name);
    bson_append_int64(&idx, "prefix", -1, e.indexes[i].prefix);
    bson_append_document(&idx, "spec", -1, e.indexes[i].spec.get());
    if (!e.indexes[i].state.view().empty()) {
      bson_append_document(&idx, "state", -1, e.indexes[i].state.get());
    }
    bson_append_document_end(&arr, &idx);
  }
  bson_append_array_end(b, &arr);
  return std::string(reinterpret_cast<const char*>(bson_get_data(b)), b->len);
}

bool ReadPrefix(const bson_iter_t* it, Prefix* out) {
  if (!BSON_ITER_HOLDS_INT64(it) && !BSON_ITER_HOLDS_INT32(it)) return false;
  int64_t v = bson_iter_as_int64(it);
  if (v < kFirstPrefix || v > kMaxPrefix) return false;
  *out = static_cast<Prefix>(v);
  return true;
}

Result<std::shared_ptr<CollectionEntry>> DecodeEntry(std::string_view bytes) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  if (!ValidateBson(data, bytes.size()).ok()) return Corrupt("not BSON");
  BsonView view(data, bytes.size());
  auto e = std::make_shared<CollectionEntry>();
  bool has_ns = false, has_prefix = false, has_uuid = false;
  bson_iter_t it;
  view.Init(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (key == "ns" && BSON_ITER_HOLDS_UTF8(&it)) {
      e->ns = std::string(IterUtf8(&it));
      has_ns = true;
    } else if (key == "prefix") {
      if (!ReadPrefix(&it, &e->prefix)) return Corrupt("prefix");
      has_prefix = true;
    } else if (key == "uuid" && BSON_ITER_HOLDS_BINARY(&it)) {
      bson_subtype_t subtype;
      uint32_t len;
      const uint8_t* bin;
      bson_iter_binary(&it, &subtype, &len, &bin);
      if (len != 16) return Corrupt("uuid");
      std::copy(bin, bin + 16, e->uuid);
      has_uuid = true;
    } else if (key == "options" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      e->options = BsonDoc(IterDocument(&it));
    } else if (key == "indexes" && BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_t arr;
      bson_iter_recurse(&it, &arr);
      while (bson_iter_next(&arr)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&arr)) return Corrupt("indexes");
        IndexEntry idx;
        bool has_name = false, has_idx_prefix = false;
        bson_iter_t f;
        bson_iter_recurse(&arr, &f);
        while (bson_iter_next(&f)) {
          std::string_view fk = IterKey(&f);
          if (fk == "name" && BSON_ITER_HOLDS_UTF8(&f)) {
            idx.name = std::string(IterUtf8(&f));
            has_name = true;
          } else if (fk == "prefix") {
            if (!ReadPrefix(&f, &idx.prefix)) return Corrupt("index prefix");
            has_idx_prefix = true;
          } else if (fk == "spec" && BSON_ITER_HOLDS_DOCUMENT(&f)) {
            idx.spec = BsonDoc(IterDocument(&f));
          } else if (fk == "state" && BSON_ITER_HOLDS_DOCUMENT(&f)) {
            idx.state = BsonDoc(IterDocument(&f));
          }
        }
        if (!has_name || !has_idx_prefix) return Corrupt("index");
        e->indexes.push_back(std::move(idx));
      }
    }
  }
  if (!has_ns || !has_prefix || !has_uuid || e->indexes.empty()) return Corrupt(e->ns);
  return e;
}

std::shared_ptr<CollectionEntry> CloneEntry(const CollectionEntry& e) {
  auto c = std::make_shared<CollectionEntry>();
  c->ns = e.ns;
  c->prefix = e.prefix;
  std::copy(e.uuid, e.uuid + 16, c->uuid);
  c->options = e.options.Clone();
  for (const IndexEntry& i : e.indexes) {
    c->indexes.push_back({i.name, i.prefix, i.spec.Clone(), i.state.Clone()});
  }
  return c;
}

// Adds to `batch` the deletion of everything stored under a collection except its catalog key:
// its documents, every index's entries and its counters.
void AddDropRanges(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* catalog_cf,
                   rocksdb::ColumnFamilyHandle* documents_cf, rocksdb::ColumnFamilyHandle* index_cf,
                   const CollectionEntry& e) {
  batch->DeleteRange(documents_cf, EncodePrefix(e.prefix), PrefixEnd(e.prefix))
      .PermitUncheckedError();
  for (const IndexEntry& i : e.indexes) {
    batch->DeleteRange(index_cf, EncodePrefix(i.prefix), PrefixEnd(i.prefix))
        .PermitUncheckedError();
  }
  batch->Delete(catalog_cf, CountsKey(e.prefix)).PermitUncheckedError();
}

// Writes a batch that drops the collections whose states are given, under the commit mutex so
// that no WriteUnit re-creates their counters afterwards; then marks them dropped.
Status WriteDropping(rocksdb::DB* db, const rocksdb::WriteOptions& wo, Mutex& commit_mu,
                     rocksdb::WriteBatch* batch, const std::vector<CollectionState*>& dropped) {
  MutexLock lock(&commit_mu);
  Status s = FromRocks(db->Write(wo, batch), "catalog write");
  if (!s.ok()) return s;
  for (CollectionState* st : dropped) {
    st->dropped = true;
    st->count.store(0);
    st->data_size.store(0);
  }
  return s;
}

}  // namespace

// A catalog change's write: its own batch, or the unit it commits with (the oplog entry that
// records it), whose batch takes the change's keys.
class Catalog::ChangeBatch {
 public:
  ChangeBatch(Engine::Impl* e, WriteUnit* also) : e_(e), also_(also) {}
  rocksdb::WriteBatch* operator->() { return get(); }
  rocksdb::WriteBatch* get() { return also_ != nullptr ? also_->batch() : &own_; }
  Status Commit(const std::vector<CollectionState*>& dropped) {
    if (also_ != nullptr) return also_->CommitDropping(dropped);
    return WriteDropping(e_->db, e_->write_options, e_->commit_mu, &own_, dropped);
  }

 private:
  Engine::Impl* e_;
  WriteUnit* also_;
  rocksdb::WriteBatch own_;
};

Status Catalog::Load() {
  Engine::Impl* e = engine_->impl_.get();
  MutexLock lock(&mu_);
  bool has_version = false;
  Prefix stored_next = kFirstPrefix;
  Prefix max_used = 0;
  {
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(e->db->NewIterator(ro, e->catalog_cf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string_view key(it->key().data(), it->key().size());
      std::string_view value(it->value().data(), it->value().size());
      if (key == kFormatVersionKey) {
        if (value.size() != 4) return Corrupt("format version");
        uint32_t v = ReadBigEndian32(value.data());
        if (v != kFormatVersion) {
          return Status(ErrorCode::kInternalError,
                        "storage open: unsupported on-disk format version " + std::to_string(v));
        }
        has_version = true;
      } else if (key == kNextPrefixKey) {
        if (value.size() != 4) return Corrupt("next prefix");
        stored_next = ReadBigEndian32(value.data());
      } else if (key.starts_with(kCollectionKeyPrefix)) {
        CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<CollectionEntry> entry, DecodeEntry(value));
        max_used = std::max(max_used, entry->prefix);
        for (const IndexEntry& i : entry->indexes) max_used = std::max(max_used, i.prefix);
        e->GetOrCreateState(entry->prefix);
        std::string ns = entry->ns;
        entries_[ns] = std::move(entry);
      } else if (key.starts_with(kCountsKeyPrefix)) {
        if (key.size() != kCountsKeyPrefix.size() + 4 || value.size() != 16) {
          return Corrupt("counts");
        }
        CollectionState* st =
            e->GetOrCreateState(ReadBigEndian32(key.data() + kCountsKeyPrefix.size()));
        st->count.store(static_cast<int64_t>(ReadBigEndian64(value.data())));
        st->data_size.store(static_cast<int64_t>(ReadBigEndian64(value.data() + 8)));
      }
      // Other keys are ignored (room for later additions).
    }
    CAIRN_RETURN_IF_ERROR(FromRocks(it->status(), "load catalog"));
  }
  // Never trust the mark alone (MongoRocks PSMDB-191 reused a dropped prefix): stay above the
  // largest prefix any entry or any stored key uses.
  for (rocksdb::ColumnFamilyHandle* cf : {e->documents_cf, e->index_cf}) {
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(e->db->NewIterator(ro, cf));
    it->SeekToLast();
    if (it->Valid() && it->key().size() >= 4) {
      max_used = std::max(max_used, ReadBigEndian32(it->key().data()));
    }
    CAIRN_RETURN_IF_ERROR(FromRocks(it->status(), "load catalog"));
  }
  next_prefix_ = std::max<Prefix>(stored_next, max_used + 1);
  if (!has_version || next_prefix_ != stored_next) {
    rocksdb::WriteBatch batch;
    batch.Put(e->catalog_cf, kFormatVersionKey, BigEndian32(kFormatVersion)).PermitUncheckedError();
    batch.Put(e->catalog_cf, kNextPrefixKey, BigEndian32(next_prefix_)).PermitUncheckedError();
    CAIRN_RETURN_IF_ERROR(FromRocks(e->db->Write(e->write_options, &batch), "init catalog"));
  }
  return Status::OK();
}

CollectionHandle Catalog::Find(std::string_view ns) const {
  MutexLock lock(&mu_);
  auto it = entries_.find(std::string(ns));
  return it == entries_.end() ? nullptr : it->second;
}

std::vector<CollectionHandle> Catalog::ListCollections(std::string_view db) const {
  std::vector<CollectionHandle> out;
  {
    MutexLock lock(&mu_);
    for (const auto& [ns, entry] : entries_) {
      if (entry->db() == db) out.push_back(entry);
    }
  }
  std::sort(out.begin(), out.end(), [](const CollectionHandle& a, const CollectionHandle& b) {
    return a->collection() < b->collection();
  });
  return out;
}

std::vector<std::string> Catalog::ListDatabases() const {
  std::set<std::string, std::less<>> dbs;
  {
    MutexLock lock(&mu_);
    for (const auto& [ns, entry] : entries_) dbs.emplace(entry->db());
  }
  return std::vector<std::string>(dbs.begin(), dbs.end());
}

Result<CollectionHandle> Catalog::CreateCollection(std::string_view ns, BsonView options,
                                                   WriteUnit* also, const uint8_t* uuid) {
  Engine::Impl* e = engine_->impl_.get();
  MutexLock lock(&mu_);
  if (entries_.count(std::string(ns)) != 0) {
    return Status(ErrorCode::kNamespaceExists, "Collection already exists. NS: " + std::string(ns));
  }
  if (next_prefix_ > kMaxPrefix - 1) {
    return Status(ErrorCode::kInternalError, "storage catalog: key prefixes exhausted");
  }
  auto entry = std::make_shared<CollectionEntry>();
  entry->ns = std::string(ns);
  entry->prefix = next_prefix_;
  if (uuid != nullptr) {
    std::copy(uuid, uuid + 16, entry->uuid);
  } else {
    NewCollectionUuid(entry->uuid);
  }
  entry->options = BsonDoc(options);
  entry->indexes.push_back({"_id_", next_prefix_ + 1, IdIndexSpec(), BsonDoc()});
  // Advance in memory even if the write fails: a prefix is never handed out twice.
  next_prefix_ += 2;

  ChangeBatch batch(e, also);
  batch->Put(e->catalog_cf, CollectionKey(ns), EncodeEntry(*entry)).PermitUncheckedError();
  batch->Put(e->catalog_cf, kNextPrefixKey, BigEndian32(next_prefix_)).PermitUncheckedError();
  CAIRN_RETURN_IF_ERROR(batch.Commit({}));

  CollectionState* st = e->GetOrCreateState(entry->prefix);
  st->id_seeded.store(true);  // a fresh prefix holds no records
  entries_[entry->ns] = entry;
  return CollectionHandle(entry);
}

Status Catalog::DropCollection(std::string_view ns, WriteUnit* also) {
  Engine::Impl* e = engine_->impl_.get();
  MutexLock lock(&mu_);
  auto it = entries_.find(std::string(ns));
  if (it == entries_.end()) return Status(ErrorCode::kNamespaceNotFound, "ns not found");
  ChangeBatch batch(e, also);
  batch->Delete(e->catalog_cf, CollectionKey(ns)).PermitUncheckedError();
  AddDropRanges(batch.get(), e->catalog_cf, e->documents_cf, e->index_cf, *it->second);
  CAIRN_RETURN_IF_ERROR(batch.Commit({e->GetOrCreateState(it->second->prefix)}));
  entries_.erase(it);
  return Status::OK();
}

Status Catalog::DropDatabase(std::string_view db, WriteUnit* also) {
  Engine::Impl* e = engine_->impl_.get();
  MutexLock lock(&mu_);
  ChangeBatch batch(e, also);
  std::vector<std::string> names;
  std::vector<CollectionState*> states;
  for (const auto& [ns, entry] : entries_) {
    if (entry->db() != db) continue;
    names.push_back(ns);
    states.push_back(e->GetOrCreateState(entry->prefix));
    batch->Delete(e->catalog_cf, CollectionKey(ns)).PermitUncheckedError();
    AddDropRanges(batch.get(), e->catalog_cf, e->documents_cf, e->index_cf, *entry);
  }
  if (names.empty() && also == nullptr) return Status::OK();
  CAIRN_RETURN_IF_ERROR(batch.Commit(states));
  for (const std::string& ns : names) entries_.erase(ns);
  return Status::OK();
}

Status Catalog::RenameCollection(std::string_view from, std::string_view to, bool drop_target,
                                 WriteUnit* also) {
  Engine::Impl* e = engine_->impl_.get();
  MutexLock lock(&mu_);
  auto src = entries_.find(std::string(from));
  if (src == entries_.end()) {
    return Status(ErrorCode::kNamespaceNotFound, "source namespace does not exist");
  }
  auto dst = entries_.find(std::string(to));
  if (dst != entries_.end() && (!drop_target || from == to)) {
    return Status(ErrorCode::kNamespaceExists, "target namespace exists");
  }
  std::shared_ptr<CollectionEntry> renamed = CloneEntry(*src->second);
  renamed->ns = std::string(to);

  ChangeBatch batch(e, also);
  batch->Delete(e->catalog_cf, CollectionKey(from)).PermitUncheckedError();
  batch->Put(e->catalog_cf, CollectionKey(to), EncodeEntry(*renamed)).PermitUncheckedError();
  std::vector<CollectionState*> dropped;
  if (dst != entries_.end()) {
    AddDropRanges(batch.get(), e->catalog_cf, e->documents_cf, e->index_cf, *dst->second);
    dropped.push_back(e->GetOrCreateState(dst->second->prefix));
  }
  CAIRN_RETURN_IF_ERROR(batch.Commit(dropped));
  entries_.erase(src);
  entries_[renamed->ns] = std::move(renamed);
  return Status::OK();
}

Result<CollectionHandle> Catalog::CreateIndex(std::string_view ns, std::string_view name,
                                              BsonView spec, BsonView state, WriteUnit* also) {
  Engine::Impl* e = engine_->impl_.get();
  MutexLock lock(&mu_);
  auto it = entries_.find(std::string(ns));
  if (it == entries_.end()) return Status(ErrorCode::kNamespaceNotFound, "ns not found");
  for (const IndexEntry& i : it->second->indexes) {
    if (i.name == name) {
      return Status(ErrorCode::kNamespaceExists, "index already exists: " + std::string(name));
    }
  }
  if (next_prefix_ > kMaxPrefix) {
    return Status(ErrorCode::kInternalError, "storage catalog: key prefixes exhausted");
  }
  std::shared_ptr<CollectionEntry> updated = CloneEntry(*it->second);
  updated->indexes.push_back({std::string(name), next_prefix_, BsonDoc(spec), BsonDoc(state)});
  next_prefix_ += 1;

  ChangeBatch batch(e, also);
  batch->Put(e->catalog_cf, CollectionKey(ns), EncodeEntry(*updated)).PermitUncheckedError();
  batch->Put(e->catalog_cf, kNextPrefixKey, BigEndian32(next_prefix_)).PermitUncheckedError();
  CAIRN_RETURN_IF_ERROR(batch.Commit({}));
  it->second = updated;
  return CollectionHandle(updated);
}

Result<CollectionHandle> Catalog::UpdateIndex(std::string_view ns, std::string_view name,
                                              BsonView spec, BsonView state) {
  Engine::Impl* e = engine_->impl_.get();
  MutexLock lock(&mu_);
  auto it = entries_.find(std::string(ns));
  if (it == entries_.end()) return Status(ErrorCode::kNamespaceNotFound, "ns not found");
  std::shared_ptr<CollectionEntry> updated = CloneEntry(*it->second);
  auto pos = std::find_if(updated->indexes.begin(), updated->indexes.end(),
                          [&](const IndexEntry& i) { return i.name == name; });
  if (pos == updated->indexes.end()) {
    return Status(ErrorCode::kIndexNotFound,
                  "index not found with name [" + std::string(name) + "]");
  }
  pos->spec = BsonDoc(spec);
  pos->state = BsonDoc(state);
  rocksdb::WriteBatch batch;
  batch.Put(e->catalog_cf, CollectionKey(ns), EncodeEntry(*updated)).PermitUncheckedError();
  CAIRN_RETURN_IF_ERROR(FromRocks(e->db->Write(e->write_options, &batch), "update index"));
  it->second = updated;
  return CollectionHandle(updated);
}

Result<CollectionHandle> Catalog::ModifyCollection(
    std::string_view ns, BsonView options,
    const std::vector<std::pair<std::string, BsonDoc>>& index_specs, WriteUnit* also) {
  Engine::Impl* e = engine_->impl_.get();
  MutexLock lock(&mu_);
  auto it = entries_.find(std::string(ns));
  if (it == entries_.end()) return Status(ErrorCode::kNamespaceNotFound, "ns not found");
  std::shared_ptr<CollectionEntry> updated = CloneEntry(*it->second);
  updated->options = BsonDoc(options);
  for (const auto& change : index_specs) {
    const std::string& name = change.first;
    auto pos = std::find_if(updated->indexes.begin(), updated->indexes.end(),
                            [&](const IndexEntry& i) { return i.name == name; });
    if (pos == updated->indexes.end()) {
      return Status(ErrorCode::kIndexNotFound, "index not found with name [" + name + "]");
    }
    pos->spec = change.second.Clone();
  }
  ChangeBatch batch(e, also);
  batch->Put(e->catalog_cf, CollectionKey(ns), EncodeEntry(*updated)).PermitUncheckedError();
  CAIRN_RETURN_IF_ERROR(batch.Commit({}));
  it->second = updated;
  return CollectionHandle(updated);
}

Status Catalog::DropIndex(std::string_view ns, std::string_view name, WriteUnit* also) {
  Engine::Impl* e = engine_->impl_.get();
  MutexLock lock(&mu_);
  auto it = entries_.find(std::string(ns));
  if (it == entries_.end()) return Status(ErrorCode::kNamespaceNotFound, "ns not found");
  const std::vector<IndexEntry>& indexes = it->second->indexes;
  auto pos = std::find_if(indexes.begin(), indexes.end(),
                          [&](const IndexEntry& i) { return i.name == name; });
  if (pos == indexes.end()) {
    return Status(ErrorCode::kIndexNotFound,
                  "index not found with name [" + std::string(name) + "]");
  }
  if (pos == indexes.begin()) return Status(ErrorCode::kInvalidOptions, "cannot drop _id index");
  std::shared_ptr<CollectionEntry> updated = CloneEntry(*it->second);
  Prefix dropped = pos->prefix;
  updated->indexes.erase(updated->indexes.begin() + (pos - indexes.begin()));

  ChangeBatch batch(e, also);
  batch->Put(e->catalog_cf, CollectionKey(ns), EncodeEntry(*updated)).PermitUncheckedError();
  batch->DeleteRange(e->index_cf, EncodePrefix(dropped), PrefixEnd(dropped)).PermitUncheckedError();
  CAIRN_RETURN_IF_ERROR(batch.Commit({}));
  it->second = updated;
  return Status::OK();
}

}  // namespace cairn::storage
