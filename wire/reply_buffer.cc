// ReplyBuffer: replies built in place in a reusable frame buffer.
#include "wire/reply_buffer.h"

#include <cstring>
#include <utility>

namespace cairn::wire {

ReplyBuffer::~ReplyBuffer() {
  if (writer_ != nullptr) bson_writer_destroy(writer_);
  bson_free(buffer_);
}

void ReplyBuffer::Reserve(size_t bytes) {
  if (bytes <= capacity_) return;
  size_t capacity = capacity_ == 0 ? 4096 : capacity_;
  while (capacity < bytes) capacity *= 2;
  buffer_ = static_cast<uint8_t*>(bson_realloc(buffer_, capacity));
  capacity_ = capacity;
}

bson_t* ReplyBuffer::Begin(size_t prefix_bytes) {
  Reserve(prefix_bytes + 5);
  prefix_ = prefix_bytes;
  size_ = 0;
  complete_ = false;
  // The writer reallocates buffer_/capacity_ through bson_realloc_ctx as the body grows.
  writer_ = bson_writer_new(&buffer_, &capacity_, prefix_bytes, bson_realloc_ctx, nullptr);
  bson_writer_begin(writer_, &body_);
  return body_;
}

bson_t* ReplyBuffer::Restart() {
  bson_writer_rollback(writer_);
  bson_writer_begin(writer_, &body_);
  return body_;
}

void ReplyBuffer::End() {
  if (complete_) return;
  bson_writer_end(writer_);
  size_ = bson_writer_get_length(writer_);  // includes the prefix offset
  bson_writer_destroy(writer_);
  writer_ = nullptr;
  body_ = nullptr;
}

bool ReplyBuffer::Adopt(ReplyBuffer& prepared) {
  if (writer_ == nullptr || prepared.writer_ != nullptr || prepared.size_ == 0 ||
      prepared.prefix_ != prefix_) {
    return false;
  }
  // The open writer points at this buffer's memory: close it before the memory changes hands.
  bson_writer_destroy(writer_);
  writer_ = nullptr;
  body_ = nullptr;
  std::swap(buffer_, prepared.buffer_);
  std::swap(capacity_, prepared.capacity_);
  size_ = prepared.size_;
  prepared.size_ = 0;
  complete_ = true;
  return true;
}

void ReplyBuffer::Append(const void* bytes, size_t length) {
  Reserve(size_ + length);
  std::memcpy(buffer_ + size_, bytes, length);
  size_ += length;
}

void ReplyBuffer::Reset(size_t keep_bytes) {
  if (writer_ != nullptr) {
    bson_writer_destroy(writer_);
    writer_ = nullptr;
    body_ = nullptr;
  }
  size_ = 0;
  complete_ = false;
  if (capacity_ > keep_bytes) {
    bson_free(buffer_);
    buffer_ = nullptr;
    capacity_ = 0;
  }
}

}  // namespace cairn::wire
