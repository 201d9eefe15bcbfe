// The collection write path: document + index entries in one WriteUnit, under the collection lock.
#include "server/write/collection_writer.h"

#include "server/write/catalog_change.h"

#include <algorithm>
#include <iterator>

#include "common/bson_validate.h"
#include "index/key_string.h"
#include "server/catalog/collection_validator.h"

namespace cairn::server {

namespace {

// MongoDB refuses '$'-prefixed field names anywhere inside _id (they are allowed elsewhere
// since 5.0): DollarPrefixedFieldName 52.
Status CheckIdForDollarFields(BsonView id_document) {
  bson_iter_t it;
  if (!id_document.Init(&it)) return Status::OK();
  while (bson_iter_next(&it)) {
    std::string_view key = IterKey(&it);
    if (!key.empty() && key.front() == '$') {
      return Status(ErrorCode::kDollarPrefixedFieldName,
                    "_id fields may not contain '$'-prefixed fields: " + std::string(key) +
                        " is not valid for storage.");
    }
    if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
      CAIRN_RETURN_IF_ERROR(CheckIdForDollarFields(IterDocument(&it)));
    }
  }
  return Status::OK();
}

}  // namespace

Result<BsonView> PrepareForInsert(BsonView doc, std::optional<BsonDoc>* storage) {
  if (doc.size() > static_cast<size_t>(kMaxBsonObjectSize)) {
    return Status(ErrorCode::kBadValue,
                  "object to insert too large. size in bytes: " + std::to_string(doc.size()) +
                      ", max size: " + std::to_string(kMaxBsonObjectSize));
  }
  CAIRN_RETURN_IF_ERROR(CheckStorageDepth(doc, StorageDepthCheck::kInsert));
  bson_iter_t it;
  bool has_id = false;
  bool id_first = false;
  bool first = true;
  if (doc.Init(&it)) {
    while (bson_iter_next(&it)) {
      if (IterKey(&it) == "_id") {
        if (has_id) {
          return Status(ErrorCode::kBadValue, "can't have multiple _id fields in one document");
        }
        has_id = true;
        id_first = first;
        switch (bson_iter_type(&it)) {
          case BSON_TYPE_ARRAY:
            return Status(ErrorCode::kBadValue, "can't use an array for _id");
          case BSON_TYPE_REGEX:
            return Status(ErrorCode::kBadValue, "can't use a regex for _id");
          case BSON_TYPE_UNDEFINED:
            return Status(ErrorCode::kBadValue, "can't use a undefined for _id");
          case BSON_TYPE_DOCUMENT:
            CAIRN_RETURN_IF_ERROR(CheckIdForDollarFields(IterDocument(&it)));
            break;
          default:
            break;
        }
      }
      first = false;
    }
  }
  if (has_id && id_first) return doc;

  // Rewrite: _id first (existing or generated), then the other fields in order.
  BsonDoc out;
  if (has_id) {
    doc.Find("_id", &it);
    AppendIter(out.get(), "_id", &it);
  } else {
    bson_oid_t oid;
    bson_oid_init(&oid, nullptr);
    BSON_APPEND_OID(out.get(), "_id", &oid);
  }
  if (doc.Init(&it)) {
    while (bson_iter_next(&it)) {
      if (IterKey(&it) != "_id") AppendIter(out.get(), IterKey(&it), &it);
    }
  }
  storage->emplace(std::move(out));
  return (*storage)->view();
}

