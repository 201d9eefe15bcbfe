// Buffered character reader with line counting.
#include "tools/cairn/line_reader.h"

namespace cairn::tools {

Status LineReader::Fill() {
  if (pos_ < buffer_.size() || eof_) return Status::OK();
  if (progress_) progress_->SetConsumed(offset_);
  buffer_.resize(1 << 16);
  Result<size_t> got = in_->Read(buffer_.data(), buffer_.size());
  if (!got.ok()) return got.status();
  buffer_.resize(*got);
  pos_ = 0;
  if (*got == 0) eof_ = true;
  return Status::OK();
}

Result<bool> LineReader::Peek(char* c) {
  CAIRN_RETURN_IF_ERROR(Fill());
  if (pos_ >= buffer_.size()) return false;
  *c = buffer_[pos_];
  return true;
}

Result<bool> LineReader::Get(char* c) {
  CAIRN_ASSIGN_OR_RETURN(bool more, Peek(c));
  if (!more) return false;
  ++pos_;
  ++offset_;
  if (*c == '\n') ++line_;
  return true;
}

}  // namespace cairn::tools
