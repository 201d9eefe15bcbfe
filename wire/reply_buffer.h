// ReplyBuffer: one connection's reusable output frame. A reply's body document is built in
// place (libbson's bson_writer, at an offset that leaves room for the frame's prefix), so
// handlers append straight into the bytes that go on the wire: no reply copy, and no regrowth
// from scratch for every large batch (a 16 MiB getMore reply used to be grown by realloc,
// copied, and freed each time). Owned by one connection; not thread-safe.
#pragma once

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>

namespace cairn::wire {

// A connection keeps its reply buffer across requests up to this size, so scans do not regrow
// and page-fault a new buffer for every getMore: a full 16 MiB batch grows the buffer by
// doubling to 32 MiB. A larger one (rare) is released after its reply is sent.
inline constexpr size_t kKeepReplyBytes = 33u << 20;

class ReplyBuffer {
 public:
  ReplyBuffer() = default;
  ReplyBuffer(const ReplyBuffer&) = delete;
  ReplyBuffer& operator=(const ReplyBuffer&) = delete;
  ~ReplyBuffer();

  // Starts a reply whose body document begins after `prefix_bytes` (the frame's header and
  // section bytes); returns the empty body to fill.
  bson_t* Begin(size_t prefix_bytes);
  // Discards what the body holds and returns it empty (an error reply replaces a partial one).
  bson_t* Restart();
  // The body being built (between Begin and End).
  bson_t* body() { return body_; }
  // Closes the body (nothing to do once complete()); afterwards data()/size() cover prefix + body.
  void End();
  // Takes over `prepared`'s finished reply (built with the same prefix, Begin..End) in place of
  // the body this buffer has open, which must still be empty; `prepared` gets this buffer's
  // memory to reuse. False (and nothing changes) when the prefixes differ. Afterwards the body
  // is complete(): body() is null and End() does nothing. (A getMore sends the batch its cursor
  // read ahead this way, with no copy: cursor_batch.h.)
  bool Adopt(ReplyBuffer& prepared);
  // Whether the body is a finished one taken over by Adopt (nothing more may be appended).
  bool complete() const { return complete_; }
  // Appends raw bytes after the body (the OP_MSG checksum).
  void Append(const void* bytes, size_t length);

  uint8_t* data() { return buffer_; }
  const uint8_t* data() const { return buffer_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The memory held, whatever the current reply's size.
  size_t capacity() const { return capacity_; }
  // Forgets the current reply; keeps the memory unless it grew beyond `keep_bytes`.
  void Reset(size_t keep_bytes);

 private:
  void Reserve(size_t bytes);

  uint8_t* buffer_ = nullptr;
  size_t capacity_ = 0;
  size_t size_ = 0;
  size_t prefix_ = 0;
  bson_writer_t* writer_ = nullptr;
  bson_t* body_ = nullptr;
  bool complete_ = false;
};

}  // namespace cairn::wire