Result<std::unique_ptr<CollectionWriter>> CollectionWriter::Open(WriteContext& state,
                                                                 std::string_view ns,
                                                                 bool create_if_missing,
                                                                 TransactionWrites* txn) {
  storage::Catalog& catalog = state.engine().catalog();
  storage::CollectionHandle collection = catalog.Find(ns);
  if (!collection && create_if_missing) {
    Result<storage::CollectionHandle> created = CreateCollectionLogged(state, ns, BsonView());
    if (created.ok()) {
      collection = created.value();
      if (txn != nullptr) txn->created.insert(collection->prefix);
    } else if (created.status().code() == ErrorCode::kNamespaceExists) {
      collection = catalog.Find(ns);  // another connection created it first
    } else {
      return created.status();
    }
    if (!collection) {
      return Status(ErrorCode::kInternalError, "collection vanished while being created");
    }
  }
  if (txn != nullptr && collection && CappedLimitsOf(*collection)) {
    return Status(ErrorCode::kOperationNotSupportedInTransaction,
                  "Collection '" + collection->ns +
                      "' is a capped collection. Writes in transactions are not allowed on capped "
                      "collections.");
  }
  std::unique_ptr<CollectionWriter> writer(new CollectionWriter(state, std::move(collection), txn));
  CAIRN_RETURN_IF_ERROR(writer->LoadIndexes());
  return writer;
}

// The collection's lock is taken here and released by lock_'s destructor, across member
// functions the analysis cannot follow; the methods that read id_bound assert it is held.
CollectionWriter::CollectionWriter(WriteContext& state, storage::CollectionHandle collection,
                                   TransactionWrites* txn) NO_THREAD_SAFETY_ANALYSIS
    : state_(state),
      txn_(txn),
      collection_(std::move(collection)),
      unit_(state.engine().BeginWrite()) {
  if (collection_) {
    shared_ = &state.CollectionWrite(collection_->prefix);
    shared_->lock.Lock();
    lock_.mu = &shared_->lock;
  }
}

const storage::Reader& CollectionWriter::reader() const {
  if (txn_ != nullptr) return *txn_->storage;
  return state_.engine();
}

CollectionWriter::HeldLock::~HeldLock() NO_THREAD_SAFETY_ANALYSIS {
  if (mu != nullptr) mu->Unlock();
}

CollectionWriter::~CollectionWriter() {
  if (oplog_ != nullptr) oplog_->UnitDone(oplog_unit_, /*committed=*/false);  // an unsent unit
}

Status CollectionWriter::LoadIndexes() {
  if (!collection_) return Status::OK();
  // Index builds and collMod change the catalog under this same lock, so the handle read now
  // holds every index this writer must maintain.
  storage::CollectionHandle current = state_.engine().catalog().Find(collection_->ns);
  if (current && current->prefix == collection_->prefix) collection_ = std::move(current);
  CAIRN_ASSIGN_OR_RETURN(validator_, ValidatorOf(collection_));
  capped_ = CappedEvictor::For(state_, *collection_);
  OplogSink* oplog = state_.oplog();
  oplog_ = oplog != nullptr && oplog->Logs(collection_->ns) ? oplog : nullptr;
  if (oplog_ != nullptr && txn_ != nullptr) oplog_ = txn_->ops;  // into the applyOps entry
  indexes_.reset();
  if (collection_->indexes.size() <= 1) return Status::OK();
  CAIRN_ASSIGN_OR_RETURN(indexes_, IndexesOf(collection_));
  const size_t n = indexes_->all().size();
  pending_keys_.resize(n);
  multikey_.resize(n);
  for (size_t i = 0; i < n; ++i) multikey_[i] = indexes_->all()[i].state.multikey;
  new_keys_.resize(n);
  old_keys_.resize(n);
  return Status::OK();
}

Status CollectionWriter::SecondaryKeys(BsonView doc, std::vector<index::KeySet>* keys) {
  const std::vector<IndexHandle>& all = indexes_->all();
  index::MultikeyPaths paths;
  for (size_t i = 1; i < all.size(); ++i) {
    paths.clear();
    CAIRN_RETURN_IF_ERROR(all[i].descriptor->GetKeys(doc, &(*keys)[i], &paths));
    index::MultikeyPaths& known = multikey_[i];
    known.resize(paths.size(), 0);
    for (size_t f = 0; f < paths.size(); ++f) {
      if ((paths[f] & ~known[f]) != 0) {
        known[f] |= paths[f];
        multikey_changed_ = true;
      }
    }
  }
  return Status::OK();
}

