// Test support for storage tests: a temporary directory removed afterwards, opening an Engine
// on it, and small BSON documents.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "common/bson_doc.h"
#include "storage/engine.h"

namespace cairn::storage::testing {

// A fresh directory under /tmp (mkdtemp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    char templ[] = "/tmp/cairn-storage-test-XXXXXX";
    char* made = mkdtemp(templ);
    EXPECT_NE(made, nullptr);
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // A database directory inside this one (RocksDB creates it).
  std::string db() const { return path_ + "/db"; }

 private:
  std::string path_;
};

inline StorageOptions SmallOptions(const std::string& path) {
  StorageOptions o;
  o.path = path;
  o.block_cache_bytes = 8u << 20;
  o.write_buffer_bytes = 4u << 20;
  return o;
}

inline std::unique_ptr<Engine> OpenOrDie(const std::string& path) {
  auto r = Engine::Open(SmallOptions(path));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return nullptr;
  return std::move(r).value();
}

// {_id: id, s: <filler>}: a small document whose size depends on `filler_len`.
inline BsonDoc Doc(int64_t id, size_t filler_len = 10) {
  BsonDoc d;
  bson_append_int64(d.get(), "_id", 3, id);
  std::string filler(filler_len, 'x');
  AppendUtf8(d.get(), "s", filler);
  return d;
}

// The int64 _id of a document made by Doc().
inline int64_t IdOf(BsonView v) {
  bson_iter_t it;
  if (!v.Find("_id", &it)) return -1;
  return bson_iter_as_int64(&it);
}

// Inserts documents Doc(id) for ids [first, last] under fresh RecordIds, with counts, in one
// unit; returns the RecordIds.
inline std::vector<RecordId> InsertDocs(Engine& engine, Prefix coll, int64_t first, int64_t last) {
  std::vector<RecordId> ids;
  WriteUnit unit = engine.BeginWrite();
  for (int64_t i = first; i <= last; ++i) {
    BsonDoc d = Doc(i);
    RecordId rid = engine.NextRecordId(coll);
    unit.PutRecord(coll, rid, d.view());
    unit.AdjustCounts(coll, 1, static_cast<int64_t>(d.view().size()));
    ids.push_back(rid);
  }
  Status s = unit.Commit();
  EXPECT_TRUE(s.ok()) << s.ToString();
  return ids;
}

}  // namespace cairn::storage::testing
