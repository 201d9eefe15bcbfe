// OverlayIterator: the merge of a snapshot iterator and a transaction's sorted writes.
#include "storage/overlay_iterator.h"

#include <algorithm>

namespace cairn::storage {

namespace {

int Compare(const rocksdb::Slice& a, const std::string& b) { return a.compare(rocksdb::Slice(b)); }

}  // namespace

OverlayIterator::OverlayIterator(std::unique_ptr<rocksdb::Iterator> base, const Overlay& overlay,
                                 const std::string& lower, const std::string& upper)
    : base_(std::move(base)) {
  auto it = overlay.lower_bound(lower);
  auto end = overlay.lower_bound(upper);
  for (; it != end; ++it) delta_.emplace_back(it->first, it->second);
}

void OverlayIterator::SeekToFirst() {
  forward_ = true;
  base_->SeekToFirst();
  delta_pos_ = 0;
  SettleForward();
}

void OverlayIterator::SeekToLast() {
  forward_ = false;
  base_->SeekToLast();
  delta_pos_ = Size() - 1;
  SettleReverse();
}

void OverlayIterator::Seek(const rocksdb::Slice& target) {
  forward_ = true;
  base_->Seek(target);
  auto it = std::lower_bound(
      delta_.begin(), delta_.end(), target,
      [](const auto& entry, const rocksdb::Slice& t) { return Compare(t, entry.first) > 0; });
  delta_pos_ = it - delta_.begin();
  SettleForward();
}

void OverlayIterator::SeekForPrev(const rocksdb::Slice& target) {
  forward_ = false;
  base_->SeekForPrev(target);
  // The last entry <= target.
  auto it = std::upper_bound(
      delta_.begin(), delta_.end(), target,
      [](const rocksdb::Slice& t, const auto& entry) { return Compare(t, entry.first) < 0; });
  delta_pos_ = (it - delta_.begin()) - 1;
  SettleReverse();
}

void OverlayIterator::Next() {
  if (!forward_) {  // turn around: reposition both sources after the current key
    std::string at = key().ToString();
    Seek(at);
    if (Valid() && key() == rocksdb::Slice(at)) Next();
    return;
  }
  if (current_ == Source::kBase) {
    base_->Next();
  } else {
    ++delta_pos_;
  }
  SettleForward();
}

void OverlayIterator::Prev() {
  if (forward_) {
    std::string at = key().ToString();
    SeekForPrev(at);
    if (Valid() && key() == rocksdb::Slice(at)) Prev();
    return;
  }
  if (current_ == Source::kBase) {
    base_->Prev();
  } else {
    --delta_pos_;
  }
  SettleReverse();
}

void OverlayIterator::SettleForward() {
  for (;;) {
    const bool base_valid = base_->Valid();
    if (!DeltaValid()) {
      current_ = base_valid ? Source::kBase : Source::kNone;
      return;
    }
    const int order = base_valid ? Compare(base_->key(), Delta().first) : 1;
    if (order < 0) {
      current_ = Source::kBase;
      return;
    }
    if (order == 0) base_->Next();  // shadowed by the transaction's write
    if (Delta().second.has_value()) {
      current_ = Source::kDelta;
      return;
    }
    ++delta_pos_;  // a delete
  }
}

void OverlayIterator::SettleReverse() {
  for (;;) {
    const bool base_valid = base_->Valid();
    if (!DeltaValid()) {
      current_ = base_valid ? Source::kBase : Source::kNone;
      return;
    }
    const int order = base_valid ? Compare(base_->key(), Delta().first) : -1;
    if (order > 0) {
      current_ = Source::kBase;
      return;
    }
    if (order == 0) base_->Prev();
    if (Delta().second.has_value()) {
      current_ = Source::kDelta;
      return;
    }
    --delta_pos_;
  }
}

rocksdb::Slice OverlayIterator::key() const {
  return current_ == Source::kBase ? base_->key() : rocksdb::Slice(Delta().first);
}

rocksdb::Slice OverlayIterator::value() const {
  return current_ == Source::kBase ? base_->value() : rocksdb::Slice(*Delta().second);
}

}  // namespace cairn::storage
