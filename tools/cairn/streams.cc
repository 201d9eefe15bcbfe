// File and gzip streams, and the BSON document reader.
#include "tools/cairn/streams.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cairn::tools {

namespace {

Status IoError(const std::string& what, const std::string& name) {
  return Status(ErrorCode::kInternalError, what + " " + name + ": " + std::strerror(errno));
}

}  // namespace

Result<std::unique_ptr<InStream>> InStream::Open(const std::string& path, bool gzip) {
  std::unique_ptr<InStream> in(new InStream());
  in->name_ = path == "-" ? "stdin" : path;
  int fd = STDIN_FILENO;
  if (path != "-") {
    in->file_ = std::fopen(path.c_str(), "rb");
    if (!in->file_) {
      return IoError("cannot open", path);
    }
    in->owns_ = true;
    fd = fileno(in->file_);
  } else {
    in->file_ = stdin;
  }
  if (gzip) {
    in->gz_ = gzdopen(dup(fd), "rb");
    if (!in->gz_) {
      return Status(ErrorCode::kInternalError, "cannot read gzip from " + path);
    }
    gzbuffer(in->gz_, 1 << 20);
  }
  return in;
}

InStream::~InStream() {
  if (gz_) gzclose(gz_);
  if (owns_ && file_) std::fclose(file_);
}

Result<size_t> InStream::Read(void* buf, size_t n) {
  if (gz_) {
    int got = gzread(gz_, buf, static_cast<unsigned>(n));
    if (got < 0) {
      int code = 0;
      return Status(ErrorCode::kInternalError,
                    "cannot read " + name_ + " as gzip: " + gzerror(gz_, &code));
    }
    return static_cast<size_t>(got);
  }
  size_t got = std::fread(buf, 1, n, file_);
  if (got < n && std::ferror(file_)) return IoError("cannot read", name_);
  return got;
}

Result<bool> InStream::ReadFull(void* buf, size_t n) {
  size_t done = 0;
  while (done < n) {
    CAIRN_ASSIGN_OR_RETURN(size_t got, Read(static_cast<char*>(buf) + done, n - done));
    if (got == 0) {
      if (done == 0) return false;
      return Status(ErrorCode::kInvalidBSON, name_ + " ends in the middle of a document");
    }
    done += got;
  }
  return true;
}

Result<std::unique_ptr<OutStream>> OutStream::Open(const std::string& path, bool gzip) {
  std::unique_ptr<OutStream> out(new OutStream());
  out->name_ = path == "-" ? "stdout" : path;
  int fd = STDOUT_FILENO;
  if (path != "-") {
    out->file_ = std::fopen(path.c_str(), "wb");
    if (!out->file_) {
      return IoError("cannot create", path);
    }
    out->owns_ = true;
    fd = fileno(out->file_);
  } else {
    out->file_ = stdout;
  }
  if (gzip) {
    std::fflush(out->file_);
    out->gz_ = gzdopen(dup(fd), "wb");
    if (!out->gz_) {
      return Status(ErrorCode::kInternalError, "cannot write gzip to " + path);
    }
    gzbuffer(out->gz_, 1 << 20);
  }
  return out;
}

OutStream::~OutStream() { Close().IgnoreError(); }

Status OutStream::Write(const void* data, size_t n) {
  if (n == 0) return Status::OK();
  if (gz_) {
    if (gzwrite(gz_, data, static_cast<unsigned>(n)) != static_cast<int>(n)) {
      int code = 0;
      return Status(ErrorCode::kInternalError,
                    "cannot write " + name_ + ": " + gzerror(gz_, &code));
    }
    return Status::OK();
  }
  if (std::fwrite(data, 1, n, file_) != n) return IoError("cannot write", name_);
  return Status::OK();
}

Status OutStream::Close() {
  Status status;
  if (gz_) {
    if (gzclose(gz_) != Z_OK) status = IoError("cannot finish", name_);
    gz_ = nullptr;
  }
  if (file_) {
    if (std::fflush(file_) != 0 && status.ok()) status = IoError("cannot write", name_);
    if (owns_ && std::fclose(file_) != 0 && status.ok()) status = IoError("cannot close", name_);
    file_ = nullptr;
  }
  return status;
}

Result<bool> ReadBsonDocument(InStream* in, std::string* doc) {
  uint8_t header[4];
  CAIRN_ASSIGN_OR_RETURN(bool more, in->ReadFull(header, 4));
  if (!more) return false;
  uint32_t length =
      header[0] | (header[1] << 8) | (header[2] << 16) | (static_cast<uint32_t>(header[3]) << 24);
  if (length < 5 || length > kMaxBsonSize) {
    return Status(ErrorCode::kInvalidBSON,
                  in->name() + " holds a document of invalid length " + std::to_string(length));
  }
  doc->resize(length);
  std::memcpy(doc->data(), header, 4);
  CAIRN_ASSIGN_OR_RETURN(bool whole, in->ReadFull(doc->data() + 4, length - 4));
  if (!whole)
    return Status(ErrorCode::kInvalidBSON, in->name() + " ends in the middle of a document");
  return true;
}

}  // namespace cairn::tools
