// The archive writer and reader (format: archive.h).
#include "tools/cairn/archive.h"

#include <cstring>

#include "tools/cairn/bson_util.h"
#include "tools/cairn/crc64.h"

namespace cairn::tools {

namespace {

constexpr uint8_t kMagic[4] = {0x6d, 0xe2, 0x99, 0x81};  // 0x8199e26d little-endian
constexpr uint8_t kTerminator[4] = {0xff, 0xff, 0xff, 0xff};
constexpr size_t kSegmentBytes = 4 * 1024 * 1024;

std::string Key(const std::string& db, const std::string& collection) {
  return db + "." + collection;
}

Status WriteDoc(OutStream* out, const bson_t* doc) {
  return out->Write(bson_get_data(doc), doc->len);
}

// Reads a length-prefixed block entry: a document (true) or the terminator (false).
Result<bool> ReadEntry(InStream* in, std::string* doc) {
  uint8_t header[4];
  CAIRN_ASSIGN_OR_RETURN(bool more, in->ReadFull(header, 4));
  if (!more) return Status(ErrorCode::kInvalidBSON, in->name() + ": the archive ends early");
  if (std::memcmp(header, kTerminator, 4) == 0) return false;
  uint32_t length =
      header[0] | (header[1] << 8) | (header[2] << 16) | (static_cast<uint32_t>(header[3]) << 24);
  if (length < 5 || length > kMaxBsonSize) {
    return Status(ErrorCode::kInvalidBSON,
                  in->name() + ": archive entry of invalid length " + std::to_string(length));
  }
  doc->resize(length);
  std::memcpy(doc->data(), header, 4);
  CAIRN_ASSIGN_OR_RETURN(bool whole, in->ReadFull(doc->data() + 4, length - 4));
  if (!whole) return Status(ErrorCode::kInvalidBSON, in->name() + ": the archive ends early");
  return true;
}

// *doc reads `bytes` in place.
Status View(const std::string& bytes, const std::string& what, bson_t* doc) {
  if (!bson_init_static(doc, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) ||
      !bson_validate(doc, BSON_VALIDATE_NONE, nullptr)) {
    return Status(ErrorCode::kInvalidBSON, "the archive's " + what + " is not valid BSON");
  }
  return Status::OK();
}

}  // namespace

Status ArchiveWriter::WritePrelude(const std::string& server_version,
                                   const std::vector<ArchiveCollection>& collections) {
  CAIRN_RETURN_IF_ERROR(out_->Write(kMagic, 4));
  BsonPtr header = NewBson();
  BSON_APPEND_INT32(header.get(), "concurrent_collections", 1);
  BSON_APPEND_UTF8(header.get(), "version", "0.1");
  BSON_APPEND_UTF8(header.get(), "server_version", server_version.c_str());
  BSON_APPEND_UTF8(header.get(), "tool_version", "cairn");
  CAIRN_RETURN_IF_ERROR(WriteDoc(out_, header.get()));
  for (const ArchiveCollection& c : collections) {
    BsonPtr doc = NewBson();
    BSON_APPEND_UTF8(doc.get(), "db", c.db.c_str());
    BSON_APPEND_UTF8(doc.get(), "collection", c.collection.c_str());
    BSON_APPEND_UTF8(doc.get(), "metadata", c.metadata.c_str());
    // mongo-tools declares size as a Go int, which its BSON encoder writes as int32 when the
    // value fits, else int64.
    if (c.size <= INT32_MAX) {
      BSON_APPEND_INT32(doc.get(), "size", static_cast<int32_t>(c.size));
    } else {
      BSON_APPEND_INT64(doc.get(), "size", c.size);
    }
    BSON_APPEND_UTF8(doc.get(), "type", c.type.c_str());
    CAIRN_RETURN_IF_ERROR(WriteDoc(out_, doc.get()));
  }
  return out_->Write(kTerminator, 4);
}

Status ArchiveWriter::WriteHeader(const std::string& db, const std::string& collection, bool eof,
                                  int64_t crc) {
  BsonPtr header = NewBson();
  BSON_APPEND_UTF8(header.get(), "db", db.c_str());
  BSON_APPEND_UTF8(header.get(), "collection", collection.c_str());
  BSON_APPEND_BOOL(header.get(), "EOF", eof);
  BSON_APPEND_INT64(header.get(), "CRC", crc);
  return WriteDoc(out_, header.get());
}

Status ArchiveWriter::Flush() {
  if (pending_.empty()) return Status::OK();
  CAIRN_RETURN_IF_ERROR(WriteHeader(pending_db_, pending_collection_, false, 0));
  CAIRN_RETURN_IF_ERROR(out_->Write(pending_));
  pending_.clear();
  return out_->Write(kTerminator, 4);
}

Status ArchiveWriter::Add(const std::string& db, const std::string& collection, const uint8_t* doc,
                          size_t length) {
  if (!pending_.empty() && (db != pending_db_ || collection != pending_collection_)) {
    CAIRN_RETURN_IF_ERROR(Flush());
  }
  pending_db_ = db;
  pending_collection_ = collection;
  pending_.append(reinterpret_cast<const char*>(doc), length);
  uint64_t& crc = crcs_[Key(db, collection)];
  crc = Crc64Update(crc, doc, length);
  if (pending_.size() >= kSegmentBytes) return Flush();
  return Status::OK();
}

Status ArchiveWriter::End(const std::string& db, const std::string& collection) {
  CAIRN_RETURN_IF_ERROR(Flush());
  // Go's int64(uint64) conversion: the CRC's bits as a signed integer.
  auto crc = static_cast<int64_t>(crcs_[Key(db, collection)]);
  CAIRN_RETURN_IF_ERROR(WriteHeader(db, collection, true, crc));
  return out_->Write(kTerminator, 4);
}

Status ArchiveReader::ReadPrelude() {
  uint8_t magic[4];
  CAIRN_ASSIGN_OR_RETURN(bool any, in_->ReadFull(magic, 4));
  if (!any || std::memcmp(magic, kMagic, 4) != 0) {
    return Status(ErrorCode::kFailedToParse,
                  in_->name() +
                      " is not a mongodump archive (no magic number; a gzipped archive "
                      "needs --gzip)");
  }
  std::string bytes;
  CAIRN_ASSIGN_OR_RETURN(bool has_header, ReadEntry(in_, &bytes));
  if (!has_header) return Status(ErrorCode::kFailedToParse, "the archive has no header");
  bson_t header;
  CAIRN_RETURN_IF_ERROR(View(bytes, "header", &header));
  server_version_ = GetString(&header, "server_version");
  std::string version = GetString(&header, "version");
  if (version != "0.1") {
    return Status(ErrorCode::kFailedToParse, "unknown archive format version '" + version + "'");
  }
  for (;;) {
    CAIRN_ASSIGN_OR_RETURN(bool more, ReadEntry(in_, &bytes));
    if (!more) break;
    bson_t doc;
    CAIRN_RETURN_IF_ERROR(View(bytes, "collection list", &doc));
    ArchiveCollection c;
    c.db = GetString(&doc, "db");
    c.collection = GetString(&doc, "collection");
    c.metadata = GetString(&doc, "metadata");
    c.type = GetString(&doc, "type");
    bson_iter_t it;
    if (bson_iter_init_find(&it, &doc, "size") && BSON_ITER_HOLDS_NUMBER(&it)) {
      c.size = bson_iter_as_int64(&it);
    }
    collections_.push_back(std::move(c));
  }
  return Status::OK();
}

Result<ArchiveReader::Event> ArchiveReader::Next(std::string* db, std::string* collection,
                                                 std::string* doc) {
  for (;;) {
    if (in_segment_) {
      CAIRN_ASSIGN_OR_RETURN(bool is_doc, ReadEntry(in_, doc));
      if (!is_doc) {
        in_segment_ = false;
        continue;
      }
      *db = db_;
      *collection = collection_;
      uint64_t& crc = crcs_[Key(db_, collection_)];
      crc = Crc64Update(crc, doc->data(), doc->size());
      return Event::kDocument;
    }
    // Between segments: a namespace header, or the end of the stream.
    uint8_t probe[4];
    CAIRN_ASSIGN_OR_RETURN(bool more, in_->ReadFull(probe, 4));
    if (!more) return Event::kEnd;
    uint32_t length =
        probe[0] | (probe[1] << 8) | (probe[2] << 16) | (static_cast<uint32_t>(probe[3]) << 24);
    if (length < 5 || length > kMaxBsonSize) {
      return Status(ErrorCode::kInvalidBSON, in_->name() + ": bad namespace header in the archive");
    }
    std::string bytes(length, '\0');
    std::memcpy(bytes.data(), probe, 4);
    CAIRN_ASSIGN_OR_RETURN(bool whole, in_->ReadFull(bytes.data() + 4, length - 4));
    if (!whole) return Status(ErrorCode::kInvalidBSON, in_->name() + ": the archive ends early");
    bson_t header;
    CAIRN_RETURN_IF_ERROR(View(bytes, "namespace header", &header));
    db_ = GetString(&header, "db");
    collection_ = GetString(&header, "collection");
    bson_iter_t it;
    bool eof = bson_iter_init_find(&it, &header, "EOF") && BSON_ITER_HOLDS_BOOL(&it) &&
               bson_iter_bool(&it);
    if (!eof) {
      in_segment_ = true;
      continue;
    }
    int64_t expected = 0;
    if (bson_iter_init_find(&it, &header, "CRC") && BSON_ITER_HOLDS_NUMBER(&it)) {
      expected = bson_iter_as_int64(&it);
    }
    // An EOF block has no documents: its terminator follows at once.
    std::string none;
    CAIRN_ASSIGN_OR_RETURN(bool has_doc, ReadEntry(in_, &none));
    if (has_doc) {
      return Status(ErrorCode::kInvalidBSON, "documents after the EOF of " + Key(db_, collection_));
    }
    auto actual = static_cast<int64_t>(crcs_[Key(db_, collection_)]);
    if (actual != expected) {
      return Status(ErrorCode::kInvalidBSON, "CRC mismatch for " + Key(db_, collection_) + ": " +
                                                 std::to_string(actual) +
                                                 " != " + std::to_string(expected));
    }
    *db = db_;
    *collection = collection_;
    return Event::kEof;
  }
}

}  // namespace cairn::tools
