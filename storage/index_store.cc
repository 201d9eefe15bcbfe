// Index entries: reads of the "index" column family (point Get and range cursors). The key and
// value bytes are opaque here (index/key_string and the server give them meaning). Writes go
// through WriteUnit (write_unit.cc).
//
// Grammar (DO NOT CHANGE: on disk):
//   index CF key   := index_prefix:uint32 BE  key_bytes (opaque, ordered by memcmp)
//   index CF value := value_bytes (opaque; the _id index stores EncodeRecordId(id), 8 BE)
#include <algorithm>

#include "storage/engine_impl.h"

namespace cairn::storage {

Status Engine::IndexEntriesExist(Prefix index, const std::vector<std::string_view>& keys,
                                 std::vector<bool>* exist) const {
  std::vector<std::string> full;
  full.reserve(keys.size());
  for (std::string_view key : keys) full.push_back(IndexKey(index, key));
  rocksdb::ReadOptions ro;
  ro.fill_cache = true;
  return impl_->MultiExist(ro, full, exist);
}

Status Engine::Impl::MultiExist(const rocksdb::ReadOptions& ro,
                                const std::vector<std::string>& full,
                                std::vector<bool>* exist) const {
  exist->assign(full.size(), false);
  if (full.empty()) return Status::OK();
  std::vector<rocksdb::Slice> slices(full.begin(), full.end());
  std::vector<rocksdb::PinnableSlice> values(full.size());
  std::vector<rocksdb::Status> statuses(full.size());
  // MultiGet sorts its keys unless told they are sorted, and that sort (a comparator call
  // through the column family per comparison) was ~3% of an insert of 1,000 documents whose
  // _ids ascend, as generated ones do. std::string orders bytes as unsigned, as the index CF's
  // bytewise comparator does.
  const bool sorted = std::is_sorted(full.begin(), full.end());
  db->MultiGet(ro, index_cf, full.size(), slices.data(), values.data(), statuses.data(), sorted);
  for (size_t i = 0; i < full.size(); ++i) {
    if (statuses[i].ok()) {
      (*exist)[i] = true;
    } else if (!statuses[i].IsNotFound()) {
      return FromRocks(statuses[i], "multi-get index entries");
    }
  }
  return Status::OK();
}

Status Engine::LargestIndexKey(Prefix index, std::string* key, bool* found) const {
  std::string full;
  CAIRN_RETURN_IF_ERROR(impl_->LastKeyInPrefix(impl_->index_cf, index, &full, found));
  if (*found) key->assign(full, kPrefixSize, std::string::npos);
  return Status::OK();
}

Status Engine::GetIndexEntry(Prefix index, std::string_view key, std::string* value,
                             bool* found) const {
  rocksdb::ReadOptions ro;
  ro.fill_cache = true;
  rocksdb::Status s = impl_->db->Get(ro, impl_->index_cf, IndexKey(index, key), value);
  *found = s.ok();
  if (s.IsNotFound()) return Status::OK();
  return FromRocks(s, "get index entry");
}

namespace {

// A cursor over [lower, upper) of the index CF, forward or reverse; key() strips the 4-byte
// prefix.
class RocksIndexCursor final : public IndexCursor {
 public:
  RocksIndexCursor(const Engine::Impl& engine, const rocksdb::ReadOptions& ro,
                   const Overlay* overlay, Prefix index, std::string lower, std::string upper,
                   bool reverse)
      : prefix_(EncodePrefix(index)),
        lower_(std::move(lower)),
        upper_(std::move(upper)),
        reverse_(reverse) {
    lower_slice_ = rocksdb::Slice(lower_);
    upper_slice_ = rocksdb::Slice(upper_);
    it_ = engine.NewBoundedIterator(engine.index_cf, ro, &lower_slice_, &upper_slice_, overlay);
  }

  bool Next() override {
    if (!started_) {
      started_ = true;
      if (reverse_) {
        it_->SeekToLast();
      } else {
        it_->SeekToFirst();
      }
    } else if (pending_seek_) {
      pending_seek_ = false;
      PositionAtTarget();
    } else if (it_->Valid()) {
      if (reverse_) {
        it_->Prev();
      } else {
        it_->Next();
      }
    } else {
      return false;
    }
    return it_->Valid();
  }

  void Seek(std::string_view target) override {
    started_ = true;
    pending_seek_ = true;
    target_ = prefix_;
    target_.append(target);
  }

  std::string_view key() const override {
    rocksdb::Slice k = it_->key();
    return std::string_view(k.data() + 4, k.size() - 4);
  }
  std::string_view value() const override {
    rocksdb::Slice v = it_->value();
    return std::string_view(v.data(), v.size());
  }
  Status status() const override { return FromRocks(it_->status(), "scan index"); }

 private:
  void PositionAtTarget() {
    if (!reverse_) {
      it_->Seek(target_);
      return;
    }
    // The last entry strictly below the target.
    it_->SeekForPrev(target_);
    if (it_->Valid() && it_->key() == rocksdb::Slice(target_)) it_->Prev();
  }

  std::string prefix_;
  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  bool reverse_;
  bool started_ = false;
  bool pending_seek_ = false;
  std::string target_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

}  // namespace

std::unique_ptr<IndexCursor> Engine::Impl::MakeIndexCursor(const rocksdb::ReadOptions& ro,
                                                           const Overlay* overlay, Prefix index,
                                                           std::string_view start,
                                                           std::string_view end,
                                                           bool reverse) const {
  std::string upper = end.empty() ? PrefixEnd(index) : IndexKey(index, end);
  return std::make_unique<RocksIndexCursor>(*this, ro, overlay, index, IndexKey(index, start),
                                            std::move(upper), reverse);
}

std::unique_ptr<IndexCursor> Engine::NewIndexCursor(Prefix index, std::string_view start,
                                                    std::string_view end, bool reverse) const {
  return impl_->MakeIndexCursor(impl_->ScanReadOptions(), nullptr, index, start, end, reverse);
}

}  // namespace cairn::storage