Result<bool> CollectionWriter::UniqueKeyTaken(size_t i, const std::string& key,
                                              storage::RecordId self) {
  PendingKeys& pending = pending_keys_[i];
  if (auto it = pending.added.find(key); it != pending.added.end()) return it->second != self;
  if (pending.removed.count(key) != 0) return false;
  std::string value;
  bool found = false;
  CAIRN_RETURN_IF_ERROR(reader().GetIndexEntry(indexes_->all()[i].prefix, key, &value, &found));
  return found && storage::DecodeRecordId(value) != self;
}

Status CollectionWriter::PublishMultikeyPaths() {
  if (!multikey_changed_) return Status::OK();
  storage::Catalog& catalog = state_.engine().catalog();
  storage::CollectionHandle handle = collection_;
  const std::vector<IndexHandle>& all = indexes_->all();
  for (size_t i = 1; i < all.size(); ++i) {
    if (multikey_[i] == all[i].state.multikey) continue;
    index::IndexState state = all[i].state;
    state.multikey = multikey_[i];
    CAIRN_ASSIGN_OR_RETURN(
        handle, catalog.UpdateIndex(collection_->ns, all[i].name, handle->indexes[i].spec.view(),
                                    index::EncodeIndexState(state).view()));
  }
  multikey_changed_ = false;
  collection_ = std::move(handle);
  CAIRN_ASSIGN_OR_RETURN(indexes_, IndexesOf(collection_));
  return Status::OK();
}

Result<std::string> CollectionWriter::IdKey(BsonView doc, bson_iter_t* id) const {
  if (!doc.Find("_id", id)) {
    return Status(ErrorCode::kInternalError, "document without _id reached the write path");
  }
  std::string key;
  index::AppendValue(&key, id);
  return key;
}

Status CollectionWriter::KnowIdBound() {
  shared_->lock.AssertHeld();  // for the writer's life (lock_)
  if (shared_->id_bound) return Status::OK();
  std::string largest;
  bool found = false;
  CAIRN_RETURN_IF_ERROR(
      state_.engine().LargestIndexKey(collection_->indexes[0].prefix, &largest, &found));
  shared_->id_bound = std::move(largest);  // empty when not found
  return Status::OK();
}

bool CollectionWriter::AboveIdBound(std::string_view key) const {
  shared_->lock.AssertHeld();  // for the writer's life (lock_)
  return key > std::string_view(*shared_->id_bound);
}

Result<CollectionWriter::IdProbes> CollectionWriter::ProbeIds(const std::vector<BsonView>& docs) {
  IdProbes probes;
  probes.keys.reserve(docs.size());
  for (BsonView doc : docs) {
    bson_iter_t id;
    CAIRN_ASSIGN_OR_RETURN(std::string key, IdKey(doc, &id));
    probes.keys.push_back(std::move(key));
  }
  probes.taken.assign(docs.size(), false);
  // Outside a transaction only keys at or below the bound can be in storage. (The bound follows
  // committed writes, not a transaction's: a transaction asks for every key.)
  if (txn_ == nullptr) CAIRN_RETURN_IF_ERROR(KnowIdBound());
  std::vector<size_t> asked;
  std::vector<std::string_view> keys;
  for (size_t i = 0; i < probes.keys.size(); ++i) {
    if (txn_ == nullptr && AboveIdBound(probes.keys[i])) continue;
    asked.push_back(i);
    keys.push_back(probes.keys[i]);
  }
  if (keys.empty()) return probes;
  std::vector<bool> taken;
  CAIRN_RETURN_IF_ERROR(reader().IndexEntriesExist(collection_->indexes[0].prefix, keys, &taken));
  for (size_t j = 0; j < asked.size(); ++j) probes.taken[asked[j]] = taken[j];
  return probes;
}

