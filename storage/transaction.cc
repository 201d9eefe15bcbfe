// Transaction: a snapshot, an overlay of the transaction's own writes, and the keys it holds.
#include "storage/transaction.h"

#include <rocksdb/snapshot.h>

#include "common/mutex.h"
#include "storage/engine_impl.h"

namespace cairn::storage {

namespace {

Status WriteConflict() {
  return Status(ErrorCode::kWriteConflict,
                "WriteConflict error: this operation conflicted with another operation. Please "
                "retry your operation or multi-document transaction.");
}

}  // namespace

struct Transaction::Impl {
  Engine::Impl* engine = nullptr;
  const rocksdb::Snapshot* snapshot = nullptr;
  rocksdb::ReadOptions read_options;  // at the snapshot
  Overlay documents, index;           // the writes, by full key
  std::vector<WriteUnit::Impl::CountDelta> deltas;
  size_t bytes = 0;
  std::vector<std::string> held;  // lock-table keys this transaction holds

  Overlay* OverlayOf(uint32_t cf_id) {
    if (cf_id == engine->documents_cf->GetID()) return &documents;
    if (cf_id == engine->index_cf->GetID()) return &index;
    return nullptr;
  }
  rocksdb::ColumnFamilyHandle* Family(const Overlay* overlay) const {
    return overlay == &documents ? engine->documents_cf : engine->index_cf;
  }

  // Whether `key` holds the same value now as at the snapshot (both absent included).
  Result<bool> Unchanged(rocksdb::ColumnFamilyHandle* cf, const std::string& key) const {
    std::string then, now;
    rocksdb::Status a = engine->db->Get(read_options, cf, key, &then);
    if (!a.ok() && !a.IsNotFound()) return FromRocks(a, "read at snapshot");
    rocksdb::ReadOptions latest;
    rocksdb::Status b = engine->db->Get(latest, cf, key, &now);
    if (!b.ok() && !b.IsNotFound()) return FromRocks(b, "read latest");
    if (a.IsNotFound() || b.IsNotFound()) return a.IsNotFound() == b.IsNotFound();
    return then == now;
  }

  // Takes one write: holds the key (WriteConflict when another transaction does, or when it
  // changed since the snapshot) and lays it over the snapshot.
  Status Take(const Transaction* self, uint32_t cf_id, const rocksdb::Slice& key,
              std::optional<std::string> value) {
    Overlay* overlay = OverlayOf(cf_id);
    if (overlay == nullptr) {
      return Status(ErrorCode::kInternalError, "a transaction wrote outside documents and indexes");
    }
    std::string full = key.ToString();
    auto it = overlay->find(full);
    if (it == overlay->end()) {
      std::string lock_key(1, static_cast<char>(overlay == &documents ? 'd' : 'i'));
      lock_key.append(full);
      {
        MutexLock lock(&engine->txn_locks_mu);
        auto [slot, inserted] = engine->txn_locks.emplace(lock_key, self);
        if (!inserted && slot->second != self) return WriteConflict();
      }
      held.push_back(std::move(lock_key));
      CAIRN_ASSIGN_OR_RETURN(bool unchanged, Unchanged(Family(overlay), full));
      if (!unchanged) return WriteConflict();
      bytes += full.size();
      it = overlay->emplace(std::move(full), std::nullopt).first;
    }
    if (value) bytes += value->size();
    it->second = std::move(value);
    return Status::OK();
  }

