// OverlayIterator (storage-private): a RocksDB iterator over a snapshot with a transaction's own
// writes laid over it. The writes are a sorted copy of the transaction's overlay within the
// iterator's bounds, taken when the iterator is made, so the iterator reads one fixed state, as
// an iterator over a snapshot does, however the transaction writes afterwards (a multi-update
// scanning a collection never meets its own writes). A write shadows the snapshot's entry of
// the same key; a delete (no value) hides it.
#pragma once

#include <rocksdb/iterator.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cairn::storage {

// A transaction's writes to one column family: full key → value (nullopt: deleted).
using Overlay = std::map<std::string, std::optional<std::string>, std::less<>>;

class OverlayIterator final : public rocksdb::Iterator {
 public:
  // `base` reads the snapshot within [lower, upper); the overlay's entries in that range are
  // copied.
  OverlayIterator(std::unique_ptr<rocksdb::Iterator> base, const Overlay& overlay,
                  const std::string& lower, const std::string& upper);

  bool Valid() const override { return current_ != Source::kNone; }
  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(const rocksdb::Slice& target) override;
  void SeekForPrev(const rocksdb::Slice& target) override;
  void Next() override;
  void Prev() override;
  rocksdb::Slice key() const override;
  rocksdb::Slice value() const override;
  rocksdb::Status status() const override { return base_->status(); }

 private:
  enum class Source { kNone, kBase, kDelta };
  // Picks the current entry at or after (forward) / at or before (reverse) both positions,
  // skipping deletes and the snapshot entries the overlay shadows.
  void SettleForward();
  void SettleReverse();
  bool DeltaValid() const { return delta_pos_ >= 0 && delta_pos_ < Size(); }
  ptrdiff_t Size() const { return static_cast<ptrdiff_t>(delta_.size()); }
  const std::pair<std::string, std::optional<std::string>>& Delta() const {
    return delta_[static_cast<size_t>(delta_pos_)];
  }

  std::unique_ptr<rocksdb::Iterator> base_;
  std::vector<std::pair<std::string, std::optional<std::string>>> delta_;
  ptrdiff_t delta_pos_ = 0;
  bool forward_ = true;
  Source current_ = Source::kNone;
};

}  // namespace cairn::storage