Status CollectionWriter::Insert(BsonView doc) {
  bson_iter_t id;
  CAIRN_ASSIGN_OR_RETURN(std::string key, IdKey(doc, &id));
  return InsertWithKey(doc, std::move(key), std::nullopt);
}

Status CollectionWriter::Insert(BsonView doc, const IdProbes& probes, size_t i) {
  return InsertWithKey(doc, probes.keys[i], probes.taken[i]);
}

Status CollectionWriter::InsertWithKey(BsonView doc, std::string key,
                                       std::optional<bool> taken_in_storage) {
  if (validator_ && !bypass_validation_) {
    CAIRN_RETURN_IF_ERROR(CheckDocumentValidation(*validator_, collection_->ns, doc, nullptr));
  }
  if (capped_) CAIRN_RETURN_IF_ERROR(capped_->CheckFits(doc));
  const storage::IndexEntry& id_index = collection_->indexes[0];
  // The unit's own pending inserts and removals come first, then what is committed.
  bool taken = inserted_ids_.count(key) > 0;
  if (!taken && (removed_ids_.empty() || !removed_ids_.count(key))) {
    if (taken_in_storage.has_value()) {
      taken = *taken_in_storage;
    } else {
      if (txn_ == nullptr) CAIRN_RETURN_IF_ERROR(KnowIdBound());
      if (txn_ != nullptr || !AboveIdBound(key)) {
        std::string ignored;
        CAIRN_RETURN_IF_ERROR(reader().GetIndexEntry(id_index.prefix, key, &ignored, &taken));
      }
    }
  }
  if (taken) {
    bson_iter_t id;
    if (!doc.Find("_id", &id)) return Status(ErrorCode::kInternalError, "document without _id");
    BsonDoc key_value;
    AppendIter(key_value.get(), "_id", &id);
    BsonDoc pattern;
    BSON_APPEND_INT32(pattern.get(), "_id", 1);
    return DuplicateKeyError(collection_->ns, id_index.name, pattern.view(), key_value.view());
  }
  if (indexes_) {
    // Every key is generated and every unique key checked before anything is written.
    CAIRN_RETURN_IF_ERROR(SecondaryKeys(doc, &new_keys_));
    const std::vector<IndexHandle>& all = indexes_->all();
    for (size_t i = 1; i < all.size(); ++i) {
      if (!all[i].descriptor->unique()) continue;
      for (const std::string& k : new_keys_[i]) {
        CAIRN_ASSIGN_OR_RETURN(bool conflict, UniqueKeyTaken(i, k, 0));
        if (conflict) return IndexDuplicateKeyError(collection_->ns, *all[i].descriptor, k);
      }
    }
  }
  if (oplog_ != nullptr) {
    CAIRN_RETURN_IF_ERROR(oplog_->LogInsert(unit_, oplog_unit_, *collection_, doc, statement_));
  }
  storage::RecordId record_id = state_.engine().NextRecordId(collection_->prefix);
  unit_.PutRecord(collection_->prefix, record_id, doc);
  if (first_unit_insert_ == 0) first_unit_insert_ = record_id;
  // (A transaction's documents are cached by nobody: its commit must not race a reader's fill.)
  if (txn_ == nullptr) state_.id_cache().FillNewDocument(collection_->prefix, record_id, doc);
  unit_.PutIndexEntry(id_index.prefix, key, storage::EncodeRecordId(record_id));
  unit_.AdjustCounts(collection_->prefix, 1, static_cast<int64_t>(doc.size()));
  if (!removed_ids_.empty()) removed_ids_.erase(key);
  inserted_ids_.emplace(std::move(key), record_id);
  if (indexes_) {
    const std::vector<IndexHandle>& all = indexes_->all();
    for (size_t i = 1; i < all.size(); ++i) {
      const bool unique = all[i].descriptor->unique();
      for (const std::string& k : new_keys_[i]) {
        unit_.PutIndexEntry(all[i].prefix, IndexEntryKey(unique, k, record_id),
                            IndexEntryValue(unique, record_id));
        if (unique) {
          pending_keys_[i].removed.erase(k);
          pending_keys_[i].added[k] = record_id;
        }
      }
    }
  }
  if (capped_) return capped_->AfterInsert(*this, record_id, doc);
  return Status::OK();
}

