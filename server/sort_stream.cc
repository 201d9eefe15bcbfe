// SortStream: in-memory top-k / full sort, with sorted runs spilled to files past the memory
// limit and merged back (see sort_stream.h).
#include "server/sort_stream.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <queue>
#include <vector>

namespace cairn::server {

namespace {

// A kept document: its bytes in a plain buffer (a BsonDoc would cost an over-aligned bson_t
// allocation per document), and its RecordId (ties keep insertion order).
struct Row {
  storage::RecordId id = 0;
  std::string bytes;
  BsonView view() const {
    return BsonView(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
};

constexpr const char* kRunFilePrefix = "extsort-";

// One sorted run on disk: rows as [int64 RecordId][BSON document], read back sequentially.
class RunFile {
 public:
  static Result<std::unique_ptr<RunFile>> Write(const std::string& dir,
                                                const std::vector<Row>& rows) {
    static std::atomic<uint64_t> counter{0};
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::string path = dir + "/" + kRunFilePrefix + std::to_string(getpid()) + "-" +
                       std::to_string(counter.fetch_add(1));
    std::unique_ptr<RunFile> run(new RunFile(path));
    run->file_ = std::fopen(path.c_str(), "w+b");
    if (run->file_ == nullptr) {
      return Status(ErrorCode::kInternalError,
                    "cannot create a sort spill file " + path + ": " + std::strerror(errno));
    }
    for (const Row& row : rows) {
      if (std::fwrite(&row.id, sizeof row.id, 1, run->file_) != 1 ||
          std::fwrite(row.bytes.data(), 1, row.bytes.size(), run->file_) != row.bytes.size()) {
        return Status(ErrorCode::kInternalError,
                      "cannot write a sort spill file " + path + ": " + std::strerror(errno));
      }
    }
    if (std::fflush(run->file_) != 0 || std::fseek(run->file_, 0, SEEK_SET) != 0) {
      return Status(ErrorCode::kInternalError,
                    "cannot write a sort spill file " + path + ": " + std::strerror(errno));
    }
    return run;
  }

  ~RunFile() {
    if (file_ != nullptr) std::fclose(file_);
    std::remove(path_.c_str());
  }

  // Reads the next row into *row; false at the end (or on error: status()).
  bool Read(Row* row) {
    if (std::fread(&row->id, sizeof row->id, 1, file_) != 1) return false;
    uint32_t length;
    if (std::fread(&length, sizeof length, 1, file_) != 1 || length < 5) return Fail();
    row->bytes.resize(length);
    std::memcpy(row->bytes.data(), &length, sizeof length);
    size_t rest = length - sizeof length;
    if (std::fread(row->bytes.data() + sizeof length, 1, rest, file_) != rest) return Fail();
    return true;
  }
  const Status& status() const { return status_; }

 private:
  explicit RunFile(std::string path) : path_(std::move(path)) {}
  bool Fail() {
    status_ = Status(ErrorCode::kInternalError, "sort spill file " + path_ + " is truncated");
    return false;
  }
  std::string path_;
  std::FILE* file_ = nullptr;
  Status status_;
};

class SortStream final : public DocumentStream {
 public:
  SortStream(std::unique_ptr<DocumentStream> child, std::shared_ptr<const query::SortPattern> sort,
             int64_t keep, std::string spill_dir, int64_t memory_limit)
      : child_(std::move(child)), sort_(std::move(sort)), keep_(keep),
        spill_dir_(std::move(spill_dir)), memory_limit_(memory_limit) {}

  bool Next() override {
    if (!sorted_) {
      sorted_ = true;
      if (!Fill()) return false;
      if (!runs_.empty()) return StartMerge();
      return position_ < rows_.size();
    }
    if (!runs_.empty()) return NextMerged();
    ++position_;
    return position_ < rows_.size();
  }
  BsonView document() const override {
    return runs_.empty() ? rows_[position_].view() : heads_[current_].view();
  }
  storage::RecordId record_id() const override {
    return runs_.empty() ? rows_[position_].id : heads_[current_].id;
  }
  Status status() const override { return status_; }
  int64_t docs_examined() const override { return child_->docs_examined(); }

 private:
  bool Less(const Row& a, const Row& b) const {
    int c = sort_->Compare(a.view(), b.view());
    return c != 0 ? c < 0 : a.id < b.id;  // stable: ties keep insertion order
  }

  bool Fill() {
    auto less = [this](const Row& a, const Row& b) { return Less(a, b); };
    int64_t bytes = 0;
    bool top_k = keep_ > 0;
    while (child_->Next()) {
      BsonView doc = child_->document();
      Row row{child_->record_id(),
              std::string(reinterpret_cast<const char*>(doc.data()), doc.size())};
      if (top_k) {
        // A max-heap of the best `keep_` rows: the worst kept row is on top.
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
      } else {
        bytes += static_cast<int64_t>(row.bytes.size());
        rows_.push_back(std::move(row));
      }
      if (bytes > memory_limit_) {
        if (spill_dir_.empty()) {
          status_ = Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                           "Executor error during find command :: caused by :: Sort exceeded "
                           "memory limit of " + std::to_string(memory_limit_) +
                               " bytes, but did not opt in to external sorting.");
          rows_.clear();
          return false;
        }
        // The kept rows go to disk as one sorted run. A top-k heap becomes a plain sort from
        // here on (the limit above this stream still applies).
        top_k = false;
        std::sort(rows_.begin(), rows_.end(), less);
        auto run = RunFile::Write(spill_dir_, rows_);
        if (!run.ok()) {
          status_ = run.status();
          rows_.clear();
          return false;
        }
        runs_.push_back(std::move(run).value());
        rows_.clear();
        bytes = 0;
      }
    }
    status_ = child_->status();
    if (!status_.ok()) return false;
    if (top_k) {
      std::sort_heap(rows_.begin(), rows_.end(), less);
    } else {
      std::sort(rows_.begin(), rows_.end(), less);
    }
    return true;
  }

  // Merging: heads_[i] is the current row of run i (the in-memory rows are the last "run").
  bool ReadHead(size_t i) {
    if (i < runs_.size()) {
      if (runs_[i]->Read(&heads_[i])) return true;
      if (!runs_[i]->status().ok()) status_ = runs_[i]->status();
      return false;
    }
    if (position_ >= rows_.size()) return false;
    heads_[i] = std::move(rows_[position_++]);
    return true;
  }

  bool StartMerge() {
    heads_.resize(runs_.size() + 1);
    for (size_t i = 0; i < heads_.size(); ++i) {
      if (ReadHead(i)) queue_.push_back(i);
      if (!status_.ok()) return false;
    }
    std::make_heap(queue_.begin(), queue_.end(), HeadGreater());
    return PopSmallest();
  }

  bool NextMerged() {
    // Refill the run just returned, then take the smallest head.
    if (ReadHead(current_)) {
      queue_.push_back(current_);
      std::push_heap(queue_.begin(), queue_.end(), HeadGreater());
    }
    if (!status_.ok()) return false;
    return PopSmallest();
  }

  bool PopSmallest() {
    if (queue_.empty()) return false;
    std::pop_heap(queue_.begin(), queue_.end(), HeadGreater());
    current_ = queue_.back();
    queue_.pop_back();
    return true;
  }

  // Orders run indexes so the heap's top is the run with the smallest head.
  struct HeadGreaterFn {
    const SortStream* self;
    bool operator()(size_t a, size_t b) const { return self->Less(self->heads_[b], self->heads_[a]); }
  };
  HeadGreaterFn HeadGreater() const { return HeadGreaterFn{this}; }

  std::unique_ptr<DocumentStream> child_;
  std::shared_ptr<const query::SortPattern> sort_;
  int64_t keep_;
  std::string spill_dir_;
  int64_t memory_limit_;
  std::vector<Row> rows_;
  size_t position_ = 0;
  bool sorted_ = false;
  Status status_;
  std::vector<std::unique_ptr<RunFile>> runs_;
  std::vector<Row> heads_;
  std::vector<size_t> queue_;
  size_t current_ = 0;
};

}  // namespace

std::unique_ptr<DocumentStream> MakeSortStream(std::unique_ptr<DocumentStream> child,
                                               std::shared_ptr<const query::SortPattern> sort,
                                               int64_t keep, std::string spill_dir,
                                               int64_t memory_limit) {
  return std::make_unique<SortStream>(std::move(child), std::move(sort), keep,
                                      std::move(spill_dir), memory_limit);
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
