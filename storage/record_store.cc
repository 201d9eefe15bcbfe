// Records: reads of the "documents" column family (point Get, forward and reverse cursors) and
// the RecordId encoding. Writes go through WriteUnit (write_unit.cc).
//
// Grammar (DO NOT CHANGE: on disk):
//   documents CF key   := collection_prefix:uint32 BE  record_id:int64 BE (always > 0)
//   documents CF value := the document's BSON bytes, unchanged
// So a collection's records are contiguous and ordered by RecordId (= insertion order).
#include <cassert>

#include "storage/engine_impl.h"

namespace cairn::storage {

std::string EncodeRecordId(RecordId id) {
  std::string s;
  AppendBigEndian64(&s, static_cast<uint64_t>(id));
  return s;
}

RecordId DecodeRecordId(std::string_view bytes) {
  assert(bytes.size() == 8);
  if (bytes.size() != 8) return 0;
  return static_cast<RecordId>(ReadBigEndian64(bytes.data()));
}

Status Engine::GetRecord(Prefix collection, RecordId id, std::string* out, bool* found) const {
  rocksdb::ReadOptions ro;
  ro.fill_cache = true;
  rocksdb::Status s = impl_->db->Get(ro, impl_->documents_cf, RecordKey(collection, id), out);
  *found = s.ok();
  if (s.IsNotFound()) return Status::OK();
  return FromRocks(s, "get record");
}

namespace {

// A cursor over [lower, upper) of the documents CF, forward or reverse. The bounds are owned
// here because ReadOptions keeps pointers to them for the iterator's lifetime.
class RocksRecordCursor final : public RecordCursor {
 public:
  RocksRecordCursor(const Engine::Impl& engine, const rocksdb::ReadOptions& ro,
                    const Overlay* overlay, std::string lower, std::string upper, bool reverse,
                    RecordId skip)
      : lower_(std::move(lower)), upper_(std::move(upper)), reverse_(reverse), skip_(skip) {
    lower_slice_ = rocksdb::Slice(lower_);
    upper_slice_ = rocksdb::Slice(upper_);
    it_ = engine.NewBoundedIterator(engine.documents_cf, ro, &lower_slice_, &upper_slice_, overlay);
  }

  bool Next() override {
    if (!started_) {
      started_ = true;
      if (reverse_) {
        it_->SeekToLast();
      } else {
        it_->SeekToFirst();
      }
    } else if (it_->Valid()) {
      Step();
    } else {
      return false;
    }
    // The forward lower bound is `after` itself (ids are > after): skip an exact match.
    if (skip_ != 0 && it_->Valid() && CurrentId() == skip_) Step();
    return it_->Valid();
  }

  RecordId id() const override { return CurrentId(); }

  BsonView value() const override {
    rocksdb::Slice v = it_->value();
    return BsonView(reinterpret_cast<const uint8_t*>(v.data()), v.size());
  }

  Status status() const override { return FromRocks(it_->status(), "scan records"); }

 private:
  void Step() {
    if (reverse_) {
      it_->Prev();
    } else {
      it_->Next();
    }
  }
  RecordId CurrentId() const {
    return static_cast<RecordId>(ReadBigEndian64(it_->key().data() + 4));
  }

  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  bool reverse_;
  RecordId skip_;
  bool started_ = false;
  std::unique_ptr<rocksdb::Iterator> it_;
};

}  // namespace

std::unique_ptr<RecordCursor> Engine::Impl::MakeRecordCursor(const rocksdb::ReadOptions& ro,
                                                             const Overlay* overlay,
                                                             Prefix collection, RecordId from,
                                                             bool reverse) const {
  if (reverse) {
    // The upper bound is exclusive, so `from` itself is never returned.
    std::string upper = from > 0 ? RecordKey(collection, from) : PrefixEnd(collection);
    return std::make_unique<RocksRecordCursor>(*this, ro, overlay, EncodePrefix(collection),
                                               std::move(upper), /*reverse=*/true, 0);
  }
  std::string lower = from > 0 ? RecordKey(collection, from) : EncodePrefix(collection);
  return std::make_unique<RocksRecordCursor>(*this, ro, overlay, std::move(lower),
                                             PrefixEnd(collection), /*reverse=*/false,
                                             from > 0 ? from : 0);
}

std::unique_ptr<RecordCursor> Engine::NewRecordCursor(Prefix collection, RecordId from,
                                                      bool reverse) const {
  return impl_->MakeRecordCursor(impl_->ScanReadOptions(), nullptr, collection, from, reverse);
}

}  // namespace cairn::storage
