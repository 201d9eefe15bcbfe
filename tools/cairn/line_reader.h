// Character-at-a-time reading of a text stream with its line number, for import's JSON and CSV
// readers (errors name the line they are on).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "tools/cairn/progress.h"
#include "tools/cairn/streams.h"

namespace cairn::tools {

class LineReader {
 public:
  // `progress` (may be null) learns how far the input has been read.
  explicit LineReader(InStream* in, Progress* progress = nullptr) : in_(in), progress_(progress) {}
  // The next character; false at the end of the stream. Advances the line count past '\n'.
  Result<bool> Get(char* c);
  // The next character without consuming it.
  Result<bool> Peek(char* c);
  // The line of the next character (1-based).
  int64_t line() const { return line_; }
  // Bytes consumed so far.
  int64_t offset() const { return offset_; }

 private:
  Status Fill();
  InStream* in_;
  Progress* progress_;
  std::string buffer_;
  size_t pos_ = 0;
  bool eof_ = false;
  int64_t line_ = 1;
  int64_t offset_ = 0;
};

}  // namespace cairn::tools
