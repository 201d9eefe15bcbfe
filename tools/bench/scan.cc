// scan: find {} through a driver cursor (first batch of 101, then getMores as large as the server
// makes them), touching every document.
#include "tools/bench/workloads.h"

namespace cairn::bench {

namespace {

class ScanPass : public Op {
 public:
  ScanPass(mongoc_client_t* client, const Options& options)
      : coll_(
            mongoc_client_get_collection(client, options.db.c_str(), options.collection.c_str())) {}
  ~ScanPass() override { mongoc_collection_destroy(coll_); }

  int64_t Run(std::string* error) override {
    bson_t filter = BSON_INITIALIZER;
    mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll_, &filter, nullptr, nullptr);
    int64_t n = DrainCursor(cursor, "scan", error);
    bson_destroy(&filter);
    return n;
  }

 private:
  mongoc_collection_t* coll_;
};

}  // namespace

std::unique_ptr<Op> ScanOp(mongoc_client_t* client, const Options& options) {
  return std::make_unique<ScanPass>(client, options);
}

}  // namespace cairn::bench
