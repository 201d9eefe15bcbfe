// The progress line and the summary line.
#include "tools/cairn/progress.h"

#include <unistd.h>

#include <cstdio>

namespace cairn::tools {

namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(250);

std::string FormatDuration(double seconds) {
  long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

}  // namespace

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return buf;
}

Progress::Progress(std::string label, int64_t total_docs, int64_t total_bytes, bool quiet)
    : label_(std::move(label)),
      total_docs_(total_docs),
      total_bytes_(total_bytes),
      quiet_(quiet),
      tty_(!quiet && isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() { Finish(); }

double Progress::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::Add(int64_t docs, int64_t bytes) {
  docs_ += docs;
  bytes_ += bytes;
  if (tty_) Draw(false);
}

void Progress::Draw(bool force) {
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  double elapsed = Elapsed();
  double rate = elapsed > 0 ? docs_ / elapsed : 0;
  double byte_rate = elapsed > 0 ? bytes_ / elapsed : 0;
  std::string line = label_ + "  " + std::to_string(docs_);
  if (total_docs_ >= 0) line += "/" + std::to_string(total_docs_);
  line += " docs  " + FormatBytes(static_cast<double>(bytes_));
  char buf[96];
  std::snprintf(buf, sizeof buf, "  %.0f docs/s  %s/s", rate, FormatBytes(byte_rate).c_str());
  line += buf;
  // The ETA from documents when their total is known, else from bytes (a restore from files).
  double left = -1;
  if (total_docs_ > 0 && rate > 0) {
    left = (total_docs_ - docs_) / rate;
  } else if (total_bytes_ > 0 && consumed_ > 0) {
    left = (total_bytes_ - consumed_) * elapsed / consumed_;
  } else if (total_bytes_ > 0 && byte_rate > 0) {
    left = (total_bytes_ - bytes_) / byte_rate;
  }
  if (left >= 0) line += "  ETA " + FormatDuration(left);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

void Progress::Finish(const std::string& suffix) {
  if (finished_) return;
  finished_ = true;
  if (tty_) std::fprintf(stderr, "\r\033[K");
  if (quiet_) return;
  double elapsed = Elapsed();
  double rate = elapsed > 0 ? docs_ / elapsed : 0;
  double byte_rate = elapsed > 0 ? bytes_ / elapsed : 0;
  std::fprintf(stderr, "%s: %lld document(s), %s in %.2f s (%.0f docs/s, %s/s)%s\n", label_.c_str(),
               static_cast<long long>(docs_), FormatBytes(static_cast<double>(bytes_)).c_str(),
               elapsed, rate, FormatBytes(byte_rate).c_str(), suffix.c_str());
}

}  // namespace cairn::tools
