// SortStream: an in-memory top-k heap, or a full sort through query::ExternalSorter (sorted runs
// spilled under the spill directory past the memory limit and merged back; see sort_stream.h).
#include "server/exec/sort_stream.h"

#include <algorithm>
#include <cstdint>
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
  std::string entry;  // returnKey: the index entry it was read through (SortValue's layout)
  BsonView view() const {
    return BsonView(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
};

// The ExternalSorter's run files ("extsort-<pid>-<n>", external_sorter.h).
constexpr const char* kRunFilePrefix = "extsort-";

std::string_view RecordIdBytes(const storage::RecordId& id) {
  return std::string_view(reinterpret_cast<const char*>(&id), sizeof id);
}

// A sorted row's index entry (returnKey): the key pattern's address, then the key bytes. The
// pattern belongs to the child's plan, which lives as long as this stream.
std::string EntryBytes(const IndexKeyRef& key) {
  auto address = reinterpret_cast<std::uintptr_t>(key.pattern);
  std::string out(reinterpret_cast<const char*>(&address), sizeof address);
  out.append(key.bytes);
  return out;
}

IndexKeyRef EntryOf(std::string_view bytes) {
  IndexKeyRef key;
  std::uintptr_t address = 0;
  if (bytes.size() < sizeof address) return key;
  std::memcpy(&address, bytes.data(), sizeof address);
  key.pattern = reinterpret_cast<decltype(key.pattern)>(address);
  key.bytes = bytes.substr(sizeof address);
  return key;
}

class SortStream final : public DocumentStream {
 public:
  SortStream(std::unique_ptr<DocumentStream> child, std::shared_ptr<const query::SortPattern> sort,
             int64_t keep, std::string spill_dir, int64_t memory_limit, bool keep_index_keys)
      : DocumentStream(StageType::kSort),
        child_(std::move(child)),
        sort_(std::move(sort)),
        keep_(keep),
        spill_dir_(std::move(spill_dir)),
        memory_limit_(memory_limit),
        keep_index_keys_(keep_index_keys) {}

  bool Next() override {
    // A top-k sort returns its first `keep_` rows only (also when its rows outgrew memory and
    // went to the full sort).
    if (keep_ > 0 && counters_.returned >= keep_) return false;
    if (!Advance()) return false;
    ++counters_.returned;
    return true;
  }
  BsonView document() const override {
    return sorter_ != nullptr ? sorter_->key() : rows_[position_].view();
  }
  storage::RecordId record_id() const override {
    return sorter_ != nullptr ? current_id_ : rows_[position_].id;
  }
  Status status() const override { return status_; }
  IndexKeyRef index_key() const override {
    if (!keep_index_keys_) return IndexKeyRef();
    if (sorter_ != nullptr) return EntryOf(sorter_->value().substr(sizeof current_id_));
    return EntryOf(rows_[position_].entry);
  }
  void AppendPlanFields(bson_t* out) const override {
    BsonDoc pattern;
    for (const query::SortPattern::Key& key : sort_->keys()) {
      if (key.text_score) {
        bson_t meta;
        BSON_APPEND_DOCUMENT_BEGIN(pattern.get(), key.path.c_str(), &meta);
        BSON_APPEND_UTF8(&meta, "$meta", "textScore");
        bson_append_document_end(pattern.get(), &meta);
        continue;
      }
      BSON_APPEND_INT32(pattern.get(), key.path.c_str(), key.descending ? -1 : 1);
    }
    BSON_APPEND_DOCUMENT(out, "sortPattern", pattern.get());
    AppendCount(out, "memLimit", memory_limit_);
    if (keep_ > 0) AppendCount(out, "limitAmount", keep_);
    AppendUtf8(out, "type", "simple");
  }
  size_t input_count() const override { return 1; }
  const PlanStage* input(size_t) const override { return child_.get(); }

 private:
  bool Advance() {
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

  // The sorter's value for the child's current row: its RecordId (and, for returnKey, its
  // index entry).
  std::string_view SortValue(storage::RecordId* id_holder, std::string* scratch) const {
    *id_holder = child_->record_id();
    if (!keep_index_keys_) return RecordIdBytes(*id_holder);
    scratch->assign(RecordIdBytes(*id_holder));
    scratch->append(EntryBytes(child_->index_key()));
    return *scratch;
  }
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
    storage::RecordId id = 0;
    std::string value;
    while (child_->Next()) {
      status_ = sorter_->Add(child_->document(), SortValue(&id, &value));
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
              std::string(reinterpret_cast<const char*>(doc.data()), doc.size()),
              keep_index_keys_ ? EntryBytes(child_->index_key()) : std::string()};
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
          std::string value(RecordIdBytes(kept.id));
          value.append(kept.entry);
          status_ = sorter_->Add(kept.view(), value);
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
  bool keep_index_keys_;
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
                                               int64_t memory_limit, bool keep_index_keys) {
  return std::make_unique<SortStream>(std::move(child), std::move(sort), keep, std::move(spill_dir),
                                      memory_limit, keep_index_keys);
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