  // A point read: the overlay's entry, else the snapshot's.
  Status Get(const Overlay& overlay, rocksdb::ColumnFamilyHandle* cf, const std::string& key,
             std::string* out, bool* found) const {
    if (auto it = overlay.find(key); it != overlay.end()) {
      *found = it->second.has_value();
      if (*found) *out = *it->second;
      return Status::OK();
    }
    rocksdb::Status s = engine->db->Get(read_options, cf, key, out);
    *found = s.ok();
    if (s.IsNotFound()) return Status::OK();
    return FromRocks(s, "transaction read");
  }
};

std::unique_ptr<Transaction> Engine::BeginTransaction() {
  auto impl = std::make_unique<Transaction::Impl>();
  impl->engine = impl_.get();
  impl->snapshot = impl_->db->GetSnapshot();
  impl->read_options = impl_->ScanReadOptions();
  impl->read_options.snapshot = impl->snapshot;
  return std::unique_ptr<Transaction>(new Transaction(std::move(impl)));
}

Transaction::Transaction(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Transaction::~Transaction() {
  {
    MutexLock lock(&impl_->engine->txn_locks_mu);
    for (const std::string& key : impl_->held) {
      auto it = impl_->engine->txn_locks.find(key);
      if (it != impl_->engine->txn_locks.end() && it->second == this) {
        impl_->engine->txn_locks.erase(it);
      }
    }
  }
  impl_->engine->db->ReleaseSnapshot(impl_->snapshot);
}

const Catalog& Transaction::catalog() const { return *impl_->engine->catalog; }

Status Transaction::GetRecord(Prefix collection, RecordId id, std::string* out, bool* found) const {
  return impl_->Get(impl_->documents, impl_->engine->documents_cf, RecordKey(collection, id), out,
                    found);
}

Status Transaction::GetIndexEntry(Prefix index, std::string_view key, std::string* value,
                                  bool* found) const {
  return impl_->Get(impl_->index, impl_->engine->index_cf, IndexKey(index, key), value, found);
}

Status Transaction::IndexEntriesExist(Prefix index, const std::vector<std::string_view>& keys,
                                      std::vector<bool>* exist) const {
  exist->assign(keys.size(), false);
  std::vector<size_t> asked;
  std::vector<std::string> full;
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string key = IndexKey(index, keys[i]);
    if (auto it = impl_->index.find(key); it != impl_->index.end()) {
      (*exist)[i] = it->second.has_value();
      continue;
    }
    asked.push_back(i);
    full.push_back(std::move(key));
  }
  std::vector<bool> found;
  CAIRN_RETURN_IF_ERROR(impl_->engine->MultiExist(impl_->read_options, full, &found));
  for (size_t j = 0; j < asked.size(); ++j) (*exist)[asked[j]] = found[j];
  return Status::OK();
}

std::unique_ptr<RecordCursor> Transaction::NewRecordCursor(Prefix collection, RecordId from,
                                                           bool reverse) const {
  return impl_->engine->MakeRecordCursor(impl_->read_options, &impl_->documents, collection, from,
                                         reverse);
}

std::unique_ptr<IndexCursor> Transaction::NewIndexCursor(Prefix index, std::string_view start,
                                                         std::string_view end, bool reverse) const {
  return impl_->engine->MakeIndexCursor(impl_->read_options, &impl_->index, index, start, end,
                                        reverse);
}

Status Transaction::Apply(WriteUnit& unit) {
  WriteUnit::Impl& writes = *unit.impl_;
  writes.FlushIndexOps();
  // The batch's operations, in order (a later one on a key replaces an earlier one).
  struct Taker final : rocksdb::WriteBatch::Handler {
    Transaction* self;
    Status status;
    rocksdb::Status PutCF(uint32_t cf, const rocksdb::Slice& key,
                          const rocksdb::Slice& value) override {
      if (status.ok()) status = self->impl_->Take(self, cf, key, value.ToString());
      return rocksdb::Status::OK();
    }
    rocksdb::Status DeleteCF(uint32_t cf, const rocksdb::Slice& key) override {
      if (status.ok()) status = self->impl_->Take(self, cf, key, std::nullopt);
      return rocksdb::Status::OK();
    }
  } taker;
  taker.self = this;
  Status status = FromRocks(writes.batch.Iterate(&taker), "take a statement's writes");
  if (status.ok()) status = taker.status;
  if (status.ok()) {
    for (const WriteUnit::Impl::CountDelta& d : writes.deltas) {
      bool merged = false;
      for (WriteUnit::Impl::CountDelta& mine : impl_->deltas) {
        if (mine.prefix != d.prefix) continue;
        mine.count += d.count;
        mine.size += d.size;
        merged = true;
      }
      if (!merged) impl_->deltas.push_back(d);
    }
  }
  writes.batch.Clear();
  writes.deltas.clear();
  return status;
}

Status Transaction::Validate() const {
  for (const Overlay* overlay : {&impl_->documents, &impl_->index}) {
    for (const auto& entry : *overlay) {
      CAIRN_ASSIGN_OR_RETURN(bool unchanged, impl_->Unchanged(impl_->Family(overlay), entry.first));
      if (!unchanged) return WriteConflict();
    }
  }
  return Status::OK();
}

WriteUnit Transaction::TakeWrites() const {
  auto writes = std::make_unique<WriteUnit::Impl>();
  writes->engine = impl_->engine;
  // Each overlay is in key order: the memtable inserts a sorted run cheaply (write_unit.cc).
  for (const Overlay* overlay : {&impl_->documents, &impl_->index}) {
    rocksdb::ColumnFamilyHandle* cf = impl_->Family(overlay);
    for (const auto& [key, value] : *overlay) {
      if (value) {
        writes->batch.Put(cf, key, *value).PermitUncheckedError();
      } else {
        writes->batch.Delete(cf, key).PermitUncheckedError();
      }
    }
  }
  writes->deltas = impl_->deltas;
  return WriteUnit(std::move(writes));
}

bool Transaction::empty() const {
  return impl_->documents.empty() && impl_->index.empty() && impl_->deltas.empty();
}

size_t Transaction::ApproximateBytes() const { return impl_->bytes; }

}  // namespace cairn::storage