Status CollectionWriter::Replace(storage::RecordId id, BsonView old_doc, BsonView new_doc,
                                 bool replacement) {
  // Every replacement (update, replace, $merge) is checked here, once for all callers.
  CAIRN_RETURN_IF_ERROR(CheckStorageDepth(new_doc, StorageDepthCheck::kUpdate));
  if (validator_ && !bypass_validation_) {
    CAIRN_RETURN_IF_ERROR(CheckDocumentValidation(*validator_, collection_->ns, new_doc, &old_doc));
  }
  if (indexes_) {
    CAIRN_RETURN_IF_ERROR(SecondaryKeys(old_doc, &old_keys_));
    CAIRN_RETURN_IF_ERROR(SecondaryKeys(new_doc, &new_keys_));
    const std::vector<IndexHandle>& all = indexes_->all();
    // Keys in both sets stay; only the differences are written, after every check passed.
    for (size_t i = 1; i < all.size(); ++i) {
      if (!all[i].descriptor->unique()) continue;
      for (const std::string& k : new_keys_[i]) {
        if (std::binary_search(old_keys_[i].begin(), old_keys_[i].end(), k)) continue;
        CAIRN_ASSIGN_OR_RETURN(bool conflict, UniqueKeyTaken(i, k, id));
        if (conflict) return IndexDuplicateKeyError(collection_->ns, *all[i].descriptor, k);
      }
    }
  }
  // Logged after every check passed, before anything changes.
  if (oplog_ != nullptr) {
    CAIRN_RETURN_IF_ERROR(oplog_->LogUpdate(unit_, oplog_unit_, *collection_, old_doc, new_doc,
                                            replacement, statement_));
  }
  if (indexes_) {
    const std::vector<IndexHandle>& all = indexes_->all();
    for (size_t i = 1; i < all.size(); ++i) {
      const bool unique = all[i].descriptor->unique();
      const index::KeySet& before = old_keys_[i];
      const index::KeySet& after = new_keys_[i];
      for (const std::string& k : before) {
        if (std::binary_search(after.begin(), after.end(), k)) continue;
        unit_.DeleteIndexEntry(all[i].prefix, IndexEntryKey(unique, k, id));
        if (unique) {
          pending_keys_[i].added.erase(k);
          pending_keys_[i].removed.insert(k);
        }
      }
      for (const std::string& k : after) {
        if (std::binary_search(before.begin(), before.end(), k)) continue;
        unit_.PutIndexEntry(all[i].prefix, IndexEntryKey(unique, k, id),
                            IndexEntryValue(unique, id));
        if (unique) {
          pending_keys_[i].removed.erase(k);
          pending_keys_[i].added[k] = id;
        }
      }
    }
  }
  unit_.PutRecord(collection_->prefix, id, new_doc);
  NoteChanged(id);
  if (capped_) capped_->OnReplace(id, new_doc);
  unit_.AdjustCounts(collection_->prefix, 0,
                     static_cast<int64_t>(new_doc.size()) - static_cast<int64_t>(old_doc.size()));
  return Status::OK();
}

