// WriteUnit: one client write gathered in a RocksDB WriteBatch (documents, index entries and
// counter updates) and committed with a single db->Write, so it applies entirely or not at all.
// Counter values are computed, written and published under Engine::Impl::commit_mu.
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "storage/engine_impl.h"

namespace cairn::storage {

struct WriteUnit::Impl {
  struct CountDelta {
    Prefix prefix;
    int64_t count;
    int64_t size;
  };
  // An index entry put or delete, its key and value held in `index_bytes`. Index entries are
  // added to the batch in key order at commit: RocksDB's memtable skiplist reuses its last
  // insert position for a following nearby key, so a sorted run of keys (random secondary-index
  // keys above all) costs a fraction of the same keys in document order. Measured with
  // tools/bench insert and one index on a random field: most of the write time was the
  // memtable's search for each key's position.
  struct IndexOp {
    uint32_t key_offset, key_size, value_offset, value_size;
    bool is_delete;
  };

  Engine::Impl* engine = nullptr;
  rocksdb::WriteBatch batch;
  std::vector<CountDelta> deltas;  // one per collection; a unit rarely touches more than one
  std::string index_bytes;
  std::vector<IndexOp> index_ops;

  std::string_view Bytes(uint32_t offset, uint32_t size) const {
    return std::string_view(index_bytes).substr(offset, size);
  }
  void AddIndexOp(const std::string& key, std::string_view value, bool is_delete) {
    IndexOp op;
    op.key_offset = static_cast<uint32_t>(index_bytes.size());
    op.key_size = static_cast<uint32_t>(key.size());
    index_bytes.append(key);
    op.value_offset = static_cast<uint32_t>(index_bytes.size());
    op.value_size = static_cast<uint32_t>(value.size());
    index_bytes.append(value);
    op.is_delete = is_delete;
    index_ops.push_back(op);
  }
  // Moves the index operations into the batch in key order (stable: operations on one key keep
  // their order, so the batch's outcome is the same as in document order).
  void FlushIndexOps() {
    if (index_ops.empty()) return;
    std::stable_sort(index_ops.begin(), index_ops.end(),
                     [this](const IndexOp& a, const IndexOp& b) {
                       return Bytes(a.key_offset, a.key_size) < Bytes(b.key_offset, b.key_size);
                     });
    for (const IndexOp& op : index_ops) {
      std::string_view key = Bytes(op.key_offset, op.key_size);
      rocksdb::Slice k(key.data(), key.size());
      if (op.is_delete) {
        batch.Delete(engine->index_cf, k).PermitUncheckedError();
      } else {
        std::string_view value = Bytes(op.value_offset, op.value_size);
        batch.Put(engine->index_cf, k, rocksdb::Slice(value.data(), value.size()))
            .PermitUncheckedError();
      }
    }
    index_ops.clear();
    index_bytes.clear();
  }
};

WriteUnit::WriteUnit(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
WriteUnit::WriteUnit(WriteUnit&&) noexcept = default;
WriteUnit& WriteUnit::operator=(WriteUnit&&) noexcept = default;
WriteUnit::~WriteUnit() = default;

WriteUnit Engine::BeginWrite() {
  auto impl = std::make_unique<WriteUnit::Impl>();
  impl->engine = impl_.get();
  return WriteUnit(std::move(impl));
}

void WriteUnit::PutRecord(Prefix collection, RecordId id, BsonView document) {
  impl_->batch
      .Put(impl_->engine->documents_cf, RecordKey(collection, id),
           rocksdb::Slice(reinterpret_cast<const char*>(document.data()), document.size()))
      .PermitUncheckedError();
}

void WriteUnit::DeleteRecord(Prefix collection, RecordId id) {
  impl_->batch.Delete(impl_->engine->documents_cf, RecordKey(collection, id))
      .PermitUncheckedError();
}

void WriteUnit::PutIndexEntry(Prefix index, std::string_view key, std::string_view value) {
  impl_->AddIndexOp(IndexKey(index, key), value, /*is_delete=*/false);
}

void WriteUnit::DeleteIndexEntry(Prefix index, std::string_view key) {
  impl_->AddIndexOp(IndexKey(index, key), std::string_view(), /*is_delete=*/true);
}

void WriteUnit::AdjustCounts(Prefix collection, int64_t count_delta, int64_t size_delta) {
  for (Impl::CountDelta& d : impl_->deltas) {
    if (d.prefix == collection) {
      d.count += count_delta;
      d.size += size_delta;
      return;
    }
  }
  impl_->deltas.push_back({collection, count_delta, size_delta});
}

void WriteUnit::PendingCounts(Prefix collection, int64_t* count_delta, int64_t* size_delta) const {
  *count_delta = 0;
  *size_delta = 0;
  for (const Impl::CountDelta& d : impl_->deltas) {
    if (d.prefix == collection) {
      *count_delta = d.count;
      *size_delta = d.size;
      return;
    }
  }
}

bool WriteUnit::empty() const {
  return impl_->batch.Count() == 0 && impl_->deltas.empty() && impl_->index_ops.empty();
}

size_t WriteUnit::ApproximateBytes() const {
  return impl_->batch.GetDataSize() + impl_->index_bytes.size() + 16 * impl_->index_ops.size();
}

Status WriteUnit::Commit() { return CommitDropping({}); }

rocksdb::WriteBatch* WriteUnit::batch() {
  impl_->FlushIndexOps();
  return &impl_->batch;
}

Status WriteUnit::CommitDropping(const std::vector<CollectionState*>& dropped) {
  Engine::Impl* e = impl_->engine;
  Status result;
  impl_->FlushIndexOps();
  if (impl_->deltas.empty() && dropped.empty()) {
    if (impl_->batch.Count() > 0) {
      result = FromRocks(e->db->Write(e->write_options, &impl_->batch), "write");
    }
  } else {
    struct Publish {
      CollectionState* state;
      int64_t count;
      int64_t size;
    };
    std::vector<Publish> publish;
    // Counters are read, written and published under the commit mutex; so are drops, so that no
    // unit re-creates a dropped collection's counters afterwards.
    MutexLock lock(&e->commit_mu);
    for (const Impl::CountDelta& d : impl_->deltas) {
      CollectionState* st = e->GetOrCreateState(d.prefix);
      if (st->dropped) continue;  // dropped meanwhile: its counter key must stay deleted
      int64_t count = st->count.load(std::memory_order_relaxed) + d.count;
      int64_t size = st->data_size.load(std::memory_order_relaxed) + d.size;
      impl_->batch.Put(e->catalog_cf, CountsKey(d.prefix), EncodeCounts(count, size))
          .PermitUncheckedError();
      publish.push_back({st, count, size});
    }
    result = FromRocks(e->db->Write(e->write_options, &impl_->batch), "write");
    if (result.ok()) {
      for (const Publish& p : publish) {
        p.state->count.store(p.count, std::memory_order_release);
        p.state->data_size.store(p.size, std::memory_order_release);
      }
      for (CollectionState* st : dropped) {
        st->dropped = true;
        st->count.store(0);
        st->data_size.store(0);
      }
    }
  }
  impl_->batch.Clear();
  impl_->deltas.clear();
  impl_->index_ops.clear();
  impl_->index_bytes.clear();
  return result;
}

}  // namespace cairn::storage
