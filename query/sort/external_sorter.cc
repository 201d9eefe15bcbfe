// ExternalSorter (external_sorter.h): arena records, sorted runs appended to one temporary file
// (one descriptor however many runs), and a heap-driven k-way merge whose readers each hold a
// small window of their run.
#include "query/sort/external_sorter.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace cairn::query {

namespace {

// What a record costs beyond its bytes: its arena offset and the value's size prefix.
constexpr int64_t kRecordOverheadBytes = sizeof(uint64_t) + sizeof(uint32_t);
// Each run reader's window; a record larger than it grows that reader's window to fit.
constexpr size_t kReadWindowBytes = 32 * 1024;
constexpr size_t kWriteChunkBytes = 256 * 1024;

uint32_t LoadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

Status IoError(const std::string& what, const std::string& path) {
  return Status(ErrorCode::kInternalError,
                "cannot " + what + " the sort spill file " + path + ": " + std::strerror(errno));
}

}  // namespace

// Streams one run back: a window of the file, refilled with pread as records are consumed.
class ExternalSorter::RunReader {
 public:
  RunReader(int fd, Run run) : fd_(fd), next_read_(run.begin), end_(run.end) {}

  // Moves to the run's next record; false at its end or on error (*status set).
  bool Next(Status* status) {
    start_ += consumed_;
    consumed_ = 0;
    if (!Ensure(sizeof(int32_t), status)) return false;
    const uint32_t key_size = LoadU32(window_.data() + start_);
    if (key_size < 5 || !Ensure(key_size + sizeof(uint32_t), status)) return Truncated(status);
    const uint32_t value_size = LoadU32(window_.data() + start_ + key_size);
    const size_t record_size = key_size + sizeof(uint32_t) + value_size;
    if (!Ensure(record_size, status)) return Truncated(status);
    key_ = BsonView(reinterpret_cast<const uint8_t*>(window_.data() + start_), key_size);
    value_ = std::string_view(window_.data() + start_ + key_size + sizeof(uint32_t), value_size);
    consumed_ = record_size;
    return true;
  }

  BsonView key() const { return key_; }
  std::string_view value() const { return value_; }

 private:
  // Makes `n` bytes from start_ available in the window; false at the run's end.
  bool Ensure(size_t n, Status* status) {
    if (filled_ - start_ >= n) return true;
    if (next_read_ >= end_ && filled_ == start_) return false;
    // Slide the unread tail to the front and read what follows.
    std::memmove(window_.data(), window_.data() + start_, filled_ - start_);
    filled_ -= start_;
    start_ = 0;
    if (window_.size() < std::max(n, kReadWindowBytes)) {
      window_.resize(std::max(n, kReadWindowBytes));
    }
    while (filled_ < n && next_read_ < end_) {
      size_t want = std::min<uint64_t>(window_.size() - filled_, end_ - next_read_);
      ssize_t got = pread(fd_, window_.data() + filled_, want, static_cast<off_t>(next_read_));
      if (got <= 0) {
        if (got < 0 && errno == EINTR) continue;
        *status = Status(ErrorCode::kInternalError,
                         std::string("cannot read a sort spill file: ") + std::strerror(errno));
        return false;
      }
      filled_ += static_cast<size_t>(got);
      next_read_ += static_cast<uint64_t>(got);
    }
    return filled_ - start_ >= n;
  }

  bool Truncated(Status* status) {
    if (status->ok()) *status = Status(ErrorCode::kInternalError, "a sort spill file is truncated");
    return false;
  }

  int fd_;
  uint64_t next_read_;  // file offset of the next byte to read
  uint64_t end_;
  std::string window_;
  size_t start_ = 0;     // the current record's offset in the window
  size_t consumed_ = 0;  // its size (skipped by the next Next)
  size_t filled_ = 0;
  BsonView key_;
  std::string_view value_;
};

ExternalSorter::ExternalSorter(KeyCompare compare, ExternalSorterOptions options)
    : compare_(std::move(compare)), options_(std::move(options)) {}

ExternalSorter::~ExternalSorter() {
  if (fd_ >= 0) close(fd_);
  if (!path_.empty()) unlink(path_.c_str());
}

BsonView ExternalSorter::KeyAt(uint64_t offset) const {
  const char* p = arena_.data() + offset;
  return BsonView(reinterpret_cast<const uint8_t*>(p), LoadU32(p));
}

std::string_view ExternalSorter::ValueAt(uint64_t offset) const {
  const char* p = arena_.data() + offset;
  p += LoadU32(p);
  return std::string_view(p + sizeof(uint32_t), LoadU32(p));
}

