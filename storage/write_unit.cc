// WriteUnit: one client write gathered in a RocksDB WriteBatch (documents, index entries and
// counter updates) and committed with a single db->Write, so it applies entirely or not at all.
// Counter values are computed, written and published under Engine::Impl::commit_mu.
#include "common/mutex.h"
#include "storage/engine_impl.h"

namespace cairn::storage {

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
