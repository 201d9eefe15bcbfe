// mongodump's single-file --archive format, written and read.
//
// Source: mongo-tools common/archive/spec.md and archive.go/prelude.go/demultiplexer.go
// (https://github.com/mongodb/mongo-tools/tree/master/common/archive), read for the format only:
//
//   archive   = magic (int32 0x8199e26d, little-endian: bytes 6d e2 99 81)
//               header document {concurrent_collections: int32, version: "0.1",
//                                server_version: string, tool_version: string}
//               one document per collection {db, collection, metadata: <metadata.json text>,
//                                            size: int32 (uncompressed bytes), type}
//               terminator (int32 -1: ff ff ff ff)
//               then, in any interleaving, segments and EOFs:
//   segment   = {db, collection, EOF: false, CRC: int64 0} + documents + terminator
//   eof       = {db, collection, EOF: true, CRC: int64 CRC-64 of the namespace's documents}
//               + terminator
//
// Every namespace in the prelude gets an EOF, views too (mongodump writes an empty collection
// for a view: mongorestore's demultiplexer fails on a namespace it never saw closed), and
// mongorestore checks the CRC (crc64.h) at the EOF. --gzip compresses the whole stream.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "tools/cairn/streams.h"

namespace cairn::tools {

struct ArchiveCollection {
  std::string db;
  std::string collection;
  std::string metadata;  // the metadata.json text (canonical Extended JSON)
  int64_t size = 0;
  std::string type;  // "collection", "view", "timeseries"
};

class ArchiveWriter {
 public:
  explicit ArchiveWriter(OutStream* out) : out_(out) {}
  Status WritePrelude(const std::string& server_version,
                      const std::vector<ArchiveCollection>& collections);
  // Buffers one document of `db`.`collection`; segments are written at ~4 MB.
  Status Add(const std::string& db, const std::string& collection, const uint8_t* doc,
             size_t length);
  // Flushes the namespace's last segment and writes its EOF with the CRC.
  Status End(const std::string& db, const std::string& collection);

 private:
  Status Flush();
  Status WriteHeader(const std::string& db, const std::string& collection, bool eof, int64_t crc);

  OutStream* out_;
  std::string pending_db_, pending_collection_;
  std::string pending_;  // documents of the open segment
  std::map<std::string, uint64_t> crcs_;
};

class ArchiveReader {
 public:
  explicit ArchiveReader(InStream* in) : in_(in) {}
  // Reads the magic number, the header and the collection list.
  Status ReadPrelude();
  const std::vector<ArchiveCollection>& collections() const { return collections_; }
  const std::string& server_version() const { return server_version_; }

  enum class Event { kDocument, kEof, kEnd };
  // The next document (in *doc, with its namespace) or namespace EOF (after its CRC was
  // checked), or the end of the archive.
  Result<Event> Next(std::string* db, std::string* collection, std::string* doc);

 private:
  InStream* in_;
  std::vector<ArchiveCollection> collections_;
  std::string server_version_;
  bool in_segment_ = false;
  std::string db_, collection_;
  std::map<std::string, uint64_t> crcs_;
};

}  // namespace cairn::tools