Status ExternalSorter::Add(BsonView key, std::string_view value) {
  records_.push_back(arena_.size());
  arena_.append(reinterpret_cast<const char*>(key.data()), key.size());
  const uint32_t value_size = static_cast<uint32_t>(value.size());
  arena_.append(reinterpret_cast<const char*>(&value_size), sizeof value_size);
  arena_.append(value.data(), value.size());
  memory_ += static_cast<int64_t>(key.size() + value.size()) + kRecordOverheadBytes;
  if (memory_ <= options_.max_memory_bytes) return Status::OK();
  if (!options_.allow_disk_use) {
    return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                  options_.no_disk_use_message);
  }
  return Spill();
}

void ExternalSorter::SortInMemory() {
  std::stable_sort(records_.begin(), records_.end(),
                   [this](uint64_t a, uint64_t b) { return compare_(KeyAt(a), KeyAt(b)) < 0; });
}

Status ExternalSorter::OpenFile() {
  static std::atomic<uint64_t> counter{0};
  std::string dir = options_.spill_dir.empty() ? std::filesystem::temp_directory_path().string()
                                               : options_.spill_dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  path_ =
      dir + "/extsort-" + std::to_string(getpid()) + "-g" + std::to_string(counter.fetch_add(1));
  fd_ = open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    Status error = IoError("create", path_);
    path_.clear();
    return error;
  }
  return Status::OK();
}

Status ExternalSorter::Spill() {
  if (records_.empty()) return Status::OK();
  if (fd_ < 0) CAIRN_RETURN_IF_ERROR(OpenFile());
  SortInMemory();
  Run run;
  run.begin = file_size_;
  std::string chunk;
  chunk.reserve(kWriteChunkBytes);
  auto flush = [&]() -> Status {
    size_t written = 0;
    while (written < chunk.size()) {
      ssize_t n = pwrite(fd_, chunk.data() + written, chunk.size() - written,
                         static_cast<off_t>(file_size_));
      if (n < 0) {
        if (errno == EINTR) continue;
        return IoError("write", path_);
      }
      written += static_cast<size_t>(n);
      file_size_ += static_cast<uint64_t>(n);
    }
    chunk.clear();
    return Status::OK();
  };
  for (uint64_t offset : records_) {
    const size_t size = KeyAt(offset).size() + sizeof(uint32_t) + ValueAt(offset).size();
    chunk.append(arena_.data() + offset, size);
    if (chunk.size() >= kWriteChunkBytes) CAIRN_RETURN_IF_ERROR(flush());
  }
  CAIRN_RETURN_IF_ERROR(flush());
  run.end = file_size_;
  runs_.push_back(run);
  records_.clear();
  arena_.clear();
  memory_ = 0;
  return Status::OK();
}

Status ExternalSorter::Sort() {
  sorted_ = true;
  if (runs_.empty()) {
    SortInMemory();
    return Status::OK();
  }
  // The last records become a run too, so one merge serves.
  CAIRN_RETURN_IF_ERROR(Spill());
  arena_.shrink_to_fit();
  readers_.reserve(runs_.size());
  for (const Run& run : runs_) readers_.emplace_back(fd_, run);
  for (size_t i = 0; i < readers_.size(); ++i) {
    if (readers_[i].Next(&status_)) heap_.push_back(i);
    CAIRN_RETURN_IF_ERROR(status_);
  }
  return Status::OK();
}

bool ExternalSorter::Next() {
  if (!status_.ok()) return false;
  if (runs_.empty()) {
    if (position_ >= records_.size()) return false;
    current_key_ = KeyAt(records_[position_]);
    current_value_ = ValueAt(records_[position_]);
    ++position_;
    return true;
  }
  return NextMerged();
}

bool ExternalSorter::NextMerged() {
  // Heap order: the smaller key on top; equal keys by run, the earlier run first (stability).
  auto greater = [this](size_t a, size_t b) {
    int c = compare_(readers_[a].key(), readers_[b].key());
    return c != 0 ? c > 0 : a > b;
  };
  if (last_reader_ == SIZE_MAX) {
    std::make_heap(heap_.begin(), heap_.end(), greater);
  } else if (readers_[last_reader_].Next(&status_)) {
    heap_.push_back(last_reader_);
    std::push_heap(heap_.begin(), heap_.end(), greater);
  }
  if (!status_.ok() || heap_.empty()) return false;
  std::pop_heap(heap_.begin(), heap_.end(), greater);
  last_reader_ = heap_.back();
  heap_.pop_back();
  current_key_ = readers_[last_reader_].key();
  current_value_ = readers_[last_reader_].value();
  return true;
}

}  // namespace cairn::query
