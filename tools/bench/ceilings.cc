// Ceilings on Cairn's storage library: a RocksDB WriteBatch of 1,000 documents (as the server
// commits an insertMany batch) and a RocksDB iterator pass (as the server's collection scan).
#include "tools/bench/ceilings.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "common/bson_doc.h"
#include "index/key_string.h"
#include "storage/engine.h"

namespace cairn::bench {

struct CeilingStore::State {
  std::unique_ptr<storage::Engine> engine;
  storage::Prefix collection = 0;
  storage::Prefix id_index = 0;
};

std::unique_ptr<CeilingStore> CeilingStore::Open(const std::string& parent, std::string* error) {
  std::string base = parent;
  if (base.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp && *tmp ? tmp : "/tmp";
  }
  std::string templ = base + "/cairn-bench-ceiling-XXXXXX";
  if (!mkdtemp(templ.data())) {
    *error = "cannot create a directory under " + base;
    return nullptr;
  }
  std::unique_ptr<CeilingStore> store(new CeilingStore());
  store->dir_ = templ;
  store->state_ = std::make_unique<State>();

  storage::StorageOptions options;  // defaults: what cairnd opens its --dbpath with
  options.path = templ;
  auto opened = storage::Engine::Open(options);
  if (!opened.ok()) {
    *error = "storage open: " + opened.status().ToString();
    return nullptr;
  }
  store->state_->engine = std::move(opened).value();
  auto created = store->state_->engine->catalog().CreateCollection("cairn_bench.docs", BsonView());
  if (!created.ok()) {
    *error = "create collection: " + created.status().ToString();
    return nullptr;
  }
  store->state_->collection = created.value()->prefix;
  store->state_->id_index = created.value()->indexes[0].prefix;
  return store;
}

CeilingStore::~CeilingStore() {
  if (state_) state_->engine.reset();
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

double CeilingStore::Load(const DocumentSet& docs, size_t batch, std::string* error) {
  storage::Engine& engine = *state_->engine;
  const storage::Prefix collection = state_->collection;
  const storage::Prefix id_index = state_->id_index;
  std::string key;
  auto start = std::chrono::steady_clock::now();
  for (size_t first = 0; first < docs.size(); first += batch) {
    size_t end = std::min(docs.size(), first + batch);
    storage::WriteUnit unit = engine.BeginWrite();
    for (size_t i = first; i < end; ++i) {
      const bson_t* doc = docs[i];
      BsonView view(bson_get_data(doc), doc->len);
      bson_iter_t id;
      if (!view.Find("_id", &id)) {
        *error = "document without _id";
        return -1;
      }
      key.clear();
      index::AppendValue(&key, &id);
      storage::RecordId record_id = engine.NextRecordId(collection);
      unit.PutRecord(collection, record_id, view);
      unit.PutIndexEntry(id_index, key, storage::EncodeRecordId(record_id));
      unit.AdjustCounts(collection, 1, static_cast<int64_t>(doc->len));
    }
    Status status = unit.Commit();
    if (!status.ok()) {
      *error = "commit: " + status.ToString();
      return -1;
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  loaded_ = true;
  return seconds > 0 ? static_cast<double>(docs.size()) / seconds : 0;
}

namespace {

class ScanPass : public Op {
 public:
  ScanPass(const storage::Engine* engine, storage::Prefix collection)
      : engine_(engine), collection_(collection) {}
  int64_t Run(std::string* error) override {
    std::unique_ptr<storage::RecordCursor> cursor = engine_->ScanRecords(collection_);
    int64_t n = 0;
    uint64_t touched = 0;
    while (cursor->Next()) {
      BsonView v = cursor->value();
      touched += v.size() + v.data()[v.size() - 1];  // reads the value's bytes, not just its length
      ++n;
    }
    if (!cursor->status().ok()) {
      *error = "scan: " + cursor->status().ToString();
      return -1;
    }
    sink_ = sink_ + touched;
    return n;
  }

 private:
  const storage::Engine* engine_;
  storage::Prefix collection_;
  volatile uint64_t sink_ = 0;
};

}  // namespace

std::unique_ptr<Op> CeilingStore::ScanOp() {
  return std::make_unique<ScanPass>(state_->engine.get(), state_->collection);
}

}  // namespace cairn::bench
