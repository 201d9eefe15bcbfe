// Byte streams to and from files or stdin/stdout, plain or gzip (zlib's gz* functions read and
// write the gzip format mongodump's --gzip produces), and the reading of concatenated BSON
// documents from one, as .bson files and archives hold them.
#pragma once

#include <zlib.h>

#include <cstdio>
#include <memory>
#include <string>

#include "common/status.h"

namespace cairn::tools {

class InStream {
 public:
  // `path` "-" is stdin.
  static Result<std::unique_ptr<InStream>> Open(const std::string& path, bool gzip);
  ~InStream();
  // Reads up to `n` bytes; returns how many (0 at the end), or an error.
  Result<size_t> Read(void* buf, size_t n);
  // Reads exactly `n` bytes; false at a clean end before the first byte, an error when the
  // stream ends part-way.
  Result<bool> ReadFull(void* buf, size_t n);
  const std::string& name() const { return name_; }

 private:
  InStream() = default;
  std::string name_;
  FILE* file_ = nullptr;
  gzFile gz_ = nullptr;
  bool owns_ = false;
};

class OutStream {
 public:
  // `path` "-" is stdout.
  static Result<std::unique_ptr<OutStream>> Open(const std::string& path, bool gzip);
  ~OutStream();
  Status Write(const void* data, size_t n);
  Status Write(const std::string& s) { return Write(s.data(), s.size()); }
  // Flushes and closes; a write error that only shows at close (a full disk) comes back here.
  Status Close();

 private:
  OutStream() = default;
  std::string name_;
  FILE* file_ = nullptr;
  gzFile gz_ = nullptr;
  bool owns_ = false;
};

// Reads one BSON document into *doc; false at a clean end of the stream. A length below 5 or
// above 16 MiB + 16 KiB (the server's largest document with room for an internal one) is an
// error, as is a document cut short.
Result<bool> ReadBsonDocument(InStream* in, std::string* doc);

// The largest document read from a stream.
constexpr size_t kMaxBsonSize = 16 * 1024 * 1024 + 16 * 1024;

}  // namespace cairn::tools
