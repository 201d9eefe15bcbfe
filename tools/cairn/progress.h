// Progress of a long run, shared by dump, restore, export and import: on a terminal (stderr is
// a TTY) one refreshing line with documents, bytes, rate and, when the total is known, the ETA;
// elsewhere (logs, CI, pipes) nothing until the one summary line at the end, so logs stay short.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace cairn::tools {

class Progress {
 public:
  // `total_docs` / `total_bytes`: -1 when unknown. The ETA uses whichever is known.
  Progress(std::string label, int64_t total_docs, int64_t total_bytes, bool quiet);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Add(int64_t docs, int64_t bytes);
  // For inputs whose size is not the documents' (import's JSON or CSV): how much of the
  // `total_bytes` input has been read, which the ETA then follows.
  void SetConsumed(int64_t input_bytes) { consumed_ = input_bytes; }
  // Prints the summary line ("<label>: N documents, X MB in T s (R docs/s, M MB/s)") with
  // `suffix` appended; later calls do nothing.
  void Finish(const std::string& suffix = "");

  int64_t docs() const { return docs_; }
  int64_t bytes() const { return bytes_; }

 private:
  void Draw(bool force);
  double Elapsed() const;

  std::string label_;
  int64_t total_docs_;
  int64_t total_bytes_;
  bool quiet_;
  bool tty_;
  bool finished_ = false;
  int64_t docs_ = 0;
  int64_t bytes_ = 0;
  int64_t consumed_ = -1;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// "12.3 MB" style byte counts for messages.
std::string FormatBytes(double bytes);

}  // namespace cairn::tools
