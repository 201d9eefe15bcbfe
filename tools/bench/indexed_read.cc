// indexed-read: an equality find on a secondary-indexed field — {ts: t} (limit 1, singleBatch),
// t the int64 `ts` of a random loaded document, through the index {ts: 1} built (untimed) before
// the run. The command is built once and only t is overwritten per operation, as point-read does
// with _id, so the two figures compare the index path with the _id path at the same client cost.
#include <vector>

#include "tools/bench/workloads.h"

namespace cairn::bench {

namespace {

class FindByTs : public Op {
 public:
  FindByTs(mongoc_client_t* client, const Options& options, const DocumentSet& docs, uint64_t seed)
      : client_(client), db_(options.db), rng_(seed) {
    for (size_t i = 0; i < docs.size(); ++i) {
      bson_iter_t it;
      int64_t ts = 0;
      if (bson_iter_init_find(&it, docs[i], "ts")) ts = bson_iter_int64(&it);
      ts_.push_back(ts);
    }
    bson_init(&cmd_);
    BSON_APPEND_UTF8(&cmd_, "find", options.collection.c_str());
    bson_t filter;
    BSON_APPEND_DOCUMENT_BEGIN(&cmd_, "filter", &filter);
    BSON_APPEND_INT64(&filter, "ts", 0);
    bson_append_document_end(&cmd_, &filter);
    BSON_APPEND_INT32(&cmd_, "limit", 1);
    BSON_APPEND_BOOL(&cmd_, "singleBatch", true);
    valid_ = bson_iter_init(&key_, &cmd_) && bson_iter_find_descendant(&key_, "filter.ts", &key_);
  }
  ~FindByTs() override { bson_destroy(&cmd_); }

  int64_t Run(std::string* error) override {
    if (!valid_ || ts_.empty()) {
      *error = "indexed-read: no documents";
      return -1;
    }
    int64_t ts = ts_[rng_.Below(ts_.size())];
    bson_iter_overwrite_int64(&key_, ts);
    bson_t reply;
    bool ok = RunCommand(client_, db_, &cmd_, &reply, error);
    if (ok) {
      bson_iter_t root, batch, doc;
      ok = bson_iter_init(&root, &reply) &&
           bson_iter_find_descendant(&root, "cursor.firstBatch", &batch) &&
           BSON_ITER_HOLDS_ARRAY(&batch) && bson_iter_recurse(&batch, &doc) && bson_iter_next(&doc);
      if (!ok) *error = "indexed-read: ts " + std::to_string(ts) + " not found";
    }
    bson_destroy(&reply);
    return ok ? 1 : -1;
  }

 private:
  mongoc_client_t* client_;
  std::string db_;
  SplitMix64 rng_;
  std::vector<int64_t> ts_;
  bson_t cmd_;
  bson_iter_t key_;
  bool valid_ = false;
};

}  // namespace

bool CreateIndexOn(mongoc_client_t* client, const Options& options, const char* field,
                   std::string* error) {
  bson_t cmd;
  bson_init(&cmd);
  BSON_APPEND_UTF8(&cmd, "createIndexes", options.collection.c_str());
  bson_t indexes, spec, key;
  BSON_APPEND_ARRAY_BEGIN(&cmd, "indexes", &indexes);
  BSON_APPEND_DOCUMENT_BEGIN(&indexes, "0", &spec);
  BSON_APPEND_DOCUMENT_BEGIN(&spec, "key", &key);
  BSON_APPEND_INT32(&key, field, 1);
  bson_append_document_end(&spec, &key);
  std::string name = std::string(field) + "_1";
  BSON_APPEND_UTF8(&spec, "name", name.c_str());
  bson_append_document_end(&indexes, &spec);
  bson_append_array_end(&cmd, &indexes);
  bool ok = RunCommand(client, options.db, &cmd, nullptr, error);
  bson_destroy(&cmd);
  return ok;
}

bool CreateTsIndex(mongoc_client_t* client, const Options& options, std::string* error) {
  return CreateIndexOn(client, options, "ts", error);
}

std::unique_ptr<Op> FindByIndexedFieldOp(mongoc_client_t* client, const Options& options,
                                         const DocumentSet& docs, uint64_t seed) {
  return std::make_unique<FindByTs>(client, options, docs, seed);
}

}  // namespace cairn::bench
