// SortStream: an in-memory top-k heap, or a full sort through query::ExternalSorter (sorted runs
// spilled under the spill directory past the memory limit and merged back; see sort_stream.h).
#include "server/exec/sort_stream.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <vector>

#include "query/sort/external_sorter.h"

namespace cairn::server {

namespace {

// A document of the top-k heap: its bytes in a plain buffer (a BsonDoc would cost an
// over-aligned bson_t allocation per document), and its RecordId (ties keep insertion order).
struct Row {
  storage::RecordId id = 0;
  std::string bytes;
  BsonView view() const {
    return BsonView(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
};

// The ExternalSorter's run files ("extsort-<pid>-<n>", external_sorter.h).
constexpr const char* kRunFilePrefix = "extsort-";

std::string_view RecordIdBytes(const storage::RecordId& id) {
  return std::string_view(reinterpret_cast<const char*>(&id), sizeof id);
}

class SortStream final : public DocumentStream {
 public:
  SortStream(std::unique_ptr<DocumentStream> child, std::shared_ptr<const query::SortPattern> sort,
             int64_t keep, std::string spill_dir, int64_t memory_limit)
      : child_(std::move(child)),
        sort_(std::move(sort)),
        keep_(keep),
        spill_dir_(std::move(spill_dir)),
        memory_limit_(memory_limit) {}

  bool Next() override {
    if (!sorted_) {
      sorted_ = true;
      if (!Fill()) {
        rows_.clear();
        sorter_.reset();
        return false;
      }
    } else if (sorter_ == nullptr) {
      ++position_;
    }
    if (sorter_ != nullptr) {
      if (!sorter_->Next()) {
        status_ = sorter_->status();
        return false;
      }
      std::memcpy(&current_id_, sorter_->value().data(), sizeof current_id_);
      return true;
    }
    return position_ < rows_.size();
  }
  BsonView document() const override {
    return sorter_ != nullptr ? sorter_->key() : rows_[position_].view();
  }
  storage::RecordId record_id() const override {
    return sorter_ != nullptr ? current_id_ : rows_[position_].id;
  }
  Status status() const override { return status_; }
  int64_t docs_examined() const override { return child_->docs_examined(); }

 private:
  bool Less(const Row& a, const Row& b) const {
    int c = sort_->Compare(a.view(), b.view());
    return c != 0 ? c < 0 : a.id < b.id;  // stable: ties keep insertion order
  }

  Status MemoryExceeded() const {
    return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                  "Sort exceeded memory limit of " + std::to_string(memory_limit_) +
                      " bytes, but did not opt in to external sorting.");
  }

  void MakeSorter() {
    query::ExternalSorterOptions options;
    options.max_memory_bytes = memory_limit_;
    options.allow_disk_use = !spill_dir_.empty();
    options.spill_dir = spill_dir_;
    options.no_disk_use_message = MemoryExceeded().reason();
    const query::SortPattern* sort = sort_.get();
    sorter_ = std::make_unique<query::ExternalSorter>(
        [sort](BsonView a, BsonView b) { return sort->Compare(a, b); }, std::move(options));
  }

  bool Fill() {
    if (keep_ > 0) {
      if (!FillTopK()) return false;
      if (sorter_ == nullptr) return true;
    } else {
      MakeSorter();
    }
    // The full sort (or a top-k heap that outgrew the memory limit: the limit above this
    // stream still applies).
    while (child_->Next()) {
      status_ = sorter_->Add(child_->document(), RecordIdBytes(child_->record_id()));
      if (!status_.ok()) return false;
    }
    status_ = child_->status();
    if (status_.ok()) status_ = sorter_->Sort();
    return status_.ok();
  }

  // A max-heap of the best `keep_` rows: the worst kept row is on top. False on error; leaves
  // sorter_ set, holding the heap's rows, when they outgrew the memory limit.
  bool FillTopK() {
    auto less = [this](const Row& a, const Row& b) { return Less(a, b); };
    int64_t bytes = 0;
    while (child_->Next()) {
      BsonView doc = child_->document();
      Row row{child_->record_id(),
              std::string(reinterpret_cast<const char*>(doc.data()), doc.size())};
      if (static_cast<int64_t>(rows_.size()) < keep_) {
        bytes += static_cast<int64_t>(row.bytes.size());
        rows_.push_back(std::move(row));
        std::push_heap(rows_.begin(), rows_.end(), less);
      } else if (Less(row, rows_.front())) {
        bytes += static_cast<int64_t>(row.bytes.size()) -
                 static_cast<int64_t>(rows_.front().bytes.size());
        std::pop_heap(rows_.begin(), rows_.end(), less);
        rows_.back() = std::move(row);
        std::push_heap(rows_.begin(), rows_.end(), less);
      }
      if (bytes > memory_limit_) {
        if (spill_dir_.empty()) {
          status_ = MemoryExceeded();
          return false;
        }
        // The kept rows go to the external sorter, in RecordId order so ties keep it.
        std::sort(rows_.begin(), rows_.end(),
                  [](const Row& a, const Row& b) { return a.id < b.id; });
        MakeSorter();
        for (const Row& kept : rows_) {
          status_ = sorter_->Add(kept.view(), RecordIdBytes(kept.id));
          if (!status_.ok()) return false;
        }
        rows_.clear();
        return true;
      }
    }
    status_ = child_->status();
    if (!status_.ok()) return false;
    std::sort_heap(rows_.begin(), rows_.end(), less);
    return true;
  }

  std::unique_ptr<DocumentStream> child_;
  std::shared_ptr<const query::SortPattern> sort_;
  int64_t keep_;
  std::string spill_dir_;
  int64_t memory_limit_;
  std::vector<Row> rows_;  // the top-k heap, then its rows in order
  size_t position_ = 0;
  bool sorted_ = false;
  Status status_;
  std::unique_ptr<query::ExternalSorter> sorter_;  // the full sort
  storage::RecordId current_id_ = 0;
};

}  // namespace

std::unique_ptr<DocumentStream> MakeSortStream(std::unique_ptr<DocumentStream> child,
                                               std::shared_ptr<const query::SortPattern> sort,
                                               int64_t keep, std::string spill_dir,
                                               int64_t memory_limit) {
  return std::make_unique<SortStream>(std::move(child), std::move(sort), keep, std::move(spill_dir),
                                      memory_limit);
}

void RemoveStaleSpillFiles(const std::string& spill_dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(spill_dir, ec)) {
    if (entry.path().filename().string().rfind(kRunFilePrefix, 0) == 0) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
}

}  // namespace cairn::server