Status CollectionWriter::Remove(storage::RecordId id, BsonView doc) {
  bson_iter_t id_value;
  CAIRN_ASSIGN_OR_RETURN(std::string key, IdKey(doc, &id_value));
  if (indexes_) CAIRN_RETURN_IF_ERROR(SecondaryKeys(doc, &old_keys_));
  if (oplog_ != nullptr && !evicting_) {
    CAIRN_RETURN_IF_ERROR(oplog_->LogDelete(unit_, oplog_unit_, *collection_, doc, statement_));
  }
  unit_.DeleteRecord(collection_->prefix, id);
  NoteChanged(id);
  if (capped_) capped_->OnRemove(id);
  unit_.DeleteIndexEntry(collection_->indexes[0].prefix, key);
  unit_.AdjustCounts(collection_->prefix, -1, -static_cast<int64_t>(doc.size()));
  if (indexes_) {
    const std::vector<IndexHandle>& all = indexes_->all();
    for (size_t i = 1; i < all.size(); ++i) {
      const bool unique = all[i].descriptor->unique();
      for (const std::string& k : old_keys_[i]) {
        unit_.DeleteIndexEntry(all[i].prefix, IndexEntryKey(unique, k, id));
        if (unique) {
          pending_keys_[i].added.erase(k);
          pending_keys_[i].removed.insert(k);
        }
      }
    }
  }
  inserted_ids_.erase(key);
  removed_ids_.insert(std::move(key));
  return Status::OK();
}

void CollectionWriter::NoteChanged(storage::RecordId id) {
  if (txn_ != nullptr) {
    txn_->changed.emplace_back(collection_->prefix, id);
    return;
  }
  changed_records_.push_back(id);
  // A record this unit inserted was cached write-through; its slot must not hold the inserted
  // version once the unit commits with a later one. Nobody can read it before then, so the slot
  // is cleared now.
  if (first_unit_insert_ != 0 && id >= first_unit_insert_) {
    state_.id_cache().InvalidateDocument(collection_->prefix, id);
  }
}

Status CollectionWriter::Commit() {
  if (unit_.empty()) return Status::OK();
  // Readers trust an index's multikey paths: record new ones before the keys that need them.
  CAIRN_RETURN_IF_ERROR(PublishMultikeyPaths());
  if (txn_ != nullptr) return HandToTransaction();
  if (oplog_ != nullptr) oplog_->Flush(unit_, oplog_unit_);
  Status status = unit_.Commit();
  unit_ = state_.engine().BeginWrite();
  if (oplog_ != nullptr) oplog_->UnitDone(oplog_unit_, status.ok());
  if (capped_) capped_->AfterCommit(status.ok());
  IdCache& cache = state_.id_cache();
  // Before the write is acknowledged, no cached copy of a changed document may survive (a
  // failed commit changed nothing, but forgetting is always safe).
  for (storage::RecordId id : changed_records_) cache.InvalidateDocument(collection_->prefix, id);
  changed_records_.clear();
  first_unit_insert_ = 0;
  if (status.ok()) {
    // Removals need no erasure here: a reader checks the record a cached RecordId names.
    const std::string* highest = nullptr;
    for (const auto& [key, record_id] : inserted_ids_) {
      cache.Insert(collection_->prefix, key, record_id);
      if (highest == nullptr || key > *highest) highest = &key;
    }
    // The committed keys now bound the _id index from below; a bound not yet read from storage
    // stays unknown (it is read, with these keys, when first needed).
    shared_->lock.AssertHeld();  // for the writer's life (lock_)
    if (highest != nullptr && shared_->id_bound && *highest > *shared_->id_bound) {
      shared_->id_bound = *highest;
    }
  }
  ForgetPendingKeys();
  return status;
}

void CollectionWriter::ForgetPendingKeys() {
  inserted_ids_.clear();
  removed_ids_.clear();
  for (PendingKeys& pending : pending_keys_) {
    pending.added.clear();
    pending.removed.clear();
  }
}

Status CollectionWriter::HandToTransaction() {
  Status status = txn_->storage->Apply(unit_);
  TransactionWrites::Written& written = txn_->collections[collection_->prefix];
  written.ns = collection_->ns;
  written.indexes.clear();
  for (const storage::IndexEntry& index : collection_->indexes) {
    written.indexes.push_back(index.prefix);
  }
  first_unit_insert_ = 0;
  ForgetPendingKeys();
  return status;
}

void CollectionWriter::PendingCounts(storage::Prefix collection, int64_t* count_delta,
                                     int64_t* size_delta) const {
  unit_.PendingCounts(collection, count_delta, size_delta);
}

}  // namespace cairn::server
